//! How the commands print for machines: the `--json` and `--batch` flags
//! they share, the runner that answers once or a line at a time, and the
//! one rounding of the figures their JSON shows.

use std::io::Write;

use anyhow::Result;
use serde_json::{json, Value};

/// Options shared by the commands with a machine interface.
#[derive(clap::Args, Debug, Clone, Copy)]
pub struct Output {
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    /// Read inputs from stdin, one per line, and answer one JSON object per
    /// line (a co-process interface; bad lines answer {"error": ...}).
    #[arg(long)]
    pub batch: bool,
}

/// `x` to `places` decimals (0 to 6), as JSON output shows figures: the
/// one rounding of the command line.
pub fn rounded(x: f32, places: usize) -> f64 {
    const SCALE: [f64; 7] = [1.0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6];
    let scale = SCALE[places];
    (f64::from(x) * scale).round() / scale
}

/// Runs `answer` once on the command-line words, or per stdin line in batch
/// mode (where errors become `{"error": ...}` lines and the batch goes on).
pub fn respond(
    words: Vec<Option<&str>>,
    out: Output,
    answer: impl Fn(&[&str]) -> Result<(Value, String)>,
) -> Result<()> {
    if out.batch {
        let stdin = std::io::stdin();
        let mut input = stdin.lock();
        let mut stdout = std::io::stdout().lock();
        // Every line gets exactly one answer line, bad ones an error.
        while let Some(line) = crate::input::read_line(&mut input)? {
            let v = match line.text() {
                Err(e) => json!({ "error": e }),
                Ok(line) => {
                    let parts: Vec<&str> = line.split_whitespace().collect();
                    match answer(&parts) {
                        Ok((v, _)) => v,
                        Err(e) => json!({ "error": e.to_string() }),
                    }
                }
            };
            writeln!(stdout, "{v}")?;
            stdout.flush()?;
        }
        return Ok(());
    }
    let parts: Vec<&str> = words.into_iter().flatten().collect();
    let (v, text) = answer(&parts)?;
    if out.json {
        println!("{v}");
    } else {
        println!("{text}");
    }
    Ok(())
}
