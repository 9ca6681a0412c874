//! `sheshbesh play --chouette N`: a chouette of N players (people or the
//! engine in any seat) at one keyboard. The game's rules, seating, stakes,
//! cube handling and rotation are the engine's (`play::chouette`); this
//! file asks the people at the keyboard and prints what happens.
//!
//! Each game is the box (player 0, top) against the team's captain (player
//! 1). The team doubles only when every member agrees; when the box
//! doubles, each member takes or drops for itself, and the engine advises
//! each human member on its own. The dice are the session's verifiable
//! dice: first the ranking throws (two dice per throw, used in order), then
//! the games. Every game is saved, with that game's box and captain as its
//! names, in one `.mat` file; settlements are printed after each game.

use std::io::{BufRead, Write};
use std::sync::{Arc, Mutex};

use anyhow::{anyhow, Result};
use sheshbesh_engine::evaluation::evaluator::NetEvaluator;
use sheshbesh_engine::formats::files::write_atomic;
use sheshbesh_engine::formats::matfile::{self, MatchFile};
use sheshbesh_engine::play::agent::{Agent, CubeReply};
use sheshbesh_engine::play::chouette::{
    self, play_game, Chouette, Members, Seat as SeatIx, TableEvent,
};
use sheshbesh_engine::play::session::Session;
use sheshbesh_engine::play::verifiable_dice::{VerifiableDice, RANKING_THROWS};
use sheshbesh_engine::rules::dice::Roller;
use sheshbesh_engine::{Candidate, Dice, Player, Position};

use crate::board::{draw_labelled, Labels};
use crate::console::{
    ask_move, free_session_path, session_dice, Asked, Console, Occupant, PlayArgs,
};

/// The session's dice, shared by the ranking and every game.
#[derive(Clone)]
struct SharedDice(Arc<Mutex<VerifiableDice>>);

impl Roller for SharedDice {
    fn throw(&mut self) -> (u8, u8) {
        self.0.lock().expect("dice lock").throw()
    }
}

/// Runs the chouette.
pub fn run(args: &PlayArgs, n: usize) -> Result<()> {
    if n < 3 {
        anyhow::bail!("bad --chouette {n}: a chouette needs 3 or more players");
    }
    if args.games == 0 && !seats_of(args, n).contains(&Occupant::Human) {
        anyhow::bail!("bad --games: a chouette of engines only needs --games N");
    }
    if args.names.len() > n {
        anyhow::bail!(
            "bad --names \"{}\": give at most {n}, one per player",
            args.names.join(",")
        );
    }
    crate::console::check_names(&args.names)?;
    let ev = args.weights.load()?;
    let stdin = std::io::stdin();
    let mut console = Console::new(stdin.lock(), std::io::stdout());
    chouette(&ev, args, n, &mut console)
}

fn seats_of(args: &PlayArgs, n: usize) -> Vec<Occupant> {
    if args.players.len() == n {
        args.players.clone()
    } else {
        // One person and the engine in every other seat.
        (0..n)
            .map(|i| {
                if i == 0 {
                    Occupant::Human
                } else {
                    Occupant::Engine
                }
            })
            .collect()
    }
}

/// Plays chouette games until `--games` are played, the input ends or a
/// player quits.
pub fn chouette<R: BufRead, W: Write>(
    ev: &NetEvaluator,
    args: &PlayArgs,
    n: usize,
    c: &mut Console<R, W>,
) -> Result<()> {
    let seats = seats_of(args, n);
    let names: Vec<String> = (0..n)
        .map(|i| {
            args.names
                .get(i)
                .cloned()
                .unwrap_or_else(|| match seats[i] {
                    Occupant::Human => format!("Player {}", i + 1),
                    Occupant::Engine => format!("Sheshbesh {}", i + 1),
                })
        })
        .collect();
    let dice = session_dice(args.seed.as_deref())?;
    let commitment = dice.commitment();
    let seed = dice.seed_hex();
    let shared = SharedDice(Arc::new(Mutex::new(dice)));
    c.say(&format!(
        "Dice commitment (SHA-256 of the secret seed): {commitment}"
    ))?;
    let mut roller = shared.clone();
    let (mut table, throws) = Chouette::seat_by(names.clone(), &mut roller)
        .map_err(|e| anyhow!("bad --chouette: {e}"))?;
    for (s, d) in &throws {
        c.say(&format!("{} throws {d}.", names[*s]))?;
    }
    let rules = chouette::rules(
        args.jacoby,
        args.auto_doubles,
        args.bg_counts_two,
        args.israeli,
    );
    let save = args
        .save
        .clone()
        .unwrap_or_else(|| free_session_path("sheshbesh-chouette"));
    // The ranking's throws come first in the dice stream: the file says
    // how many, so `verify` checks the games' rolls from the right throw.
    let ranking_throws = shared.0.lock().expect("dice lock").used();
    let mut record = MatchFile {
        length: 0,
        tags: vec![
            ("DiceCommitment".into(), commitment.clone()),
            (RANKING_THROWS.into(), ranking_throws.to_string()),
        ],
        games: Vec::new(),
    };
    let agent = Agent::new(ev, args.level.ply());
    let mut played = 0;
    while args.games == 0 || played < args.games {
        played += 1;
        let box_seat = table.box_seat();
        let captain = table.captain();
        c.say(&format!(
            "\n=== Chouette game {played}: {} in the box, {} captains ({}) ===",
            names[box_seat],
            names[captain],
            table
                .team()
                .iter()
                .map(|&s| names[s].as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ))?;
        let mut session = Session::new(
            rules,
            0,
            [names[box_seat].clone(), names[captain].clone()],
            Box::new(shared.clone()),
        );
        if played == 1 {
            // The session's rule tags (Jacoby, beavers, Crawford, ...), so
            // gnubg and `annotate` read the games under the right rules.
            let rule_tags = session.record().tags.iter();
            record
                .tags
                .extend(rule_tags.filter(|(k, _)| !k.starts_with("Player")).cloned());
        }
        let o = session.start_game()?;
        let mut game = table.new_game(o.cube.value());
        c.say(&format!(
            "{} starts with {}.",
            session.names()[o.starter.index()],
            o.dice
        ))?;
        let engine: Vec<bool> = seats.iter().map(|&s| s == Occupant::Engine).collect();
        let mut people = People {
            c: &mut *c,
            ev,
            names: &names,
            failed: None,
        };
        let finished = play_game(
            &agent,
            &engine,
            box_seat,
            &mut session,
            &mut game,
            &mut people,
        );
        if let Some(e) = people.failed {
            return Err(e);
        }
        let finished = finished?;
        let mut g = session.record().games[0].clone();
        g.number = played;
        record.games.push(g);
        write_atomic(&save, matfile::write(&record).as_bytes())?;
        if !finished {
            c.say("Chouette interrupted; this game is not settled.")?;
            break;
        }
        let s = table.settle(&game)?;
        c.say(&format!(
            "The team {} game {played}.",
            if s.team_won { "wins" } else { "loses" }
        ))?;
        c.say(&settlement_table(&names, &s.amounts, table.totals()))?;
    }
    c.say(&format!("Saved to {}.", save.display()))?;
    c.say(&format!("Dice seed: {seed}"))?;
    Ok(())
}

/// The table printed after each game: this game and the session per player.
pub fn settlement_table(names: &[String], game: &[i64], totals: &[i64]) -> String {
    let w = names.iter().map(|n| n.len()).max().unwrap_or(4).max(6);
    let mut out = format!("  {:<w$}  {:>6}  {:>7}\n", "player", "game", "session");
    for ((n, g), t) in names.iter().zip(game).zip(totals) {
        out.push_str(&format!("  {n:<w$}  {g:>+6}  {t:>+7}\n"));
    }
    out.trim_end().to_string()
}

fn draw(session: &Session, viewer: Player) -> String {
    let pos = session.position_for(viewer);
    draw_labelled(
        &pos,
        session.state(),
        viewer,
        false,
        &Labels {
            x: session.names()[viewer.index()].clone(),
            o: session.names()[viewer.other().index()].clone(),
            status: String::new(),
            o_numbers: false,
        },
    )
}

fn ask_yes<R: BufRead, W: Write>(c: &mut Console<R, W>, q: &str) -> Result<Option<bool>> {
    loop {
        let Some(a) = c.ask(q)? else { return Ok(None) };
        match a.as_str() {
            "y" | "yes" | "t" | "take" | "d" | "double" => return Ok(Some(true)),
            "n" | "no" | "p" | "pass" | "drop" | "r" | "roll" => return Ok(Some(false)),
            "quit" | "q" => return Ok(None),
            _ => c.say("Answer yes or no.")?,
        }
    }
}

/// The people at the keyboard as the chouette's [`Members`]: each question
/// is asked on the console, each event printed. A console error ends the
/// game as a quit and is kept for the caller.
struct People<'a, R: BufRead, W: Write> {
    c: &'a mut Console<R, W>,
    ev: &'a NetEvaluator,
    names: &'a [String],
    failed: Option<anyhow::Error>,
}

impl<R: BufRead, W: Write> People<'_, R, W> {
    fn keep<T>(&mut self, r: Result<Option<T>>) -> Option<T> {
        r.unwrap_or_else(|e| {
            self.failed = Some(e);
            None
        })
    }

    fn say(&mut self, text: &str) {
        if let Err(e) = self.c.say(text) {
            self.failed.get_or_insert(e);
        }
    }
}

impl<R: BufRead, W: Write> Members for People<'_, R, W> {
    fn doubles(&mut self, seat: SeatIx, player: Player, session: &Session) -> Option<bool> {
        let q = format!("{}: double? (yes/no)", self.names[seat]);
        let r = self
            .c
            .say(&draw(session, player))
            .and_then(|_| ask_yes(self.c, &q));
        self.keep(r)
    }

    fn takes(&mut self, seat: SeatIx, advice: Option<CubeReply>) -> Option<bool> {
        if let Some(a) = advice {
            let word = if a == CubeReply::Drop { "drop" } else { "take" };
            self.say(&format!("  Sheshbesh advises {}: {word}", self.names[seat]));
        }
        let r = ask_yes(self.c, &format!("{}: take? (yes/no)", self.names[seat]));
        self.keep(r)
    }

    fn agrees(&mut self, seat: SeatIx) -> Option<bool> {
        let r = ask_yes(
            self.c,
            &format!("{}: agree to double the box?", self.names[seat]),
        );
        self.keep(r)
    }

    fn plays(
        &mut self,
        seat: SeatIx,
        player: Player,
        session: &Session,
        dice: Dice,
    ) -> Option<Candidate> {
        let pos = *session.position();
        let names0 = session.names().clone();
        let st = *session.state();
        let board = |after: &Position, status: &str| {
            draw_labelled(
                after,
                &st,
                player,
                false,
                &Labels {
                    x: names0[player.index()].clone(),
                    o: names0[player.other().index()].clone(),
                    status: status.to_string(),
                    o_numbers: false,
                },
            )
        };
        loop {
            self.say(&draw(session, player));
            let asked = ask_move(
                self.c,
                self.ev,
                0,
                &board,
                (&pos, &st),
                dice,
                &self.names[seat],
            );
            match self.keep(asked.map(Some))? {
                Asked::Played(m) => return Some(m),
                Asked::Eof => return None,
                Asked::Command(cmd) if cmd == "quit" || cmd == "q" => return None,
                Asked::Command(cmd) => self.say(&format!(
                    "Unknown command \"{cmd}\" (in a chouette: a move, hint, =N, quit)."
                )),
            }
        }
    }

    fn event(&mut self, event: TableEvent) {
        let did = |yes: bool, a: &str, b: &str| if yes { a } else { b }.to_string();
        let line = match event {
            TableEvent::BoxDoubles { seat } => format!("{} (the box) doubles.", self.names[seat]),
            TableEvent::MemberAnswers { seat, take } => {
                format!("  {} {}.", self.names[seat], did(take, "takes", "drops"))
            }
            TableEvent::MemberAgrees { seat, agree } => {
                format!(
                    "  {} {}.",
                    self.names[seat],
                    did(agree, "agrees", "refuses")
                )
            }
            TableEvent::TeamDoubles => "The team doubles the box.".to_string(),
            TableEvent::BoxAnswers { seat, take } => {
                format!("  {} {}.", self.names[seat], did(take, "takes", "drops"))
            }
            TableEvent::Played { seat, dice, play } => {
                format!("{} rolled {dice} and plays {}", self.names[seat], play.mv)
            }
        };
        self.say(&line);
    }
}
