//! `sheshbesh ubgi`: the Universal Backgammon Interface (draft 0.01,
//! oysteijo/Universal-Backgammon-Interface) on stdin and stdout.
//!
//! The UI starts the engine and sends `ubgi`; the engine loads its net only
//! then and answers `id name`, `id author`, `id version` and `readyok`. A
//! FIBS board string or an XGID is answered with the best action: a move as
//! from/to pairs (`8/5 6/5`, bar 25, off 0, doubles written out), `double`
//! or `roll`, `take`, `drop` or `beaver`, or a blank line when no play is
//! legal. `isready` answers `readyok`; `stop` has nothing to stop (every
//! answer is computed before the next line is read); `quit` ends. Anything
//! else, and a position that cannot be read, answers `sorry` (the reason
//! goes to stderr).

use std::io::Write;

use anyhow::Result;
use sheshbesh_engine::play::agent::Agent;

use crate::protocol::{answer, read_board};

/// Options of `sheshbesh ubgi`.
#[derive(clap::Args, Debug)]
pub struct UbgiArgs {
    /// Search depth of every decision.
    #[arg(long, default_value_t = 1, value_parser = crate::position_cmd::ply_arg)]
    pub ply: u32,
    #[command(flatten)]
    pub weights: crate::nets::WeightsArg,
}

/// Runs the protocol until `quit` or the end of input.
pub fn run(args: UbgiArgs) -> Result<()> {
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    let mut ev = None;
    let mut input = stdin.lock();
    // Every line gets an answer: a bad or blank line `sorry`, with the
    // reason on stderr.
    while let Some(line) = crate::input::read_line(&mut input)? {
        let line = match line.text() {
            Ok(l) => l,
            Err(e) => {
                eprintln!("sheshbesh ubgi: {e}");
                writeln!(out, "sorry")?;
                out.flush()?;
                continue;
            }
        };
        let cmd = line.trim();
        match cmd {
            "" => {
                eprintln!("sheshbesh ubgi: an empty line");
                writeln!(out, "sorry")?;
            }
            "ubgi" => {
                if ev.is_none() {
                    match args.weights.load() {
                        Ok(e) => ev = Some(e),
                        Err(e) => {
                            eprintln!("sheshbesh ubgi: {e:#}");
                            writeln!(out, "sorry")?;
                            out.flush()?;
                            continue;
                        }
                    }
                }
                writeln!(out, "id name Sheshbesh")?;
                writeln!(out, "id author the Sheshbesh developers")?;
                writeln!(out, "id version {}", env!("CARGO_PKG_VERSION"))?;
                writeln!(out, "readyok")?;
            }
            "isready" => writeln!(out, "readyok")?,
            "stop" => {}
            "quit" => break,
            _ => {
                let reply = match &ev {
                    None => Err(anyhow::anyhow!("send \"ubgi\" first")),
                    Some(e) => read_board(cmd).and_then(|b| answer(&Agent::new(e, args.ply), &b)),
                };
                match reply {
                    Ok(r) => writeln!(out, "{r}")?,
                    Err(e) => {
                        eprintln!("sheshbesh ubgi: {e:#}");
                        writeln!(out, "sorry")?;
                    }
                }
            }
        }
        out.flush()?;
    }
    Ok(())
}
