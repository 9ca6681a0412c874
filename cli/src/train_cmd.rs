//! `sheshbesh train`: the command line of the trainer crate.

use std::path::PathBuf;

use anyhow::Result;
use clap::Args;
use serde_json::json;
use sheshbesh_engine::inputs::Layout;
use sheshbesh_trainer::distill::DistillConfig;
use sheshbesh_trainer::schedule::Schedule;
use sheshbesh_trainer::train::{distill_run, train, TrainConfig};

/// Options of `sheshbesh train`.
#[derive(Args, Debug)]
pub struct TrainArgs {
    /// Checkpoint file: resumed from when it exists, rewritten (atomically)
    /// every --checkpoint-every games and at the end. Copy it to
    /// weights/sheshbesh.weights to ship it, or pass it to --weights.
    #[arg(long, default_value = "train.weights")]
    pub checkpoint: PathBuf,
    /// Train until this many self-play games in total (earlier sessions'
    /// games count).
    #[arg(long, default_value_t = 100_000)]
    pub games: u64,
    /// Seed of the initial weights and the dice.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// TD lambda (0: one-step TD; 1: learn from the game's result alone).
    #[arg(long, default_value_t = 0.0)]
    pub lambda: f32,
    /// Learning rate at the start.
    #[arg(long, default_value_t = 0.02)]
    pub alpha: f32,
    /// Learning rate it decays to.
    #[arg(long, default_value_t = 0.002)]
    pub alpha_end: f32,
    /// Games over which the learning rate's excess over --alpha-end halves.
    #[arg(long, default_value_t = 200_000.0)]
    pub half_life: f64,
    /// Hidden units of the contact net (new runs).
    #[arg(long, default_value_t = 128)]
    pub hidden: usize,
    /// Hidden units of the race net (new runs).
    #[arg(long, default_value_t = 64)]
    pub race_hidden: usize,
    /// Input layout of a new run or of --widen: 2, 3 (the shipped net's) or
    /// 4 (more features; see engine/src/inputs.rs).
    #[arg(long, default_value_t = 3)]
    pub layout: u32,
    /// Independent game streams per round (fixes the result; threads do not).
    #[arg(long, default_value_t = 2)]
    pub shards: usize,
    /// Games per stream per round.
    #[arg(long, default_value_t = 16)]
    pub round_games: u64,
    /// Games between checkpoints.
    #[arg(long, default_value_t = 10_000)]
    pub checkpoint_every: u64,
    /// Games between strength checks against pubeval and the previous check
    /// (0: none).
    #[arg(long, default_value_t = 20_000)]
    pub check_every: u64,
    /// Duplicate-dice pairs (two games each) per strength check.
    #[arg(long, default_value_t = 500)]
    pub check_pairs: u64,
    /// After self-play, rounds of expert iteration: sample positions from
    /// self-play, label them by the nets' own --label-ply search, fit the
    /// nets to the labels. Needs an existing checkpoint; --games is then
    /// ignored.
    #[arg(long, default_value_t = 0)]
    pub distill_rounds: u64,
    /// Positions per expert-iteration round.
    #[arg(long, default_value_t = 200_000)]
    pub distill_positions: usize,
    /// Search depth of the expert-iteration labels.
    #[arg(long, default_value_t = 1)]
    pub label_ply: u32,
    /// Passes over each round's positions.
    #[arg(long, default_value_t = 2)]
    pub epochs: usize,
    /// Learning rate of the expert-iteration fit's first pass.
    #[arg(long, default_value_t = 0.003)]
    pub distill_alpha: f32,
    /// Learning rate of the fit's last pass (falls geometrically from
    /// --distill-alpha; default: the same).
    #[arg(long)]
    pub distill_alpha_end: Option<f32>,
    /// Expert iteration labels by luck-adjusted 0-ply rollouts of this many
    /// trials instead of a --label-ply search (0: search).
    #[arg(long, default_value_t = 0)]
    pub label_rollouts: u32,
    /// Truncate the labelling rollouts after this many plies.
    #[arg(long)]
    pub label_truncate: Option<u32>,
    /// Expert iteration labels with this weights file's search instead of
    /// the checkpoint's own (e.g. an --ensemble teaching a single net).
    #[arg(long)]
    pub teacher: Option<PathBuf>,
    /// Keep each expert-iteration round's labels in this directory and
    /// reuse them when present (labelling is the slow part). Labels are
    /// kept as they are made, so a stopped run resumes labelling where it
    /// stopped.
    #[arg(long)]
    pub label_cache: Option<PathBuf>,
    /// Expert iteration labels the best N plays of a roll in each sampled
    /// position (the plays its choices turn on) instead of the positions
    /// themselves (0).
    #[arg(long, default_value_t = 0)]
    pub label_candidates: usize,
    /// Fit expert-iteration labels by Adam on batches of this many
    /// positions (0: plain descent, one position at a time; the
    /// --distill-alpha rates then suit Adam, e.g. 0.0003).
    #[arg(long, default_value_t = 0)]
    pub fit_batch: usize,
    /// Expert iteration labels every turn of this many luck-adjusted
    /// self-play games (each turn's label: the game's result less the luck
    /// of the rolls from there on) instead of sampling positions (0).
    #[arg(long, default_value_t = 0)]
    pub label_games: u32,
    /// Expert iteration labels whole decisions instead: a roll of each
    /// sampled position and its best N plays at 0-ply, each valued by the
    /// --label-ply search, fitted (by Adam, on --fit-batch decisions) to
    /// lower the search's regret of the play the 0-ply nets choose (0: off).
    #[arg(long, default_value_t = 0)]
    pub label_decisions: usize,
    /// Softmax temperature of the decision fit, in equity: plays closer
    /// than this are nearly a toss-up to the fit.
    #[arg(long, default_value_t = 0.02)]
    pub decision_temperature: f32,
    /// Weight of the decision fit's pull back to the nets' own 0-ply
    /// outputs (keeps their values where the choices were right).
    #[arg(long, default_value_t = 1.0)]
    pub decision_anchor: f32,
    /// Instead of training, write the mean of these weights files (late
    /// checkpoints of one run) to --checkpoint.
    #[arg(long, num_args = 1..)]
    pub average: Vec<PathBuf>,
    /// Instead of training, write to --checkpoint one net that averages
    /// the output logits of these independently trained weights files (their
    /// hidden layers side by side: slower to evaluate, stronger).
    #[arg(long, num_args = 2.., conflicts_with = "average")]
    pub ensemble: Vec<PathBuf>,
    /// Instead of training, write to --checkpoint this weights file's nets
    /// reading the larger input layout --layout: the new inputs start at
    /// zero weight (same play), and training on teaches them.
    #[arg(long, conflicts_with_all = ["average", "ensemble"])]
    pub widen: Option<PathBuf>,
    /// Instead of training, write to --checkpoint this weights file's nets
    /// plus a net of their own for crashed positions, a copy of the contact
    /// net (same play) that training on specialises.
    #[arg(long, conflicts_with_all = ["average", "ensemble", "widen"])]
    pub split_crashed: Option<PathBuf>,
    /// Instead of training, write to --checkpoint this weights file's nets
    /// with a second hidden layer of --hidden2 units in the contact net,
    /// read by the outputs beside the first (same play until training
    /// gives it weight).
    #[arg(long, requires = "hidden2", conflicts_with_all = ["average", "ensemble", "widen", "split_crashed"])]
    pub deepen: Option<PathBuf>,
    /// Units of the contact net's second hidden layer, for --deepen or a
    /// new run (0: none; else a multiple of 8 up to 128).
    #[arg(long)]
    pub hidden2: Option<usize>,
    /// Start afresh even if the checkpoint exists (it is overwritten).
    #[arg(long)]
    pub fresh: bool,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
    /// Print a JSON summary at the end.
    #[arg(long)]
    pub json: bool,
}

/// Runs `sheshbesh train`.
pub fn run(a: TrainArgs) -> Result<()> {
    let command = std::env::args().collect::<Vec<_>>().join(" ");
    let cfg = TrainConfig {
        seed: a.seed,
        games: a.games,
        lambda: a.lambda,
        schedule: Schedule {
            start: a.alpha,
            end: a.alpha_end,
            half_life: a.half_life,
        },
        hidden: a.hidden,
        race_hidden: a.race_hidden,
        hidden2: a.hidden2.unwrap_or(0),
        layout: Layout::from_id(a.layout)
            .ok_or_else(|| anyhow::anyhow!("bad layout \"{}\": give 2, 3 or 4", a.layout))?,
        shards: a.shards.max(1),
        round_games: a.round_games.max(1),
        checkpoint: a.checkpoint.clone(),
        checkpoint_every: a.checkpoint_every.max(1),
        check_every: a.check_every,
        check_pairs: a.check_pairs,
        resume: !a.fresh,
        command,
        progress: !a.quiet && std::io::IsTerminal::is_terminal(&std::io::stderr()),
    };
    // Folding weights files into one (no training): a run's late
    // checkpoints averaged, independent runs as one ensemble, or one net
    // widened to more inputs, given a crashed net or a second layer.
    if !a.average.is_empty()
        || !a.ensemble.is_empty()
        || a.widen.is_some()
        || a.split_crashed.is_some()
        || a.deepen.is_some()
    {
        use sheshbesh_trainer::checkpoint;
        let (ev, prov, what) = if let Some(from) = &a.deepen {
            let units = cfg.hidden2;
            let (ev, prov) = checkpoint::deepen(from, units, a.seed)?;
            let what = format!("{} with a second layer of {units} units", from.display());
            (ev, prov, what)
        } else if let Some(from) = &a.split_crashed {
            let (ev, prov) = checkpoint::split_crashed(from)?;
            (ev, prov, format!("{} with a crashed net", from.display()))
        } else if let Some(from) = &a.widen {
            let (ev, prov) = checkpoint::widen(from, cfg.layout)?;
            (
                ev,
                prov,
                format!("{} widened to layout {}", from.display(), a.layout),
            )
        } else if a.average.is_empty() {
            let (ev, prov) = checkpoint::ensemble(&a.ensemble)?;
            let what = format!(
                "ensemble of {} files ({} contact hidden units)",
                a.ensemble.len(),
                ev.contact.hidden()
            );
            (ev, prov, what)
        } else {
            let (ev, prov) = checkpoint::average(&a.average)?;
            (ev, prov, format!("averaged {} files", a.average.len()))
        };
        checkpoint::save(&a.checkpoint, &ev, &prov)?;
        println!("{what} into {}", a.checkpoint.display());
        return Ok(());
    }
    let (_, prov) = if a.distill_rounds > 0 {
        let d = DistillConfig {
            positions: a.distill_positions,
            ply: a.label_ply,
            epochs: a.epochs,
            alpha: a.distill_alpha,
            alpha_end: a.distill_alpha_end.unwrap_or(a.distill_alpha),
            explore: 0.1,
            rollout_trials: a.label_rollouts,
            truncate: a.label_truncate,
            teacher: a.teacher.clone(),
            cache_dir: a.label_cache.clone(),
            candidates: a.label_candidates,
            batch: a.fit_batch,
            games: a.label_games,
            decisions: a.label_decisions,
            temperature: a.decision_temperature,
            anchor: a.decision_anchor,
        };
        distill_run(&cfg, &d, a.distill_rounds)?
    } else {
        train(&cfg)?
    };
    if a.json {
        println!(
            "{}",
            json!({"checkpoint": a.checkpoint, "games": prov.games, "seconds": prov.seconds, "checks": prov.checks})
        );
    } else {
        println!(
            "trained {} games in {:.0} s; checkpoint {}",
            prov.games,
            prov.seconds,
            a.checkpoint.display()
        );
    }
    Ok(())
}
