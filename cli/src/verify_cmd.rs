//! `sheshbesh verify SEED COMMITMENT [MATFILE]`: checks verifiable dice
//! (the derivation is documented in `engine/src/play/verifiable_dice.rs`).

use anyhow::{Context, Result};
use serde_json::json;
use sheshbesh_engine::formats::files::read_text;
use sheshbesh_engine::formats::story;
use sheshbesh_engine::play::verifiable_dice::{check_commitment, check_match, VerifyError};

/// Options of `sheshbesh verify`.
#[derive(clap::Args, Debug)]
pub struct VerifyArgs {
    /// The revealed seed, 64 hex digits.
    pub seed: String,
    /// The commitment published before play, 64 hex digits.
    pub commitment: String,
    /// A .mat file saved by `sheshbesh play` whose rolls to check.
    pub matfile: Option<std::path::PathBuf>,
    /// Print one JSON object: `commitment_ok`, `rolls_checked`, `error`.
    #[arg(long)]
    pub json: bool,
}

/// Returns Ok(false) when the check fails (exit status 1); malformed input
/// is an error (exit status 2).
pub fn run(args: VerifyArgs) -> Result<bool> {
    let report = |ok_commit: bool, rolls: Option<usize>, error: Option<String>| {
        if args.json {
            println!(
                "{}",
                json!({"commitment_ok": ok_commit, "rolls_checked": rolls, "error": error})
            );
        } else {
            if ok_commit {
                println!("Commitment OK: SHA-256 of the seed is the commitment.");
            }
            if let Some(n) = rolls {
                println!("All {n} rolls in the file follow from the seed.");
            }
            if let Some(e) = &error {
                println!("FAILED: {e}");
            }
        }
    };
    let dice = match check_commitment(&args.seed, &args.commitment) {
        Ok(d) => d,
        Err(e @ VerifyError::Commitment { .. }) => {
            report(false, None, Some(e.to_string()));
            return Ok(false);
        }
        Err(e) => return Err(e.into()),
    };
    let Some(path) = &args.matfile else {
        report(true, None, None);
        return Ok(true);
    };
    let text = read_text(path)
        .with_context(|| format!("bad match file \"{}\": cannot read", path.display()))?;
    let file = story::read(&text, false)
        .with_context(|| format!("bad match file \"{}\"", path.display()))?;
    if let Some(c) = file.tag("DiceCommitment") {
        if !c.eq_ignore_ascii_case(args.commitment.trim()) {
            report(
                true,
                None,
                Some(format!("the file records another commitment, {c}")),
            );
            return Ok(false);
        }
    }
    match check_match(&dice, &file) {
        Ok(n) => {
            report(true, Some(n), None);
            Ok(true)
        }
        Err(e) => {
            report(true, None, Some(e.to_string()));
            Ok(false)
        }
    }
}
