//! `sheshbesh rollout`: roll out a position, or the best plays of a roll
//! against each other.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use anyhow::{bail, Context, Result};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::{json, Value};
use sheshbesh_engine::cube::decision::valuation;
use sheshbesh_engine::cube::money::{MoneyCube, Owner};
use sheshbesh_engine::evaluation::evaluator::NetEvaluator;
use sheshbesh_engine::formats::position_id;
use sheshbesh_engine::rollout::{
    rollout, rollout_moves, RolloutLevel, RolloutResult, RolloutSettings,
};
use sheshbesh_engine::search::ply::{rank_moves, MoveFilter};

use crate::input::{dice_for, parse_position};

/// Options of `sheshbesh rollout`.
#[derive(Args, Debug)]
pub struct RolloutArgs {
    /// Position ID, PositionID:MatchID, XGID or "start".
    #[arg(allow_hyphen_values = true)]
    pub position: String,
    /// With DICE, roll out the best --moves plays of this roll against each
    /// other (common dice, clearly worse plays dropped early).
    pub dice: Option<String>,
    /// Trials (at most; see --target-se).
    #[arg(long, default_value_t = 1296)]
    pub trials: u32,
    /// Checker-play depth inside the trials.
    #[arg(long, default_value_t = 0)]
    pub ply: u32,
    /// Stop each trial after this many plies and use the evaluation.
    #[arg(long)]
    pub truncate: Option<u32>,
    /// Play with the money cube and report the cubeful equity.
    #[arg(long)]
    pub cubeful: bool,
    /// Seed of the dice (the result is the same for any --threads).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Worker threads (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// A named level instead of --trials/--ply/--truncate: roller, roller+,
    /// roller++ (truncated, variance-reduced mini-rollouts) or full.
    #[arg(long)]
    pub level: Option<String>,
    /// Stop when the equity's standard error falls below this.
    #[arg(long)]
    pub target_se: Option<f32>,
    /// Turn off luck adjustment (variance reduction).
    #[arg(long)]
    pub no_luck: bool,
    /// Turn off quasi-random (stratified) first rolls.
    #[arg(long)]
    pub no_quasi: bool,
    /// Plays compared when DICE is given.
    #[arg(long, default_value_t = 4)]
    pub moves: usize,
    /// Weights file instead of the shipped weights.
    #[arg(long)]
    pub weights: Option<std::path::PathBuf>,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
}

fn result_json(r: &RolloutResult) -> Value {
    let round = |x: f32| (f64::from(x) * 1e6).round() / 1e6;
    let mut v = json!({
        "probs": r.probs.0.map(round),
        "equity": round(r.equity),
        "se": {
            "probs": r.probs_se.map(round),
            "equity": round(r.equity_se),
        },
        "ci95": { "equity": [round(r.equity - r.equity_ci95()), round(r.equity + r.equity_ci95())] },
        "trials": r.trials,
        "seed": r.seed,
    });
    if let (Some(c), Some(se)) = (r.cubeful, r.cubeful_se) {
        v["cubeful_equity"] = json!(round(c));
        v["se"]["cubeful_equity"] = json!(round(se));
        v["ci95"]["cubeful_equity"] = json!([round(c - 1.96 * se), round(c + 1.96 * se)]);
    }
    v
}

fn result_text(r: &RolloutResult) -> String {
    let p = r.probs.0;
    let mut t = format!(
        "win {:.2}% ± {:.2}  (g {:.2}%, bg {:.2}%)  lose g {:.2}%, bg {:.2}%\n  cubeless equity {:+.4} ± {:.4} (95%: {:+.4} .. {:+.4})",
        100.0 * p[0],
        100.0 * 1.96 * r.probs_se[0],
        100.0 * p[1],
        100.0 * p[2],
        100.0 * p[3],
        100.0 * p[4],
        r.equity,
        r.equity_se,
        r.equity - r.equity_ci95(),
        r.equity + r.equity_ci95()
    );
    if let (Some(c), Some(se)) = (r.cubeful, r.cubeful_se) {
        t.push_str(&format!("\n  cubeful equity  {c:+.4} ± {se:.4}"));
    }
    t.push_str(&format!("\n  {} trials, seed {}", r.trials, r.seed));
    t
}

/// Runs `sheshbesh rollout`.
/// Runs `sheshbesh rollout`; `Ok(true)` when Ctrl-C stopped it (the
/// partial result is printed; the exit status is then 130, as for any
/// interrupted command).
pub fn run(ev: &NetEvaluator, a: RolloutArgs) -> Result<bool> {
    let input = parse_position(&a.position)?;
    let owner = match input.state.cube.owner {
        None => Owner::Centred,
        Some(p) if p == input.state.on_roll => Owner::Me,
        Some(_) => Owner::Opponent,
    };
    let mut s = RolloutSettings {
        trials: a.trials,
        ply: a.ply,
        truncate: a.truncate,
        cubeful: a.cubeful,
        luck: !a.no_luck,
        quasi: !a.no_quasi,
        seed: a.seed,
        target_se: a.target_se,
        cube: MoneyCube {
            owner,
            jacoby: input.state.jacoby,
            beavers: input.state.beavers,
        },
    };
    if let Some(name) = &a.level {
        let Some(level) = RolloutLevel::parse(name) else {
            bail!("bad level \"{name}\": give roller, roller+, roller++ or full");
        };
        s = level.settings(s);
    }
    if s.trials == 0 {
        bail!("bad trials \"0\": give at least 1");
    }
    if s.ply > 2 {
        bail!("bad ply \"{}\": rollouts play at 0 to 2 ply", s.ply);
    }
    if input.state.length > 0 && s.cubeful {
        bail!(
            "bad position \"{}\": cubeful rollouts are money play only for now",
            a.position
        );
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(a.threads.unwrap_or(0))
        .build()
        .context("starting worker threads")?;
    let stop = Arc::new(AtomicBool::new(false));
    {
        let stop = stop.clone();
        // A second Ctrl-C while the first is honoured is ignored; the
        // handler can be set once per process.
        let _ = ctrlc::set_handler(move || stop.store(true, Ordering::Relaxed));
    }
    let show = !a.quiet && !a.json && std::io::IsTerminal::is_terminal(&std::io::stderr());
    let bar = if show {
        ProgressBar::new(u64::from(s.trials))
    } else {
        ProgressBar::hidden()
    };
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} trials  {per_sec}  {msg}")
            .expect("template"),
    );
    match &a.dice {
        None => {
            let r = pool.install(|| {
                rollout(ev, &input.position, &s, &stop, |r| {
                    bar.set_position(u64::from(r.trials));
                    bar.set_message(format!("equity {:+.4} ± {:.4}", r.equity, r.equity_se));
                })
            });
            bar.finish_and_clear();
            let interrupted = stop.load(Ordering::Relaxed);
            if a.json {
                let mut v = result_json(&r);
                v["position_id"] = json!(position_id::encode(&input.position));
                v["interrupted"] = json!(interrupted);
                println!("{v}");
            } else {
                if interrupted {
                    println!("(interrupted: partial result)");
                }
                println!("rollout for the player on roll\n  {}", result_text(&r));
            }
        }
        Some(d) => {
            let dice = dice_for(&input, Some(d))?;
            let valuation = valuation(&input.state, input.state.on_roll)?;
            let ranked = rank_moves(ev, &input.position, dice, 0, MoveFilter::ROOT, valuation);
            let top: Vec<_> = ranked.iter().take(a.moves.max(1)).collect();
            let afters: Vec<_> = top.iter().map(|r| r.candidate.position).collect();
            let results = pool.install(|| rollout_moves(ev, &afters, &s, 2.33, &stop));
            let mut order: Vec<usize> = (0..results.len()).collect();
            order.sort_by(|&x, &y| {
                results[x].eliminated.cmp(&results[y].eliminated).then(
                    results[y]
                        .result
                        .equity
                        .total_cmp(&results[x].result.equity),
                )
            });
            let interrupted = stop.load(Ordering::Relaxed);
            if a.json {
                let moves: Vec<Value> = order
                    .iter()
                    .map(|&i| {
                        let mut v = result_json(&results[i].result);
                        v["move"] = json!(top[i].candidate.mv.to_string());
                        v["position_id"] =
                            json!(position_id::encode(&top[i].candidate.position.swapped()));
                        v["eliminated"] = json!(results[i].eliminated);
                        v
                    })
                    .collect();
                println!(
                    "{}",
                    json!({"position_id": position_id::encode(&input.position), "dice": dice.to_string(), "moves": moves, "interrupted": interrupted})
                );
            } else {
                for (rank, &i) in order.iter().enumerate() {
                    let r = &results[i].result;
                    println!(
                        "{:>2}. {:<24} {:+.4} ± {:.4}  {} trials{}",
                        rank + 1,
                        top[i].candidate.mv.to_string(),
                        r.equity,
                        r.equity_se,
                        r.trials,
                        if results[i].eliminated {
                            "  (dropped: clearly worse)"
                        } else {
                            ""
                        }
                    );
                }
            }
        }
    }
    Ok(stop.load(Ordering::Relaxed))
}
