//! `sheshbesh rollout`: roll out a position, or the best plays of a roll
//! against each other.

use crate::output::rounded;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use anyhow::{bail, Context, Result};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::{json, Value};
use sheshbesh_engine::cube::decision::{owner_of, rank_plays, PlayEquity};
use sheshbesh_engine::cube::money::Owner;
use sheshbesh_engine::evaluation::evaluator::NetEvaluator;
use sheshbesh_engine::formats::position_id;
use sheshbesh_engine::rollout::{
    rollout, rollout_cube, rollout_moves, CubeRollout, Estimate, MoveRollout, Passes, RolloutLevel,
    RolloutResult, RolloutSettings, Stakes,
};
use sheshbesh_engine::{Candidate, Dice};

use crate::input::input_of;
use crate::input::{dice_for, Input};
use crate::output::respond;
use crate::output::Output;

/// Options of `sheshbesh rollout`.
#[derive(Args, Debug)]
pub struct RolloutArgs {
    /// Position ID, PositionID:MatchID, XGID or "start".
    #[arg(allow_hyphen_values = true)]
    pub position: Option<String>,
    /// With DICE (or dice in the position, as an XGID carries them), roll
    /// out the best --moves plays of this roll against each other (common
    /// dice, clearly worse plays dropped early).
    pub dice: Option<String>,
    /// Checker-play depth inside the trials.
    #[arg(long, default_value_t = 0, value_parser = crate::position_cmd::ply_arg)]
    pub ply: u32,
    /// Play with the cube (money, or the match at a match score) and report
    /// the cubeful equity (EMG and MWC at a match score).
    #[arg(long)]
    pub cubeful: bool,
    #[command(flatten)]
    pub options: RolloutOptions,
    /// Plays compared when DICE is given.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u16).range(MOVES_COMPARED))]
    pub moves: u16,
    #[command(flatten)]
    pub weights: crate::nets::WeightsArg,
    #[command(flatten)]
    pub out: Output,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
}

/// The rollout options `rollout` and `cube --rollout` share.
#[derive(Args, Debug, Clone)]
pub struct RolloutOptions {
    /// Trials (at most; see --target-se).
    #[arg(long, default_value_t = 1296, value_parser = clap::value_parser!(u32).range(1..))]
    pub trials: u32,
    /// Stop each trial after this many plies and use the evaluation.
    #[arg(long)]
    pub truncate: Option<u32>,
    /// Seed of the dice (the result is the same for any --threads).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Worker threads (default: all cores; at most 256).
    #[arg(long, value_parser = thread_count)]
    pub threads: Option<usize>,
    /// A named level instead of --trials/--ply/--truncate: roller, roller+,
    /// roller++ (truncated, variance-reduced mini-rollouts) or full.
    #[arg(long)]
    pub level: Option<String>,
    /// Stop when the reported equity's standard error falls below this.
    #[arg(long, value_parser = crate::args::positive)]
    pub target_se: Option<f32>,
    /// Turn off luck adjustment (variance reduction).
    #[arg(long)]
    pub no_luck: bool,
    /// Turn off quasi-random (stratified) first rolls.
    #[arg(long)]
    pub no_quasi: bool,
}

impl RolloutOptions {
    /// The settings for `input` with checker play at `ply`.
    pub fn settings(&self, input: &Input, ply: u32, cubeful: bool) -> Result<RolloutSettings> {
        let mut s = RolloutSettings {
            trials: self.trials,
            ply,
            truncate: self.truncate,
            cubeful,
            luck: !self.no_luck,
            quasi: !self.no_quasi,
            seed: self.seed,
            target_se: self.target_se,
            stakes: Stakes::for_state(&input.state)?,
        };
        if let Some(name) = &self.level {
            let Some(level) = RolloutLevel::parse(name) else {
                bail!("bad level \"{name}\": give roller, roller+, roller++ or full");
            };
            s = level.settings(s);
        }
        if s.trials == 0 {
            bail!("bad --trials \"0\": give at least 1");
        }
        if let Some(se) = s.target_se.filter(|se| !(se.is_finite() && *se > 0.0)) {
            bail!("bad --target-se \"{se}\": give a positive number");
        }
        if s.ply > 2 {
            bail!("bad --ply \"{}\": rollouts play at 0 to 2 ply", s.ply);
        }
        Ok(s)
    }

    /// The thread pool of `--threads`.
    pub fn pool(&self) -> Result<rayon::ThreadPool> {
        let threads = match self.threads {
            Some(t) if !(1..=MAX_THREADS).contains(&t) => {
                bail!("bad --threads \"{t}\": give 1 to {MAX_THREADS}")
            }
            t => t.unwrap_or(0),
        };
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .context("starting worker threads")
    }
}

/// A flag Ctrl-C sets, so a rollout stops between trials and its partial
/// result is still printed.
pub fn interrupt_flag() -> Arc<AtomicBool> {
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    // A second Ctrl-C while the first is honoured is ignored; the handler
    // can be set once per process.
    let _ = ctrlc::set_handler(move || flag.store(true, Ordering::Relaxed));
    stop
}

/// A progress bar of `trials` on a terminal (hidden otherwise), with the
/// time left at the present rate (to the last trial: a --target-se may
/// stop sooner).
pub fn progress_bar(trials: u32, show: bool) -> ProgressBar {
    let show = show && std::io::IsTerminal::is_terminal(&std::io::stderr());
    let bar = if show {
        ProgressBar::new(u64::from(trials))
    } else {
        ProgressBar::hidden()
    };
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} trials  {per_sec}, {eta} left  {msg}")
            .expect("template"),
    );
    bar
}

/// `{"x": mean}` and `{"se": {"x": se}}`, `{"ci95": {"x": [lo, hi]}}`.
fn put(v: &mut Value, name: &str, e: Estimate) {
    v[name] = json!(rounded(e.mean, 6));
    v["se"][name] = json!(rounded(e.se, 6));
    v["ci95"][name] = json!([rounded(e.mean - e.ci95(), 6), rounded(e.mean + e.ci95(), 6)]);
}

/// A rollout's JSON: probabilities, cubeless equity, at a match score
/// cubeless `emg` and `mwc`, and when cubeful `cubeful_equity` (EMG at a
/// match score) and `cubeful_mwc`, each with `se` and `ci95`, and
/// `passes` (trials ended by a passed double, by who passed).
pub fn result_json(r: &RolloutResult) -> Value {
    let mut v = json!({
        "probs": r.probs.0.map(|x| rounded(x, 6)),
        "se": { "probs": r.probs_se.map(|x| rounded(x, 6)) },
        "ci95": {},
        "trials": r.trials,
        "seed": r.seed,
    });
    put(&mut v, "equity", r.equity);
    let named = [
        ("emg", r.emg),
        ("mwc", r.mwc),
        ("cubeful_equity", r.cubeful),
        ("cubeful_mwc", r.cubeful_mwc),
    ];
    for (name, e) in named {
        if let Some(e) = e {
            put(&mut v, name, e);
        }
    }
    if let Some(p) = r.passes {
        v["passes"] = json!({"by_opponent": p.by_opponent, "by_root": p.by_root});
    }
    v
}

fn result_text(r: &RolloutResult) -> String {
    let p = r.probs.0;
    let e = r.equity;
    let mut t = format!(
        "win {:.2}% ± {:.2}  (g {:.2}%, bg {:.2}%)  lose g {:.2}%, bg {:.2}%\n  cubeless equity {:+.4} ± {:.4} (95%: {:+.4} .. {:+.4})",
        100.0 * p[0],
        100.0 * 1.96 * r.probs_se[0],
        100.0 * p[1],
        100.0 * p[2],
        100.0 * p[3],
        100.0 * p[4],
        e.mean,
        e.se,
        e.mean - e.ci95(),
        e.mean + e.ci95()
    );
    if let (Some(emg), Some(mwc)) = (r.emg, r.mwc) {
        t.push_str(&format!(
            "\n  cubeless EMG    {:+.4} ± {:.4}   MWC {:.2}% ± {:.2}",
            emg.mean,
            emg.se,
            100.0 * mwc.mean,
            100.0 * mwc.se
        ));
    }
    match (r.cubeful, r.cubeful_mwc) {
        (Some(c), Some(mwc)) => t.push_str(&format!(
            "\n  cubeful EMG     {:+.4} ± {:.4}   MWC {:.2}% ± {:.2}",
            c.mean,
            c.se,
            100.0 * mwc.mean,
            100.0 * mwc.se
        )),
        (Some(c), None) => t.push_str(&format!("\n  cubeful equity  {:+.4} ± {:.4}", c.mean, c.se)),
        _ => {}
    }
    if let Some(p) = r.passes {
        t.push_str(&format!(
            "\n  ended by a pass: {} trials (the opponent passed {}, the player on roll {})",
            p.by_opponent + p.by_root,
            p.by_opponent,
            p.by_root
        ));
    }
    t.push_str(&format!("\n  {} trials, seed {}", r.trials, r.seed));
    t
}

/// Runs `sheshbesh rollout`; `Ok(true)` when Ctrl-C stopped it (the
/// partial result is printed; the exit status is then 130, as for any
/// interrupted command).
pub fn run(ev: &NetEvaluator, a: RolloutArgs) -> Result<bool> {
    let pool = a.options.pool()?;
    let stop = interrupt_flag();
    let show_bar = !a.quiet && !a.out.json && !a.out.batch;
    let words = vec![a.position.as_deref(), a.dice.as_deref()];
    respond(words, a.out, |parts| {
        if stop.load(Ordering::Relaxed) {
            // After an interrupt the batch's remaining lines are answered
            // at once, each with this line.
            bail!("not rolled out: interrupted");
        }
        let input = input_of(parts, 2)?;
        let s = a.options.settings(&input, a.ply, a.cubeful)?;
        let bar = progress_bar(s.trials, show_bar);
        let moves = usize::from(a.moves);
        let mut show = |trials: u32, so_far: &Value| {
            bar.set_position(u64::from(trials));
            bar.set_message(leader(so_far));
        };
        let answered = pool.install(|| {
            answer(
                ev,
                &input,
                parts.get(1).copied(),
                &s,
                moves,
                &stop,
                &mut show,
            )
        });
        bar.finish_and_clear();
        answered
    })?;
    Ok(stop.load(Ordering::Relaxed))
}

/// How many plays of a roll a rollout compares (`--moves`).
pub const MOVES_COMPARED: std::ops::RangeInclusive<i64> = 1..=100;

/// What `rollout` answers for `input` (and DICE): its JSON and its text.
/// `stop` ends it early with a partial result; `progress` sees the trials
/// done and the JSON answer so far after each batch of trials.
pub fn answer(
    ev: &NetEvaluator,
    input: &Input,
    dice: Option<&str>,
    s: &RolloutSettings,
    moves: usize,
    stop: &AtomicBool,
    progress: &mut dyn FnMut(u32, &Value),
) -> Result<(Value, String)> {
    // A roll given, or the one the position carries: its plays. Without
    // one the player on roll is before its roll.
    let dice = match dice {
        Some(d) => Some(dice_for(input, Some(d))?),
        None => input.state.dice,
    };
    let Some(dice) = dice else {
        let r = rollout(ev, &input.position, s, stop, |r| {
            progress(r.trials, &position_answer(input, r, false).0);
        });
        return Ok(position_answer(input, &r, stop.load(Ordering::Relaxed)));
    };
    if !i64::try_from(moves).is_ok_and(|m| MOVES_COMPARED.contains(&m)) {
        bail!("bad moves {moves}: compare 1 to 100 plays");
    }
    // The plays compared are the best at 0 ply by the figure the rollout
    // reports: cubeful when the cube is played, else cubeless.
    let equity = if s.cubeful {
        PlayEquity::Cubeful
    } else {
        PlayEquity::Cubeless
    };
    let ranked = rank_plays(ev, &input.position, dice, &input.state, 0, equity)?;
    let top: Vec<Candidate> = ranked.iter().take(moves).map(|r| r.candidate).collect();
    let afters: Vec<_> = top.iter().map(|c| c.position).collect();
    let results = rollout_moves(ev, &afters, s, 2.33, stop, |so_far| {
        let trials = so_far.iter().map(|m| m.result.trials).max().unwrap_or(0);
        progress(trials, &moves_answer(input, dice, &top, so_far, false).0);
    });
    Ok(moves_answer(
        input,
        dice,
        &top,
        &results,
        stop.load(Ordering::Relaxed),
    ))
}

/// The answer for the rollouts `results` of the plays `top` of `dice`:
/// the plays still in the race first, best first.
fn moves_answer(
    input: &Input,
    dice: Dice,
    top: &[Candidate],
    results: &[MoveRollout],
    interrupted: bool,
) -> (Value, String) {
    let mut order: Vec<usize> = (0..results.len()).collect();
    order.sort_by(|&x, &y| {
        results[x].eliminated.cmp(&results[y].eliminated).then(
            results[y]
                .result
                .value()
                .mean
                .total_cmp(&results[x].result.value().mean),
        )
    });
    let moves: Vec<Value> = order
        .iter()
        .map(|&i| {
            let mut v = result_json(&results[i].result);
            v["move"] = json!(top[i].mv.to_string());
            v["position_id"] = json!(position_id::encode(&top[i].position.swapped()));
            v["eliminated"] = json!(results[i].eliminated);
            v
        })
        .collect();
    let v = json!({"position_id": position_id::encode(&input.position), "dice": dice.to_string(), "moves": moves, "interrupted": interrupted});
    let first = &results[order[0]].result;
    let mut lines = vec![format!(
        "rollout of {dice}: the plays by {}; chances for the player on roll after each",
        value_name(first)
    )];
    lines.push(format!(
        " #  {:<24} {:>6} {:>6} {:>6} {:>6} {:>6}   {:<19}{}  trials",
        "play",
        "win",
        "g",
        "bg",
        "lose g",
        "bg",
        value_name(first),
        if mwc_of(first).is_some() {
            "     MWC"
        } else {
            ""
        }
    ));
    for (rank, &i) in order.iter().enumerate() {
        let r = &results[i].result;
        let (p, e) = (r.probs.0.map(|x| 100.0 * x), r.value());
        lines.push(format!(
            "{:>2}. {:<24} {:>6.2} {:>6.2} {:>6.2} {:>6.2} {:>6.2}   {:+.4} ± {:.4}   {}{:>6}{}",
            rank + 1,
            top[i].mv.to_string(),
            p[0],
            p[1],
            p[2],
            p[3],
            p[4],
            e.mean,
            e.se,
            mwc_of(r).map_or(String::new(), |m| format!("{:6.2}%", 100.0 * m.mean)),
            r.trials,
            if results[i].eliminated {
                "  (dropped: clearly worse)"
            } else {
                ""
            }
        ));
    }
    (v, lines.join("\n"))
}

/// The progress bar's message: the figure [`RolloutResult::value`] gives
/// so far, of the position or of the leading play.
fn leader(so_far: &Value) -> String {
    let best = so_far["moves"].get(0);
    let (v, name) = match best {
        Some(m) => (m, format!("{} ", m["move"].as_str().unwrap_or_default())),
        None => (so_far, "equity ".to_string()),
    };
    let key = ["cubeful_equity", "emg", "equity"]
        .into_iter()
        .find(|k| v[*k].is_number())
        .unwrap_or("equity");
    match (v[key].as_f64(), v["se"][key].as_f64()) {
        (Some(e), Some(se)) => format!("{name}{e:+.4} ± {se:.4}"),
        _ => String::new(),
    }
}

/// The name of the figure [`RolloutResult::value`] gives.
fn value_name(r: &RolloutResult) -> &'static str {
    match (r.cubeful.is_some(), r.emg.is_some()) {
        (true, true) => "cubeful EMG",
        (true, false) => "cubeful equity",
        (false, true) => "cubeless EMG",
        (false, false) => "cubeless equity",
    }
}

/// The match-winning chance beside that figure, at a match score.
fn mwc_of(r: &RolloutResult) -> Option<Estimate> {
    if r.cubeful.is_some() {
        r.cubeful_mwc
    } else {
        r.mwc
    }
}

/// The answer for a position's rollout `r` (whole, interrupted, or merged
/// from shards).
pub fn position_answer(input: &Input, r: &RolloutResult, interrupted: bool) -> (Value, String) {
    let mut v = result_json(r);
    v["position_id"] = json!(position_id::encode(&input.position));
    v["interrupted"] = json!(interrupted);
    let mut text = String::new();
    if interrupted {
        text.push_str("(interrupted: partial result)\n");
    }
    text.push_str(&format!(
        "rollout for the player on roll\n  {}",
        result_text(r)
    ));
    (v, text)
}

/// Runs `sheshbesh cube --rollout`: no double and double/take rolled out
/// on the same dice, one position or (with `--batch`) one per stdin line.
pub fn cube(
    ev: &NetEvaluator,
    position: Option<&str>,
    ply: u32,
    options: &RolloutOptions,
    out: Output,
) -> Result<bool> {
    let pool = options.pool()?;
    let stop = interrupt_flag();
    respond(vec![position], out, |parts| {
        pool.install(|| cube_answer(ev, parts, ply, options, &stop, !out.json && !out.batch))
    })?;
    Ok(stop.load(Ordering::Relaxed))
}

/// What `cube --rollout` answers for the words `parts` (POSITION); a
/// progress bar when `show_bar` and stderr is a terminal.
pub fn cube_answer(
    ev: &NetEvaluator,
    parts: &[&str],
    ply: u32,
    options: &RolloutOptions,
    stop: &AtomicBool,
    show_bar: bool,
) -> Result<(Value, String)> {
    let input = input_of(parts, 1)?;
    let state = &input.state;
    if let Some(why) = state.why_no_cube(state.on_roll) {
        bail!(
            "bad position \"{}\": the player on roll may not double ({why}), so there is no cube decision to roll out",
            parts[0]
        );
    }
    let s = options.settings(&input, ply, true)?;
    let bar = progress_bar(s.trials, show_bar);
    let r = rollout_cube(ev, &input.position, &s, stop, |r| {
        bar.set_position(u64::from(r.trials));
        let m = r.double_margin();
        bar.set_message(format!("double - no double {:+.4} ± {:.4}", m.mean, m.se));
    });
    bar.finish_and_clear();
    let redouble = owner_of(state.cube, state.on_roll) == Owner::Me;
    Ok(cube_render(
        &input,
        &s,
        &r,
        redouble,
        stop.load(Ordering::Relaxed),
    ))
}

/// How many standard errors `e` is from zero.
fn z(e: Estimate) -> f32 {
    if e.se > 0.0 {
        e.mean / e.se
    } else if e.mean == 0.0 {
        0.0
    } else {
        e.mean.signum() * f32::INFINITY
    }
}

fn z_text(e: Estimate) -> String {
    let z = z(e);
    if z.is_finite() {
        format!("{:.1} SE", z.abs())
    } else {
        "certain".into()
    }
}

fn cube_render(
    input: &Input,
    s: &RolloutSettings,
    r: &CubeRollout,
    redouble: bool,
    interrupted: bool,
) -> (Value, String) {
    let action = r.action.words(redouble);
    let nd = r.no_double.value();
    let dt = r.double_take.value();
    let (double, take) = (r.double_margin(), r.take_margin());
    let match_play = matches!(s.stakes, Stakes::Match(_));
    let finite = |x: f32| {
        if x.is_finite() {
            json!(rounded(x, 6))
        } else {
            Value::Null
        }
    };
    let mut v = json!({
        "position_id": position_id::encode(&input.position),
        "action": action,
        "no_double": rounded(nd.mean, 6),
        "double_take": rounded(dt.mean, 6),
        "double_pass": rounded(r.double_pass, 6),
        "se": {
            "no_double": rounded(nd.se, 6),
            "double_take": rounded(dt.se, 6),
            "double_minus_no_double": rounded(r.take_gain.se, 6),
        },
        "double_minus_no_double": rounded(r.take_gain.mean, 6),
        "double_margin": { "equity": rounded(double.mean, 6), "se": rounded(double.se, 6), "z": finite(z(double)) },
        "take_margin": { "equity": rounded(take.mean, 6), "se": rounded(take.se, 6), "z": finite(z(take)) },
        "probs": r.no_double.probs.0.map(|x| rounded(x, 6)),
        "ply": s.ply,
        "truncate": s.truncate,
        "trials": r.trials,
        "seed": s.seed,
        "match_play": match_play,
        "interrupted": interrupted,
    });
    let passes = |x: &RolloutResult| x.passes.unwrap_or_default();
    let (nd_passes, dt_passes) = (passes(&r.no_double), passes(&r.double_take));
    v["passes"] = json!({
        "no_double": {"by_opponent": nd_passes.by_opponent, "by_root": nd_passes.by_root},
        "double_take": {"by_opponent": dt_passes.by_opponent, "by_root": dt_passes.by_root},
    });
    if let (Some(a), Some(b)) = (r.no_double.cubeful_mwc, r.double_take.cubeful_mwc) {
        v["mwc"] = json!({
            "no_double": rounded(a.mean, 6),
            "double_take": rounded(b.mean, 6),
            "se": { "no_double": rounded(a.se, 6), "double_take": rounded(b.se, 6) },
        });
    }
    let unit = if match_play { "EMG" } else { "equity" };
    let mut text = String::new();
    if interrupted {
        text.push_str("(interrupted: partial result)\n");
    }
    text.push_str(&format!(
        "Cube rollout ({} trials, {}-ply checker play{}, seed {}, {unit})\n  no double     {:+.3} ± {:.3}\n  double, take  {:+.3} ± {:.3}\n  double, pass  {:+.3}\n  double/take - no double {:+.3} ± {:.3} (same dice)\nProper cube action: {action}  (double: {:+.3}, {}; take: {:+.3}, {})",
        r.trials,
        s.ply,
        s.truncate.map(|t| format!(", truncated at {t}")).unwrap_or_default(),
        s.seed,
        nd.mean,
        nd.se,
        dt.mean,
        dt.se,
        r.double_pass,
        r.take_gain.mean,
        r.take_gain.se,
        double.mean,
        z_text(double),
        take.mean,
        z_text(take),
    ));
    let said = |p: Passes| {
        format!(
            "{} (the opponent passed {}, the player on roll {})",
            p.by_opponent + p.by_root,
            p.by_opponent,
            p.by_root
        )
    };
    text.push_str(&format!(
        "\nTrials ended by a pass: no double {}; double/take {}",
        said(nd_passes),
        said(dt_passes)
    ));
    (v, text)
}

/// The most worker threads a rollout starts: more than a machine has cores
/// only costs memory, and without a bound a typo starts thousands.
const MAX_THREADS: usize = 256;

/// `--threads`: 1 to [`MAX_THREADS`].
fn thread_count(s: &str) -> std::result::Result<usize, String> {
    match s.parse::<usize>() {
        Ok(t) if (1..=MAX_THREADS).contains(&t) => Ok(t),
        _ => Err(format!("give 1 to {MAX_THREADS}")),
    }
}
