//! `sheshbesh play`: a game in the terminal against the engine, or between
//! two people at one keyboard, under every rule option, with verifiable
//! dice. The session is saved as a `.mat` file after every action, so an
//! interrupted session is never lost; `annotate` reads it back.

use std::io::{BufRead, Write};
use std::path::PathBuf;

use anyhow::{bail, Result};
use sheshbesh_engine::cube::decision::cube_decision;
use sheshbesh_engine::evaluation::evaluator::NetEvaluator;
use sheshbesh_engine::formats::files::write_atomic;
use sheshbesh_engine::play::agent::{Act, Agent, CubeReply};
use sheshbesh_engine::play::seat::EngineSeat;
use sheshbesh_engine::play::session::{Awaiting, Session};
use sheshbesh_engine::rules::scoring::{GameResult, Rules, WinKind};
use sheshbesh_engine::{Candidate, Player, Position};

use crate::board::{draw_labelled, Labels};
use crate::console::{
    ask_move, free_session_path, session_dice, Asked, Console, Home, Occupant, PlayArgs,
};
use crate::lang::Lang;

/// Runs `sheshbesh play`.
pub fn run(args: PlayArgs) -> Result<()> {
    check(&args)?;
    if args.length == 0 && args.games == 0 && !args.players.contains(&Occupant::Human) {
        bail!("bad --games: a money session between engines needs --games N (or --match N)");
    }
    let ev = args.weights.load()?;
    let stdin = std::io::stdin();
    let mut console = Console::new(stdin.lock(), std::io::stdout());
    play(&ev, &args, &mut console)
}

/// Refuses seats and names a session cannot have.
pub fn check(args: &PlayArgs) -> Result<()> {
    if args.players.len() != 2 {
        bail!("bad --players: give two seats, as engine,human");
    }
    if args.names.len() > 2 {
        bail!(
            "bad --names \"{}\": give at most two, player 0's and player 1's",
            args.names.join(",")
        );
    }
    crate::console::check_names(&args.names)
}

/// A new session as `args` set it: its rules, names and verifiable dice,
/// the dice's commitment tagged in its record.
pub struct Dealt {
    pub session: Session,
    /// The SHA-256 commitment of the secret seed, shown before play.
    pub commitment: String,
    /// The secret seed, shown after play.
    pub seed: String,
}

/// Sets up the session `args` ask for (checked by [`check`]).
pub fn deal(args: &PlayArgs) -> Result<Dealt> {
    let dice = session_dice(args.seed.as_deref())?;
    let commitment = dice.commitment();
    let seed = dice.seed_hex();
    let rules = Rules {
        jacoby: args.jacoby,
        beavers: args.beavers,
        automatic_doubles: args.auto_doubles,
        backgammon_counts_two: args.bg_counts_two,
        israeli_opening: args.israeli,
        crawford: !args.no_crawford,
    };
    let default_names = |p: usize| match args.players.get(p) {
        Some(Occupant::Engine) => "Sheshbesh".to_string(),
        _ if p == 0 => "O".to_string(),
        _ => "You".to_string(),
    };
    let mut names = [
        args.names
            .first()
            .cloned()
            .unwrap_or_else(|| default_names(0)),
        args.names
            .get(1)
            .cloned()
            .unwrap_or_else(|| default_names(1)),
    ];
    if names[0] == names[1] {
        names[0].push_str(" (O)");
    }
    let mut session = Session::new(rules, args.length, names, Box::new(dice));
    session.tag("DiceCommitment", &commitment);
    Ok(Dealt {
        session,
        commitment,
        seed,
    })
}

struct Game<'a> {
    ev: &'a NetEvaluator,
    args: &'a PlayArgs,
    session: Session,
    save: PathBuf,
    lang: Lang,
    games_started: u32,
}

/// `name` and `verb` (written for "he"/"she") agreeing: "You throw",
/// "You are doubled", "Sheshbesh throws".
pub fn says(name: &str, verb: &str) -> String {
    // Only the default human name is a pronoun.
    if name != "You" {
        return format!("{name} {verb}");
    }
    let (first, rest) = verb.split_once(' ').unwrap_or((verb, ""));
    let base = match first {
        "is" => "are".to_string(),
        "has" => "have".to_string(),
        "passes" => "pass".to_string(),
        w => w.strip_suffix('s').unwrap_or(w).to_string(),
    };
    if rest.is_empty() {
        format!("{name} {base}")
    } else {
        format!("{name} {base} {rest}")
    }
}

fn name_of(s: &Session, p: Player) -> &str {
    &s.names()[p.index()]
}

impl Game<'_> {
    fn seat(&self, p: Player) -> Occupant {
        self.args.players[p.index()]
    }

    fn agent(&self) -> Agent<'_, NetEvaluator> {
        Agent::new(self.ev, self.args.level.ply())
    }

    fn engine(&self) -> EngineSeat<'_, NetEvaluator> {
        EngineSeat::new(self.ev, self.args.level)
    }

    fn save(&self) -> Result<()> {
        Ok(write_atomic(
            &self.save,
            self.session.mat_text().as_bytes(),
        )?)
    }

    fn viewer(&self, acting: Player) -> Player {
        viewer(&self.args.players, acting)
    }

    fn home_left(&self) -> bool {
        home_left(self.args, self.games_started)
    }

    fn board(&self, pos_for_viewer: &Position, viewer: Player, status: &str) -> String {
        let s = &self.session;
        draw_labelled(
            pos_for_viewer,
            s.state(),
            viewer,
            self.home_left(),
            &Labels {
                x: name_of(s, viewer).to_string(),
                o: name_of(s, viewer.other()).to_string(),
                status: status.to_string(),
                o_numbers: false,
            },
        )
    }

    fn show<R: BufRead, W: Write>(
        &self,
        c: &mut Console<R, W>,
        acting: Player,
        status: &str,
    ) -> Result<()> {
        let v = self.viewer(acting);
        c.say(&self.board(&self.session.position_for(v), v, status))
    }

    fn announce_result<R: BufRead, W: Write>(
        &self,
        c: &mut Console<R, W>,
        r: &GameResult,
    ) -> Result<()> {
        let [won, score] = result_words(&self.session, self.lang, r);
        c.say(&won)?;
        c.say(&score)
    }
}

/// Whose side the board is drawn from, given the seats: the one human,
/// else the player due to act (`acting`).
pub fn viewer(seats: &[Occupant], acting: Player) -> Player {
    match (seats[0], seats[1]) {
        (Occupant::Human, Occupant::Engine) => Player::Zero,
        (Occupant::Engine, Occupant::Human) => Player::One,
        (Occupant::Engine, Occupant::Engine) => Player::One,
        _ => acting,
    }
}

/// Whether the home board is drawn on the left in game `games_started`:
/// `--home`, turned round every other game with `--swap-sides`.
pub fn home_left(args: &PlayArgs, games_started: u32) -> bool {
    let swap = args.swap_sides && games_started.is_multiple_of(2) && games_started > 0;
    (args.home == Home::Left) != swap
}

/// A finished game told: who won what, then the score.
pub fn result_words(s: &Session, lang: Lang, r: &GameResult) -> [String; 2] {
    let pts = if r.points == 1 { "point" } else { "points" };
    let won = format!(
        "{} a {} and {} {pts}.",
        says(name_of(s, r.winner), "wins"),
        lang.win(r.kind),
        r.points
    );
    let sc = s.state().score;
    let of = if s.state().length > 0 {
        format!(" (match to {})", s.state().length)
    } else {
        String::new()
    };
    let score = format!(
        "Score: {} {}, {} {}{of}",
        s.names()[0],
        sc[0],
        s.names()[1],
        sc[1]
    );
    [won, score]
}

/// Plays the session on `console` until the match ends, the games run out,
/// the input ends or the player quits. The record is saved throughout.
pub fn play<R: BufRead, W: Write>(
    ev: &NetEvaluator,
    args: &PlayArgs,
    console: &mut Console<R, W>,
) -> Result<()> {
    let Dealt {
        session,
        commitment,
        seed,
    } = deal(args)?;
    let save = args
        .save
        .clone()
        .unwrap_or_else(|| free_session_path("sheshbesh-session"));
    let mut g = Game {
        ev,
        args,
        session,
        save,
        lang: args.lang,
        games_started: 0,
    };
    console.say(&format!(
        "Dice commitment (SHA-256 of the secret seed): {commitment}"
    ))?;
    console.say(&format!(
        "Saving to {} after every move. Type 'help' for commands.",
        g.save.display()
    ))?;
    let finished = run_session(&mut g, console)?;
    g.save()?;
    console.say(&format!(
        "{} Saved to {}.",
        if finished {
            "Session over."
        } else {
            "Session interrupted."
        },
        g.save.display()
    ))?;
    console.say(&format!("Dice seed: {seed}"))?;
    console.say(&format!(
        "Check every roll: sheshbesh verify {seed} {commitment} {}",
        g.save.display()
    ))?;
    Ok(())
}

const HELP: &str = "Commands: a move such as 8/5 6/5 (bar, off, 25 and 0 also work); \
'hint' (ranked plays or the cube decision); '=N' plays hint N; 'roll' or 'r'; \
'double' or 'd' (before rolling); 'undo' (takes back a play before you \
confirm it); 'take', 'drop', 'beaver'; 'accept', 'reject'; \
'resign' (single), 'resign g', 'resign b'; 'board'; 'quit' (saves the session).";

/// Returns true when the match or the requested games are over, false when
/// the player quit or the input ended.
fn run_session<R: BufRead, W: Write>(g: &mut Game, c: &mut Console<R, W>) -> Result<bool> {
    loop {
        g.save()?;
        match g.session.awaiting() {
            Awaiting::MatchOver { winner } => {
                c.say(&format!(
                    "{}.",
                    says(name_of(&g.session, winner), "wins the match")
                ))?;
                return Ok(true);
            }
            Awaiting::BetweenGames => {
                if g.args.length == 0 && g.args.games > 0 && g.games_started >= g.args.games {
                    return Ok(true);
                }
                g.games_started += 1;
                let o = g.session.start_game()?;
                c.say(&format!("\n=== Game {} ===", g.games_started))?;
                let s = &g.session;
                for (a, b) in &o.throws {
                    c.say(&format!(
                        "{} {a}, {} {b}.",
                        says(&s.names()[0], "throws"),
                        says(&s.names()[1], "throws")
                    ))?;
                }
                if o.cube.value() > 1 {
                    c.say(&format!(
                        "Automatic doubles: the cube is at {}.",
                        o.cube.value()
                    ))?;
                }
                c.say(&format!(
                    "{} with {}.",
                    says(name_of(s, o.starter), "starts"),
                    g.lang.roll(o.dice)
                ))?;
            }
            Awaiting::Roll { player, may_double } => {
                if g.seat(player) == Occupant::Engine {
                    match g.engine().act(&g.session)? {
                        Act::Resign(kind) => {
                            g.session.resign(player, kind)?;
                            c.say(&format!(
                                "{} a {}.",
                                says(name_of(&g.session, player), "offers to resign"),
                                g.lang.win(kind)
                            ))?;
                        }
                        Act::Double => double(g, c, player)?,
                        _ => {
                            g.session.roll()?;
                        }
                    }
                    continue;
                }
                if !may_double {
                    g.session.roll()?;
                    continue;
                }
                g.show(
                    c,
                    player,
                    &format!("{} to roll", name_of(&g.session, player)),
                )?;
                let Some(cmd) =
                    c.ask(&format!("{}: roll or double", name_of(&g.session, player)))?
                else {
                    return Ok(false);
                };
                match cmd.as_str() {
                    "r" | "roll" | "" => {
                        g.session.roll()?;
                    }
                    "d" | "double" => double(g, c, player)?,
                    "hint" => cube_hint(g, c)?,
                    other => {
                        if !common(g, c, player, other)? {
                            return Ok(false);
                        }
                    }
                }
            }
            Awaiting::Move { player, dice } => {
                let legal = g.session.legal_plays();
                let name = name_of(&g.session, player).to_string();
                if legal.len() == 1 && legal[0].mv.is_empty() {
                    c.say(&format!(
                        "{name} rolled {} and cannot move.",
                        g.lang.roll(dice)
                    ))?;
                    let pass = legal[0];
                    finish_play(g, c, &pass)?;
                    continue;
                }
                if g.seat(player) == Occupant::Engine {
                    let Act::Play(chosen) = g.engine().act(&g.session)? else {
                        bail!("the engine did not play its roll");
                    };
                    let hit = if chosen.mv.hits() {
                        format!(" — {}!", g.lang.hit())
                    } else {
                        String::new()
                    };
                    c.say(&format!(
                        "{name} rolled {} and plays {}{hit}",
                        g.lang.roll(dice),
                        chosen.mv
                    ))?;
                    finish_play(g, c, &chosen)?;
                    continue;
                }
                g.show(c, player, &format!("{name} rolled {}", g.lang.roll(dice)))?;
                let v = g.viewer(player);
                let hint_ply = g.args.level.ply().min(1);
                let pos = *g.session.position();
                let draw = |after: &Position, status: &str| {
                    let seen = if v == player { *after } else { after.swapped() };
                    g.board(&seen, v, status)
                };
                match ask_move(
                    c,
                    g.ev,
                    hint_ply,
                    &draw,
                    (&pos, g.session.state()),
                    dice,
                    &name,
                )? {
                    Asked::Played(chosen) => finish_play(g, c, &chosen)?,
                    Asked::Command(cmd) => {
                        if !common(g, c, player, &cmd)? {
                            return Ok(false);
                        }
                    }
                    Asked::Eof => return Ok(false),
                }
            }
            Awaiting::AnswerDouble { player, may_beaver } => {
                let name = name_of(&g.session, player).to_string();
                if g.seat(player) == Occupant::Engine {
                    let Act::Reply(reply) = g.engine().act(&g.session)? else {
                        bail!("the engine did not answer the double");
                    };
                    answer(g, c, player, reply)?;
                    continue;
                }
                g.show(c, player, &says(&name, "is doubled"))?;
                let opts = if may_beaver {
                    "take, drop or beaver"
                } else {
                    "take or drop"
                };
                let Some(cmd) = c.ask(&format!("{name}: {opts}"))? else {
                    return Ok(false);
                };
                match cmd.as_str() {
                    "t" | "take" => answer(g, c, player, CubeReply::Take)?,
                    "p" | "pass" | "drop" => answer(g, c, player, CubeReply::Drop)?,
                    "b" | "beaver" if may_beaver => answer(g, c, player, CubeReply::Beaver)?,
                    "hint" => {
                        let pos = g.session.decision_position();
                        let r = g.agent().answer_double(&pos, &g.session.decision_state())?;
                        c.say(&format!("Hint: {r:?}").to_lowercase())?;
                    }
                    other => {
                        if !common(g, c, player, other)? {
                            return Ok(false);
                        }
                    }
                }
            }
            Awaiting::AnswerResignation { player, kind } => {
                let name = name_of(&g.session, player).to_string();
                let accept = if g.seat(player) == Occupant::Engine {
                    g.engine().act(&g.session)? == Act::Accept
                } else {
                    let Some(cmd) = c.ask(&format!(
                        "{name}: accept or reject the resignation of a {}",
                        g.lang.win(kind)
                    ))?
                    else {
                        return Ok(false);
                    };
                    match cmd.as_str() {
                        "a" | "accept" | "y" | "yes" => true,
                        "r" | "reject" | "n" | "no" => false,
                        other => {
                            if !common(g, c, player, other)? {
                                return Ok(false);
                            }
                            continue;
                        }
                    }
                };
                if accept {
                    c.say(&format!("{}.", says(&name, "accepts")))?;
                    let r = g.session.accept()?;
                    g.announce_result(c, &r)?;
                } else {
                    c.say(&format!("{}; play goes on.", says(&name, "rejects")))?;
                    g.session.reject()?;
                }
            }
        }
    }
}

fn finish_play<R: BufRead, W: Write>(
    g: &mut Game,
    c: &mut Console<R, W>,
    chosen: &Candidate,
) -> Result<()> {
    if let Some(r) = g.session.play(chosen)? {
        g.announce_result(c, &r)?;
    }
    Ok(())
}

fn answer<R: BufRead, W: Write>(
    g: &mut Game,
    c: &mut Console<R, W>,
    player: Player,
    reply: CubeReply,
) -> Result<()> {
    let name = name_of(&g.session, player).to_string();
    match reply {
        CubeReply::Take => {
            g.session.take()?;
            c.say(&format!("{}.", says(&name, &g.lang.take())))?;
        }
        CubeReply::Beaver => {
            g.session.beaver()?;
            c.say(&format!("{}.", says(&name, "beavers")))?;
        }
        CubeReply::Drop => {
            c.say(&format!("{}.", says(&name, &g.lang.drop())))?;
            let r = g.session.drop_double()?;
            g.announce_result(c, &r)?;
        }
    }
    Ok(())
}

/// Commands open at every prompt. Returns false to stop the session.
fn common<R: BufRead, W: Write>(
    g: &mut Game,
    c: &mut Console<R, W>,
    player: Player,
    cmd: &str,
) -> Result<bool> {
    let mut words = cmd.split_whitespace();
    match words.next().unwrap_or("") {
        "quit" | "q" | "exit" => return Ok(false),
        "help" | "?" => c.say(HELP)?,
        "double" | "d" => c.say("You can double only before rolling.")?,
        "board" => g.show(c, player, "")?,
        "resign" => {
            let kind = match words.next() {
                None | Some("s") | Some("single") | Some("n") => WinKind::Single,
                Some("g") | Some("gammon") => WinKind::Gammon,
                Some("b") | Some("backgammon") => WinKind::Backgammon,
                Some(w) => {
                    c.say(&format!(
                        "resign what? \"{w}\": single, g(ammon) or b(ackgammon)"
                    ))?;
                    return Ok(true);
                }
            };
            match g.session.resign(player, kind) {
                Ok(()) => c.say(&format!(
                    "{} a {}.",
                    says(name_of(&g.session, player), "offers to resign"),
                    g.lang.win(kind)
                ))?,
                Err(e) => c.say(&e.to_string())?,
            }
        }
        other => c.say(&format!("Unknown command \"{other}\". {HELP}"))?,
    }
    Ok(true)
}

/// `player` doubles, and the table is told.
fn double<R: BufRead, W: Write>(g: &mut Game, c: &mut Console<R, W>, player: Player) -> Result<()> {
    g.session.double()?;
    c.say(&format!(
        "{} (cube to {}).",
        says(name_of(&g.session, player), &g.lang.double()),
        g.session.state().cube.value() * 2
    ))
}

fn cube_hint<R: BufRead, W: Write>(g: &Game, c: &mut Console<R, W>) -> Result<()> {
    let (p, d) = cube_decision(
        g.ev,
        g.session.position(),
        g.session.state(),
        g.args.level.ply().min(1),
    )?;
    let redouble = g.session.state().cube.owner.is_some();
    c.say(&format!(
        "  {}: no double {:+.3}, double/take {:+.3}, double/pass {:+.3} (win {:.1}%)",
        d.action.words(redouble),
        d.no_double,
        d.double_take,
        d.double_pass,
        100.0 * p.win()
    ))
}

#[cfg(test)]
mod tests {
    use super::says;

    #[test]
    fn you_and_the_verb_agree() {
        assert_eq!(says("You", "throws"), "You throw");
        assert_eq!(says("You", "is doubled"), "You are doubled");
        assert_eq!(says("You", "offers to resign"), "You offer to resign");
        assert_eq!(says("You", "passes"), "You pass");
        assert_eq!(says("Sheshbesh", "throws"), "Sheshbesh throws");
    }
}
