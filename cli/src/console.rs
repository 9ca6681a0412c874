//! What `play` and the chouette share at the keyboard: their options,
//! the console, who sits in each seat, and asking a person for a play.

use std::io::{BufRead, Write};
use std::path::PathBuf;

use anyhow::Result;
use sheshbesh_engine::cube::decision::{rank_plays, PlayEquity};
use sheshbesh_engine::evaluation::evaluator::NetEvaluator;
use sheshbesh_engine::formats::notation::parse_move;
use sheshbesh_engine::play::seat::Level;
use sheshbesh_engine::play::verifiable_dice::VerifiableDice;
use sheshbesh_engine::{Candidate, Dice, MatchState, Position};

use crate::lang::Lang;

/// Who sits in a seat.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Occupant {
    /// A person at the keyboard.
    Human,
    /// Sheshbesh.
    Engine,
}

/// Where the bottom player's home board is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Home {
    /// Bottom right (the default).
    Right,
    /// Bottom left.
    Left,
}

/// Options of `sheshbesh play`.
#[derive(clap::Args, Debug)]
pub struct PlayArgs {
    /// Match length in points; 0 plays a money session.
    #[arg(long = "match", default_value_t = 0)]
    pub length: u32,
    /// Money sessions: stop after this many games (0: until you quit).
    #[arg(long, default_value_t = 0)]
    pub games: u32,
    /// Jacoby rule (money): gammons count only once the cube is turned.
    #[arg(long)]
    pub jacoby: bool,
    /// Beavers (money): the taker may redouble at once, keeping the cube.
    #[arg(long)]
    pub beavers: bool,
    /// Automatic doubles (money): ties in the opening roll double the cube,
    /// at most this many times a game.
    #[arg(long, default_value_t = 0)]
    pub auto_doubles: u8,
    /// A backgammon counts 2, like a gammon.
    #[arg(long)]
    pub bg_counts_two: bool,
    /// Israeli opening: the starter throws both dice afresh for the first
    /// roll (a double is possible).
    #[arg(long)]
    pub israeli: bool,
    /// Play matches without the Crawford rule.
    #[arg(long)]
    pub no_crawford: bool,
    /// Who plays: player 0 (top, O) and player 1 (bottom, X), each human or
    /// engine.
    #[arg(long, value_delimiter = ',', default_value = "engine,human")]
    pub players: Vec<Occupant>,
    /// Names of player 0 and player 1.
    #[arg(long, value_delimiter = ',')]
    pub names: Vec<String>,
    /// Engine strength.
    #[arg(long, default_value = "expert", value_parser = parse_level)]
    pub level: Level,
    /// Where your home board is drawn.
    #[arg(long, value_enum, default_value_t = Home::Right)]
    pub home: Home,
    /// Swap the drawing's sides after every game, as players at a real
    /// board change places.
    #[arg(long)]
    pub swap_sides: bool,
    /// Secret dice seed, 64 hex digits (default: a fresh random one). Its
    /// SHA-256 commitment is printed before play and the seed after.
    #[arg(long)]
    pub seed: Option<String>,
    /// Where to save the session as a .mat file (default: the first free
    /// sheshbesh-session-N.mat here). Written after every action.
    #[arg(long)]
    pub save: Option<PathBuf>,
    /// Show the Hebrew words of the game beside the English ones.
    #[arg(long, value_enum, default_value_t = Lang::En)]
    pub lang: Lang,
    /// Play a chouette with this many players (3 or more): see `--help`.
    #[arg(long)]
    pub chouette: Option<usize>,
    #[command(flatten)]
    pub weights: crate::nets::WeightsArg,
}

/// Refuses a player name the saved `.mat` could not keep apart from its
/// neighbours: one with a line break or other control character, or
/// with " : " (which separates the two names of a game's score line).
pub fn check_names(names: &[String]) -> anyhow::Result<()> {
    for n in names {
        if n.trim().is_empty() || n.chars().any(char::is_control) || n.contains(" : ") {
            anyhow::bail!(
                "bad --names \"{}\": a name is some text without line breaks or \" : \"",
                n.escape_debug()
            );
        }
    }
    Ok(())
}

/// Reads `--level` by the engine's names of its levels.
fn parse_level(s: &str) -> Result<Level, String> {
    Level::from_name(s).ok_or_else(|| {
        let names: Vec<&str> = Level::ALL.iter().map(|l| l.name()).collect();
        format!("expected one of {}", names.join(", "))
    })
}

/// The keyboard and the screen.
pub struct Console<R: BufRead, W: Write> {
    input: R,
    out: W,
}

impl<R: BufRead, W: Write> Console<R, W> {
    /// A console on these streams.
    pub fn new(input: R, out: W) -> Self {
        Console { input, out }
    }

    /// Prints a line.
    pub fn say(&mut self, text: &str) -> Result<()> {
        writeln!(self.out, "{text}")?;
        self.out.flush()?;
        Ok(())
    }

    /// Asks and reads one line; `None` at the end of input.
    pub fn ask(&mut self, prompt: &str) -> Result<Option<String>> {
        write!(self.out, "{prompt} > ")?;
        self.out.flush()?;
        // A line that is not text, or too long, is no command: it reaches
        // the caller as a word no prompt knows, and the game goes on.
        let Some(line) = crate::input::read_line(&mut self.input)? else {
            writeln!(self.out)?;
            return Ok(None);
        };
        Ok(Some(match line.text() {
            Ok(t) => t.trim().to_string(),
            Err(e) => format!("({e})"),
        }))
    }
}

/// The first `sheshbesh-session-N.mat` that does not exist yet.
pub fn free_session_path(stem: &str) -> PathBuf {
    (1..)
        .map(|n| PathBuf::from(format!("{stem}-{n}.mat")))
        .find(|p| !p.exists())
        .expect("some number is free")
}

/// The dice for a session: the seed given, or a fresh random one.
pub fn session_dice(seed: Option<&str>) -> Result<VerifiableDice> {
    Ok(match seed {
        Some(s) => VerifiableDice::from_hex(s)?,
        None => VerifiableDice::from_seed(rand::random()),
    })
}

/// What a player typed at the move prompt.
pub enum Asked {
    /// A play, confirmed.
    Played(Candidate),
    /// Another command, for the caller.
    Command(String),
    /// The input ended.
    Eof,
}

/// Asks for a play of `dice` from `pos` (the mover's side) until one is
/// entered and confirmed: a move in any notation, `hint` for the ranked
/// plays, `=N` for hint N; after a play the board is drawn with it made
/// (`draw` gets the mover's board after the play) and Enter confirms while
/// `undo` takes it back. Any other word goes back to the caller.
pub fn ask_move<R: BufRead, W: Write>(
    c: &mut Console<R, W>,
    ev: &NetEvaluator,
    hint_ply: u32,
    draw: &dyn Fn(&Position, &str) -> String,
    (pos, state): (&Position, &MatchState),
    dice: Dice,
    name: &str,
) -> Result<Asked> {
    let mut hints: Vec<Candidate> = Vec::new();
    let mut pending: Option<String> = None;
    loop {
        let cmd = match pending.take() {
            Some(cmd) => cmd,
            None => match c.ask(&format!("{name}: your move with {dice}"))? {
                Some(cmd) => cmd,
                None => return Ok(Asked::Eof),
            },
        };
        let chosen = if cmd == "hint" {
            hints = move_hint(ev, hint_ply, (pos, state), dice, c)?;
            continue;
        } else if let Some(n) = cmd.strip_prefix('=') {
            if hints.is_empty() {
                hints = move_hint(ev, hint_ply, (pos, state), dice, c)?;
            }
            match n.trim().parse::<usize>() {
                Ok(i) if (1..=hints.len()).contains(&i) => hints[i - 1],
                _ => {
                    c.say(&format!("No hint {n}: give 1 to {}.", hints.len()))?;
                    continue;
                }
            }
        } else if looks_like_move(&cmd) {
            match parse_move(pos, dice, &cmd) {
                Ok(m) => m,
                Err(e) => {
                    c.say(&format!("Not played: {e}"))?;
                    continue;
                }
            }
        } else {
            return Ok(Asked::Command(cmd));
        };
        c.say(&draw(
            &chosen.position,
            &format!("{name} plays {}", chosen.mv),
        ))?;
        let Some(ok) = c.ask("Enter to confirm, 'undo' to take it back")? else {
            return Ok(Asked::Eof);
        };
        if matches!(ok.as_str(), "" | "y" | "yes" | "ok") {
            return Ok(Asked::Played(chosen));
        }
        if looks_like_move(&ok) {
            // Another play typed at the confirmation: it replaces this one,
            // and is shown for confirmation in turn.
            c.say(&format!("Taken back; now {ok}."))?;
            pending = Some(ok);
            continue;
        }
        c.say("Taken back.")?;
    }
}

fn looks_like_move(cmd: &str) -> bool {
    cmd.contains('/') || cmd.split_whitespace().all(|w| w.parse::<u8>().is_ok()) && !cmd.is_empty()
}

fn move_hint<R: BufRead, W: Write>(
    ev: &NetEvaluator,
    ply: u32,
    (pos, state): (&Position, &MatchState),
    dice: Dice,
    c: &mut Console<R, W>,
) -> Result<Vec<Candidate>> {
    let ranked = rank_plays(ev, pos, dice, state, ply, PlayEquity::Cubeful)?;
    let unit = if state.is_money() { "equity" } else { "EMG" };
    let shown: Vec<_> = ranked.iter().take(5).collect();
    for (i, r) in shown.iter().enumerate() {
        c.say(&format!(
            "  ={} {:<24} cubeful {unit} {:+.3} (win {:.1}%)",
            i + 1,
            r.candidate.mv.to_string(),
            r.equity,
            100.0 * r.probs.win()
        ))?;
    }
    Ok(shown.iter().map(|r| r.candidate).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_play_typed_at_the_confirmation_replaces_the_first() {
        let ev = crate::nets::load(None).unwrap();
        let input: &[u8] = b"8/5 6/5\n13/10 24/23\n\n";
        let mut c = Console::new(input, Vec::new());
        let draw = |_: &Position, status: &str| status.to_string();
        let pos = Position::start();
        let state = MatchState::default();
        let dice = Dice::new(3, 1).unwrap();
        let asked = ask_move(&mut c, &ev, 0, &draw, (&pos, &state), dice, "me").unwrap();
        let Asked::Played(p) = asked else {
            panic!("no play");
        };
        assert_eq!(p.mv.to_string(), "24/23 13/10");
        let shown = String::from_utf8(c.out).unwrap();
        assert!(shown.contains("Taken back; now 13/10 24/23."), "{shown}");
    }
}
