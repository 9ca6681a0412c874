//! `sheshbesh play --chouette N`: a chouette of N players (people or the
//! engine in any seat) at one keyboard, by the rules of `shared/RULES.md`
//! and the seating, stakes and rotation of `engine/src/chouette.rs`.
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
use sheshbesh_engine::agent::{Agent, CubeReply};
use sheshbesh_engine::chouette::{Chouette, ChouetteGame, Seat as SeatIx};
use sheshbesh_engine::evaluator::NetEvaluator;
use sheshbesh_engine::matfile::{self, MatchFile};
use sheshbesh_engine::rules::Rules;
use sheshbesh_engine::session::{Phase, Roller, Session};
use sheshbesh_engine::verifiable_dice::VerifiableDice;
use sheshbesh_engine::{Player, Position};
use sheshbesh_trainer::checkpoint::write_atomic;

use crate::board::{draw_labelled, Labels};
use crate::play::{ask_move, free_session_path, session_dice, Asked, Console, PlayArgs, Seat};

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
    if args.games == 0 && !seats_of(args, n).contains(&Seat::Human) {
        anyhow::bail!("bad --games: a chouette of engines only needs --games N");
    }
    let ev = crate::nets::load(args.weights.as_deref())?;
    let stdin = std::io::stdin();
    let mut console = Console::new(stdin.lock(), std::io::stdout());
    chouette(&ev, args, n, &mut console)
}

fn seats_of(args: &PlayArgs, n: usize) -> Vec<Seat> {
    if args.players.len() == n {
        args.players.clone()
    } else {
        // One person and the engine in every other seat.
        (0..n)
            .map(|i| if i == 0 { Seat::Human } else { Seat::Engine })
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
                    Seat::Human => format!("Player {}", i + 1),
                    Seat::Engine => format!("Sheshbesh {}", i + 1),
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
    // Ranking: one die each, two dice per throw of the stream.
    let mut pending: Vec<u8> = Vec::new();
    let mut roller = shared.clone();
    let (mut table, throws) = Chouette::seat(names.clone(), || {
        if pending.is_empty() {
            let (a, b) = roller.throw();
            pending = vec![b, a];
        }
        pending.pop().expect("two dice")
    })
    .map_err(|e| anyhow!("bad --chouette: {e}"))?;
    for (s, d) in &throws {
        c.say(&format!("{} throws {d}.", names[*s]))?;
    }
    let rules = Rules {
        jacoby: args.jacoby,
        beavers: false,
        automatic_doubles: args.auto_doubles,
        backgammon_counts_two: args.bg_counts_two,
        israeli_opening: args.israeli,
        crawford: false,
    };
    let save = args
        .save
        .clone()
        .unwrap_or_else(|| free_session_path("sheshbesh-chouette"));
    let mut record = MatchFile {
        length: 0,
        tags: vec![("DiceCommitment".into(), commitment.clone())],
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
        let o = session.start_game()?;
        let mut game = table.new_game(o.cube.value());
        c.say(&format!(
            "{} starts with {}.",
            session.names()[o.starter.index()],
            o.dice
        ))?;
        let table_now = Table {
            agent: &agent,
            ev,
            seats: &seats,
            names: &names,
            box_ix: box_seat,
        };
        let outcome = play_game(&table_now, &mut session, &mut game, c)?;
        let mut g = session.record().games[0].clone();
        g.number = played;
        record.games.push(g);
        write_atomic(&save, matfile::write(&record).as_bytes())?;
        if outcome.is_none() {
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

/// A yes/no decision of a seat: the engine's answer, or the person's.
fn decide<R: BufRead, W: Write>(
    c: &mut Console<R, W>,
    seat: Seat,
    engine: bool,
    question: &str,
) -> Result<Option<bool>> {
    match seat {
        Seat::Engine => Ok(Some(engine)),
        Seat::Human => ask_yes(c, question),
    }
}

/// Plays one game; `None` when the players quit.
/// Who sits where for one game.
struct Table<'a> {
    agent: &'a Agent<'a, NetEvaluator>,
    ev: &'a NetEvaluator,
    seats: &'a [Seat],
    names: &'a [String],
    box_ix: SeatIx,
}

fn play_game<R: BufRead, W: Write>(
    t: &Table,
    session: &mut Session,
    game: &mut ChouetteGame,
    c: &mut Console<R, W>,
) -> Result<Option<()>> {
    let (agent, ev, seats, names, box_ix) = (t.agent, t.ev, t.seats, t.names, t.box_ix);
    loop {
        if game.ended.is_some() {
            return Ok(Some(()));
        }
        // The seat that moves for each side now.
        let team_ix: SeatIx = game.acting_captain().expect("someone plays");
        let seat_of = |p: Player| if p == Player::Zero { box_ix } else { team_ix };
        match session.phase() {
            Phase::Roll { player, may_double } => {
                let pos = *session.position();
                let st = *session.state();
                let wants = if !may_double {
                    false
                } else {
                    let seat = seats[seat_of(player)];
                    if seat == Seat::Human {
                        c.say(&draw(session, player))?;
                    }
                    let engine = seat == Seat::Engine && agent.should_double(&pos, &st)?;
                    let q = format!("{}: double? (yes/no)", names[seat_of(player)]);
                    let Some(b) = decide(c, seat, engine, &q)? else {
                        return Ok(None);
                    };
                    b
                };
                if wants && player == Player::Zero {
                    // The box doubles: every member answers for itself.
                    c.say(&format!("{} (the box) doubles.", names[box_ix]))?;
                    session.double()?;
                    let dpos = session.decision_position();
                    let dst = session.decision_state();
                    let advice = agent.answer_double(&dpos, &dst)?;
                    let mut takes = Vec::new();
                    for m in game.playing() {
                        let take = if seats[m] == Seat::Engine {
                            advice != CubeReply::Drop
                        } else {
                            c.say(&format!(
                                "  Sheshbesh advises {}: {}",
                                names[m],
                                if advice == CubeReply::Drop {
                                    "drop"
                                } else {
                                    "take"
                                }
                            ))?;
                            match ask_yes(c, &format!("{}: take? (yes/no)", names[m]))? {
                                None => return Ok(None),
                                Some(b) => b,
                            }
                        };
                        c.say(&format!(
                            "  {} {}.",
                            names[m],
                            if take { "takes" } else { "drops" }
                        ))?;
                        takes.push(take);
                    }
                    game.box_doubles(&takes)?;
                    if game.ended.is_some() {
                        return Ok(Some(()));
                    }
                    session.take()?;
                    continue;
                }
                if wants && player == Player::One {
                    // The team doubles only unanimously.
                    let mut all = true;
                    for m in game.playing() {
                        if m == team_ix {
                            continue;
                        }
                        let q = format!("{}: agree to double the box?", names[m]);
                        let engine = agent.should_double(&pos, &st)?;
                        let Some(agree) = decide(c, seats[m], engine, &q)? else {
                            return Ok(None);
                        };
                        c.say(&format!(
                            "  {} {}.",
                            names[m],
                            if agree { "agrees" } else { "refuses" }
                        ))?;
                        all &= agree;
                    }
                    if all {
                        c.say("The team doubles the box.")?;
                        session.double()?;
                        let r = agent.answer_double(
                            &session.decision_position(),
                            &session.decision_state(),
                        )?;
                        let q = format!("{}: take? (yes/no)", names[box_ix]);
                        let Some(box_takes) = decide(c, seats[box_ix], r != CubeReply::Drop, &q)?
                        else {
                            return Ok(None);
                        };
                        c.say(&format!(
                            "  {} {}.",
                            names[box_ix],
                            if box_takes { "takes" } else { "drops" }
                        ))?;
                        game.team_doubles(box_takes)?;
                        if !box_takes {
                            return Ok(Some(()));
                        }
                        session.take()?;
                        continue;
                    }
                }
                session.roll()?;
            }
            Phase::Move { player, dice } => {
                let who = seat_of(player);
                let legal = session.legal_plays();
                let chosen = if legal.len() == 1 || seats[who] == Seat::Engine {
                    let mut list = sheshbesh_engine::MoveList::new();
                    agent.best_play(session.position(), dice, &mut list).1
                } else {
                    c.say(&draw(session, player))?;
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
                            },
                        )
                    };
                    match ask_move(c, ev, 0, &board, &pos, dice, &names[who])? {
                        Asked::Played(m) => m,
                        Asked::Eof => return Ok(None),
                        Asked::Command(cmd) if cmd == "quit" || cmd == "q" => return Ok(None),
                        Asked::Command(cmd) => {
                            c.say(&format!("Unknown command \"{cmd}\" (in a chouette: a move, hint, =N, quit)."))?;
                            continue;
                        }
                    }
                };
                c.say(&format!(
                    "{} rolled {dice} and plays {}",
                    names[who], chosen.mv
                ))?;
                if let Some(r) = session.play(&chosen)? {
                    // The session's cube always equals the game's stake.
                    game.finish(
                        r.winner == Player::One,
                        (r.points / game.stake.max(1)).max(1),
                    );
                    return Ok(Some(()));
                }
            }
            other => {
                return Err(anyhow!("unexpected phase in a chouette: {other:?}"));
            }
        }
    }
}
