//! Games on the board: a session of `sheshbesh play` (the same options,
//! rules and verifiable dice, set up by the same code) that the page
//! drives one order at a time. The server plays the engine's seats
//! between orders, so every answer finds a person to act, a game over, or
//! the session over; its log tells what happened, in `play`'s words.

use anyhow::{bail, Result};
use clap::Parser;
use serde_json::{json, Value};
use sheshbesh_engine::evaluation::evaluator::NetEvaluator;
use sheshbesh_engine::formats::{notation, xgid};
use sheshbesh_engine::play::agent::{Act, CubeReply};
use sheshbesh_engine::play::seat::{apply, EngineSeat};
use sheshbesh_engine::play::session::{Awaiting, PlayError, Session};
use sheshbesh_engine::rules::scoring::{GameResult, WinKind};
use sheshbesh_engine::Player;

use super::params::{ApiError, Params};
use crate::console::{Occupant, PlayArgs};
use crate::lang::Lang;
use crate::play_cmd::says;

/// `play`'s options as a request gives them, read by `play`'s own parser.
#[derive(Parser, Debug)]
#[command(name = "play", no_binary_name = true)]
struct Options {
    #[command(flatten)]
    args: PlayArgs,
}

/// The options of `play` a game on the board takes, by their long names.
/// `save`, `weights` and `chouette` are the server's or the terminal's.
pub const OPTIONS: [&str; 15] = [
    "match",
    "games",
    "jacoby",
    "beavers",
    "auto-doubles",
    "bg-counts-two",
    "israeli",
    "no-crawford",
    "players",
    "names",
    "level",
    "home",
    "swap-sides",
    "seed",
    "lang",
];

/// The yes-or-no options among [`OPTIONS`].
const FLAGS: [&str; 6] = [
    "jacoby",
    "beavers",
    "bg-counts-two",
    "israeli",
    "no-crawford",
    "swap-sides",
];

/// Reads a new game's options as `sheshbesh play` reads its flags.
pub fn options(p: &Params) -> Result<PlayArgs, ApiError> {
    let mut argv = Vec::new();
    for name in OPTIONS {
        if FLAGS.contains(&name) {
            if p.flag(name)? {
                argv.push(format!("--{name}"));
            }
        } else if let Some(v) = p.get(name) {
            argv.push(format!("--{name}={v}"));
        }
    }
    let options = Options::try_parse_from(&argv).map_err(|e| {
        let text = e.to_string();
        let first = text.lines().next().unwrap_or("bad options");
        ApiError::said(first.trim_start_matches("error: ").to_string())
    })?;
    let args = options.args;
    crate::play_cmd::check(&args).map_err(ApiError::bad)?;
    if !args.players.contains(&Occupant::Human) {
        return Err(ApiError::said(
            "bad players: a game on the board needs a human seat, as engine,human".into(),
        ));
    }
    Ok(args)
}

/// What a person does, as a request's `do` (and `move`, `kind`) says.
#[derive(Clone, Debug, PartialEq)]
pub enum Order {
    Roll,
    Double,
    Take,
    Drop,
    Beaver,
    Accept,
    Reject,
    Resign(WinKind),
    /// A play in any notation `hint` reads ("8/5 6/5", "bar/22"); the
    /// terminal's "=N" (hint N) is not one here.
    Play(String),
    /// Start the next game.
    Next,
    /// End the session (the dice seed is shown).
    End,
}

impl Order {
    /// The order a request gives.
    pub fn read(p: &Params) -> Result<Order, ApiError> {
        let what = p.required("do")?;
        let order = match what {
            "roll" => Order::Roll,
            "double" => Order::Double,
            "take" => Order::Take,
            "drop" | "pass" => Order::Drop,
            "beaver" => Order::Beaver,
            "accept" => Order::Accept,
            "reject" => Order::Reject,
            "resign" => Order::Resign(match p.get("kind").unwrap_or("single") {
                "single" => WinKind::Single,
                "gammon" => WinKind::Gammon,
                "backgammon" => WinKind::Backgammon,
                k => {
                    return Err(ApiError::said(format!(
                        "bad kind \"{k}\": give single, gammon or backgammon"
                    )))
                }
            }),
            "play" => Order::Play(p.required("move")?.to_string()),
            "next" => Order::Next,
            "end" => Order::End,
            _ => {
                return Err(ApiError::said(format!(
                    "bad do \"{what}\": give roll, double, take, drop, beaver, accept, reject, resign, play, next or end"
                )))
            }
        };
        let takes_move = matches!(order, Order::Play(_));
        let takes_kind = matches!(order, Order::Resign(_));
        if p.get("move").is_some() && !takes_move {
            return Err(ApiError::said(format!(
                "bad move: \"do={what}\" takes none"
            )));
        }
        if p.get("kind").is_some() && !takes_kind {
            return Err(ApiError::said(format!(
                "bad kind: \"do={what}\" takes none"
            )));
        }
        Ok(order)
    }
}

/// One game session on the board.
pub struct Table {
    session: Session,
    args: PlayArgs,
    commitment: String,
    seed: String,
    games_started: u32,
    /// Set when the match is over, the games asked for are played, or the
    /// player ends the session: no order is taken, the seed is shown.
    ended: bool,
    log: Vec<String>,
}

impl Table {
    /// A new session by `args` (read by [`options`]), the engine's first
    /// actions played.
    pub fn new(ev: &NetEvaluator, args: PlayArgs) -> Result<Table> {
        let dealt = crate::play_cmd::deal(&args)?;
        let mut t = Table {
            session: dealt.session,
            args,
            commitment: dealt.commitment,
            seed: dealt.seed,
            games_started: 0,
            ended: false,
            log: Vec::new(),
        };
        t.log(format!(
            "Dice commitment (SHA-256 of the secret seed): {}",
            t.commitment
        ));
        t.advance(ev)?;
        Ok(t)
    }

    fn lang(&self) -> Lang {
        self.args.lang
    }

    fn name(&self, p: Player) -> String {
        self.session.names()[p.index()].clone()
    }

    fn log(&mut self, line: String) {
        self.log.push(line);
    }

    fn human(&self, p: Player) -> bool {
        self.args.players[p.index()] == Occupant::Human
    }

    /// Carries out a person's order, then the engine's turns that follow.
    /// An order that is not due is refused with a [`PlayError::NotNow`],
    /// and the table is as it was.
    pub fn order(&mut self, ev: &NetEvaluator, order: Order) -> Result<()> {
        if self.ended {
            bail!(PlayError::NotNow("the session is over"));
        }
        let awaited = match self.session.awaiting() {
            Awaiting::Roll { player, .. }
            | Awaiting::Move { player, .. }
            | Awaiting::AnswerDouble { player, .. }
            | Awaiting::AnswerResignation { player, .. } => Some(player),
            Awaiting::BetweenGames | Awaiting::MatchOver { .. } => None,
        };
        match order {
            Order::End => {
                self.ended = true;
                self.log("Session ended.".into());
                return Ok(());
            }
            Order::Next => {
                if self.session.awaiting() != Awaiting::BetweenGames {
                    bail!(PlayError::NotNow("a game is in progress"));
                }
                self.start_game()?;
            }
            Order::Resign(kind) => {
                // Whoever is to act offers it, always a person here.
                let player = awaited.ok_or(PlayError::NotNow("no game in progress"))?;
                self.session.resign(player, kind)?;
                self.tell_resign(player, kind);
            }
            Order::Play(text) => {
                let Awaiting::Move { player, dice } = self.session.awaiting() else {
                    bail!(PlayError::NotNow("no roll to play"));
                };
                let chosen = notation::parse_move(self.session.position(), dice, &text)?;
                self.act(player, Act::Play(chosen))?;
            }
            other => {
                let player = awaited.ok_or(PlayError::NotNow("no game in progress"))?;
                let act = match other {
                    Order::Roll => Act::Roll,
                    Order::Double => Act::Double,
                    Order::Take => Act::Reply(CubeReply::Take),
                    Order::Drop => Act::Reply(CubeReply::Drop),
                    Order::Beaver => Act::Reply(CubeReply::Beaver),
                    Order::Accept => Act::Accept,
                    Order::Reject => Act::Reject,
                    _ => unreachable!("handled above"),
                };
                self.act(player, act)?;
            }
        }
        self.advance(ev)
    }

    fn start_game(&mut self) -> Result<()> {
        self.games_started += 1;
        let o = self.session.start_game()?;
        let mut line = format!("Game {}.", self.games_started);
        let names = self.session.names().clone();
        for (a, b) in &o.throws {
            line.push_str(&format!(
                " {} {a}, {} {b}.",
                says(&names[0], "throws"),
                says(&names[1], "throws")
            ));
        }
        if o.cube.value() > 1 {
            line.push_str(&format!(
                " Automatic doubles: the cube is at {}.",
                o.cube.value()
            ));
        }
        line.push_str(&format!(
            " {} with {}.",
            says(&names[o.starter.index()], "starts"),
            self.lang().roll(o.dice)
        ));
        self.log(line);
        Ok(())
    }

    /// Carries out `act` for `player` and tells it.
    fn act(&mut self, player: Player, act: Act) -> Result<()> {
        let lang = self.lang();
        let name = self.name(player);
        let before = self.session.awaiting();
        let cube = self.session.state().cube.value();
        let result = apply(&mut self.session, player, act)?;
        let line = match act {
            Act::Roll => None,
            Act::Play(c) => {
                let Awaiting::Move { dice, .. } = before else {
                    unreachable!("a play was accepted")
                };
                Some(if c.mv.is_empty() {
                    format!(
                        "{} {} and cannot move.",
                        says(&name, "rolls"),
                        lang.roll(dice)
                    )
                } else {
                    let hit = if c.mv.hits() {
                        format!(" ({})", lang.hit())
                    } else {
                        String::new()
                    };
                    // "You roll 31 and play", "Sheshbesh rolls 31 and plays".
                    let verb = says(&name, "plays");
                    let plays = verb.rsplit(' ').next().unwrap_or("plays");
                    format!(
                        "{} {} and {plays} {}{hit}.",
                        says(&name, "rolls"),
                        lang.roll(dice),
                        c.mv
                    )
                })
            }
            Act::Double => Some(format!(
                "{} (cube to {}).",
                says(&name, &lang.double()),
                2 * cube
            )),
            Act::Reply(CubeReply::Take) => Some(format!("{}.", says(&name, &lang.take()))),
            Act::Reply(CubeReply::Drop) => Some(format!("{}.", says(&name, &lang.drop()))),
            Act::Reply(CubeReply::Beaver) => Some(format!(
                "{} (cube to {}).",
                says(&name, "beavers"),
                4 * cube
            )),
            Act::Accept => Some(format!("{}.", says(&name, "accepts"))),
            Act::Reject => Some(format!("{}; play goes on.", says(&name, "rejects"))),
            Act::Resign(kind) => {
                self.tell_resign(player, kind);
                None
            }
        };
        if let Some(line) = line {
            self.log(line);
        }
        if let Some(r) = result {
            self.tell_result(&r);
        }
        Ok(())
    }

    fn tell_resign(&mut self, player: Player, kind: WinKind) {
        let line = format!(
            "{} a {}.",
            says(&self.name(player), "offers to resign"),
            self.lang().win(kind)
        );
        self.log(line);
    }

    fn tell_result(&mut self, r: &GameResult) {
        let [won, score] = crate::play_cmd::result_words(&self.session, self.lang(), r);
        self.log(format!("{won} {score}."));
    }

    /// Plays the engine's turns (and the rolls and passes no one decides)
    /// until a person must act, a game is over, or the session is.
    fn advance(&mut self, ev: &NetEvaluator) -> Result<()> {
        while !self.ended {
            match self.session.awaiting() {
                Awaiting::MatchOver { winner } => {
                    let line = format!("{}.", says(&self.name(winner), "wins the match"));
                    self.log(line);
                    self.ended = true;
                }
                Awaiting::BetweenGames => {
                    let money = self.session.state().length == 0;
                    if money && self.args.games > 0 && self.games_started >= self.args.games {
                        self.log(format!("Session over: {} games played.", self.args.games));
                        self.ended = true;
                    } else if self.games_started == 0 {
                        self.start_game()?;
                    } else {
                        return Ok(());
                    }
                }
                Awaiting::Roll { player, may_double } if self.human(player) => {
                    if may_double {
                        return Ok(());
                    }
                    self.act(player, Act::Roll)?;
                }
                Awaiting::Move { player, .. } if self.human(player) => {
                    let legal = self.session.legal_plays();
                    if legal.len() == 1 && legal[0].mv.is_empty() {
                        self.act(player, Act::Play(legal[0]))?;
                    } else {
                        return Ok(());
                    }
                }
                Awaiting::AnswerDouble { player, .. }
                | Awaiting::AnswerResignation { player, .. }
                    if self.human(player) =>
                {
                    return Ok(());
                }
                Awaiting::Roll { player, .. }
                | Awaiting::Move { player, .. }
                | Awaiting::AnswerDouble { player, .. }
                | Awaiting::AnswerResignation { player, .. } => {
                    let act = EngineSeat::new(ev, self.args.level).act(&self.session)?;
                    self.act(player, act)?;
                }
            }
        }
        Ok(())
    }

    /// The player whose side the board is drawn from: the one person, or
    /// with two, the one to act.
    fn viewer(&self) -> Player {
        let acting = match self.session.awaiting() {
            Awaiting::Roll { player, .. }
            | Awaiting::Move { player, .. }
            | Awaiting::AnswerDouble { player, .. }
            | Awaiting::AnswerResignation { player, .. } => player,
            _ => self.session.state().on_roll,
        };
        crate::play_cmd::viewer(&self.args.players, acting)
    }

    /// Whether the board shows the home board on the left, as `play`
    /// draws it.
    fn home_left(&self) -> bool {
        crate::play_cmd::home_left(&self.args, self.games_started)
    }

    /// The board to draw, seen from the side of the player on roll or
    /// doubling, and whether the viewer sees it from the other side.
    pub fn board(&self) -> (crate::input::Input, bool) {
        let input = crate::input::Input {
            position: self.session.decision_position(),
            state: self.session.decision_state(),
        };
        let flip = self.viewer() != input.state.on_roll;
        (input, flip)
    }

    /// The session's .mat record, as `play` saves it.
    pub fn record(&self) -> String {
        self.session.mat_text()
    }

    /// What the page shows: who must do what, the position while a game
    /// is in progress (an XGID from the side of the player on roll or
    /// doubling, for hints; `flip` when the viewer sees it from the other
    /// side), score, cube, the legal plays when a person is to play, and
    /// the log.
    pub fn state(&self, id: u64) -> Value {
        let s = &self.session;
        let st = s.decision_state();
        let awaiting = match s.awaiting() {
            Awaiting::MatchOver { winner } => {
                json!({"what": "nothing", "winner": winner.index()})
            }
            _ if self.ended => json!({"what": "nothing"}),
            Awaiting::BetweenGames => json!({"what": "next game"}),
            Awaiting::Roll { player, may_double } => {
                json!({"what": "roll", "player": player.index(), "may_double": may_double})
            }
            Awaiting::Move { player, dice } => json!({
                "what": "move",
                "player": player.index(),
                "dice": dice.to_string(),
                "plays": s.legal_plays().iter().map(|c| json!({
                    "move": c.mv.to_string(),
                    "steps": c.mv.steps().map(|st| [st.from, st.to]).collect::<Vec<_>>(),
                })).collect::<Vec<_>>(),
            }),
            Awaiting::AnswerDouble { player, may_beaver } => json!({
                "what": "take",
                "player": player.index(),
                "may_beaver": may_beaver,
            }),
            Awaiting::AnswerResignation { player, kind } => json!({
                "what": "resignation",
                "player": player.index(),
                "kind": format!("{kind:?}").to_lowercase(),
            }),
        };
        let owner = st.cube.owner.map(|p| p.index());
        let in_game = !self.ended
            && !matches!(
                s.awaiting(),
                Awaiting::BetweenGames | Awaiting::MatchOver { .. }
            );
        json!({
            "id": id,
            "names": s.names(),
            "seats": self.args.players.iter().map(|&o| if o == Occupant::Human { "human" } else { "engine" }).collect::<Vec<_>>(),
            "level": self.args.level.name(),
            "rules": {
                "match": st.length,
                "games": self.args.games,
                "jacoby": s.rules().jacoby,
                "beavers": s.rules().beavers,
                "auto_doubles": s.rules().automatic_doubles,
                "bg_counts_two": s.rules().backgammon_counts_two,
                "israeli": s.rules().israeli_opening,
                "crawford": !self.args.no_crawford && st.length > 0,
            },
            "game": self.games_started,
            "score": st.score,
            "crawford_game": st.crawford,
            "cube": {"value": st.cube.value(), "owner": owner},
            "viewer": self.viewer().index(),
            "board": in_game.then(|| xgid::encode(&s.decision_position(), &st, 10)),
            "flip": self.viewer() != st.on_roll,
            "home": if self.home_left() { "left" } else { "right" },
            "awaiting": awaiting,
            "ended": self.ended,
            "log": self.log,
            "commitment": self.commitment,
            "seed": if self.ended { Some(&self.seed) } else { None },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::console::Home;

    fn params(pairs: &[(&str, &str)], takes: &[&str]) -> Params {
        let pairs = pairs
            .iter()
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect();
        Params::new(pairs, takes).unwrap()
    }

    fn game_options(pairs: &[(&str, &str)]) -> Result<PlayArgs, ApiError> {
        options(&params(pairs, &OPTIONS))
    }

    #[test]
    fn options_are_read_as_play_reads_them() {
        let a = game_options(&[
            ("match", "5"),
            ("jacoby", ""),
            ("players", "human,engine"),
            ("level", "world-class"),
            ("home", "left"),
        ])
        .unwrap();
        assert_eq!(a.length, 5);
        assert!(a.jacoby && !a.beavers);
        assert_eq!(a.players, [Occupant::Human, Occupant::Engine]);
        assert_eq!(a.home, Home::Left);
        let e = game_options(&[("match", "five")]).unwrap_err();
        assert!(format!("{e:?}").contains("'--match <LENGTH>'"), "{e:?}");
        let e = game_options(&[("level", "god")]).unwrap_err();
        assert!(format!("{e:?}").contains("beginner"), "{e:?}");
        let e = game_options(&[("players", "engine,engine")]).unwrap_err();
        assert!(format!("{e:?}").contains("needs a human seat"), "{e:?}");
        let e = game_options(&[("names", "a,b,c")]).unwrap_err();
        assert!(format!("{e:?}").contains("at most two"), "{e:?}");
    }

    #[test]
    fn orders_name_what_is_wrong() {
        let takes = ["do", "move", "kind"];
        let read = |pairs: &[(&str, &str)]| Order::read(&params(pairs, &takes));
        assert_eq!(read(&[("do", "roll")]).unwrap(), Order::Roll);
        assert_eq!(
            read(&[("do", "resign"), ("kind", "gammon")]).unwrap(),
            Order::Resign(WinKind::Gammon)
        );
        assert!(format!("{:?}", read(&[("do", "fly")]).unwrap_err()).contains("bad do \\\"fly\\\""));
        assert!(format!("{:?}", read(&[("do", "play")]).unwrap_err()).contains("missing parameter"));
        assert!(format!(
            "{:?}",
            read(&[("do", "roll"), ("move", "8/5")]).unwrap_err()
        )
        .contains("takes none"));
    }
}
