//! `sheshbesh train`: the command line of the trainer crate, one
//! subcommand per way of making weights.

use std::path::PathBuf;

use anyhow::{anyhow, bail, Context, Result};
use clap::{Args, Subcommand};
use serde_json::json;
use sheshbesh_engine::evaluation::evaluator::{NetClass, Phase};
use sheshbesh_engine::evaluation::inputs::Layout;
use sheshbesh_engine::evaluation::net::{BLOCK, MAX_HIDDEN};
use sheshbesh_engine::evaluation::prefilter::{MAX_PREFILTER_HIDDEN, PREFILTER_KEEP};
use sheshbesh_engine::evaluation::weights;
use sheshbesh_engine::formats::files::{read_bounded, TEXT_LIMIT};
use sheshbesh_engine::Position;
use sheshbesh_trainer::calibrate::{CalibrateConfig, CalibrationFit};
use sheshbesh_trainer::card;
use sheshbesh_trainer::checkpoint::{self, Provenance};
use sheshbesh_trainer::classes::PositionClass;
use sheshbesh_trainer::expert::{ExpertConfig, LabelSource, SampleSource};
use sheshbesh_trainer::jobs::{CalibrateJob, ExpertJob};
use sheshbesh_trainer::labels::Shard;
use sheshbesh_trainer::prefilter::{distil, PrefilterConfig, PrefilterStep};
use sheshbesh_trainer::schedule::Schedule;
use sheshbesh_trainer::surgery;
use sheshbesh_trainer::train::{train, SelfplayConfig};

use crate::input::parse_position;

/// Options of `sheshbesh train`.
#[derive(Args, Debug)]
pub struct TrainArgs {
    #[command(subcommand)]
    pub mode: TrainMode,
}

/// The ways of making weights.
#[derive(Subcommand, Debug)]
pub enum TrainMode {
    /// Self-play TD(lambda): the nets play themselves and learn from every
    /// move, in parallel rounds, with checkpoints and strength checks.
    Selfplay(SelfplayArgs),
    /// Expert iteration from a checkpoint: sample positions from
    /// self-play, label them by the nets' own deeper search, fit the nets
    /// to the labels.
    Expert(ExpertArgs),
    /// Fit a net to its own rollouts: sample positions from self-play (all,
    /// or one class such as back games), roll each out to the end, and
    /// rescale each output's logit to fit them or fit the whole net.
    Calibrate(CalibrateArgs),
    /// Distil the play pre-filter from a checkpoint's contact net: a small
    /// board-only net that ranks a roll's plays so that a rollout's luck
    /// pass values only the best few with the full net. It is added to the
    /// checkpoint (replacing one it had); the other nets stay as they are.
    Prefilter(PrefilterArgs),
    /// Make weights from other weights files without training.
    Weights {
        #[command(subcommand)]
        op: WeightsOp,
    },
}

/// What is common to every mode: where the result goes and how it reports.
#[derive(Args, Debug)]
pub struct TrainOutput {
    /// Checkpoint file: resumed from when it exists, rewritten (atomically)
    /// as training goes and at the end. Copy it to
    /// weights/sheshbesh.weights to ship it, or pass it to --weights.
    #[arg(long, default_value = "train.weights")]
    pub checkpoint: PathBuf,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
    /// Print a JSON summary at the end.
    #[arg(long)]
    pub json: bool,
}

/// Options of `train selfplay`.
#[derive(Args, Debug)]
pub struct SelfplayArgs {
    #[command(flatten)]
    pub out: TrainOutput,
    /// Train until this many self-play games in total (earlier sessions'
    /// games count).
    #[arg(long, default_value_t = 100_000, value_parser = crate::args::count)]
    pub games: u64,
    /// Seed of the initial weights and the dice.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// TD lambda (0: one-step TD; 1: learn from the game's result alone).
    #[arg(long, default_value_t = 0.0, value_parser = crate::args::unit_interval)]
    pub lambda: f32,
    /// Learning rate at the start.
    #[arg(long, default_value_t = 0.02, value_parser = crate::args::positive)]
    pub alpha: f32,
    /// Learning rate it decays to.
    #[arg(long, default_value_t = 0.002, value_parser = crate::args::positive)]
    pub alpha_end: f32,
    /// Games over which the learning rate's excess over --alpha-end halves.
    #[arg(long, default_value_t = 200_000.0, value_parser = crate::args::positive_f64)]
    pub half_life: f64,
    /// Hidden units of the contact net (new runs; a multiple of 32 up to
    /// 512).
    #[arg(long, default_value_t = 128, value_parser = parse_hidden)]
    pub hidden: usize,
    /// Hidden units of the race net (new runs; a multiple of 32 up to 512).
    #[arg(long, default_value_t = 64, value_parser = parse_hidden)]
    pub race_hidden: usize,
    /// Units of a second hidden layer in the contact net (new runs; a
    /// multiple of 8 up to 128).
    #[arg(long)]
    pub hidden2: Option<usize>,
    /// Input layout of a new run: 2 or 3 (the shipped net's; see
    /// engine/src/evaluation/inputs.rs).
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(2..=3))]
    pub layout: u32,
    /// Independent game streams per round (fixes the result; threads do not).
    #[arg(long, default_value_t = 2, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=256))]
    pub shards: usize,
    /// Games per stream per round.
    #[arg(long, default_value_t = 16, value_parser = crate::args::count)]
    pub round_games: u64,
    /// Games between checkpoints.
    #[arg(long, default_value_t = 10_000, value_parser = crate::args::count)]
    pub checkpoint_every: u64,
    /// Games between strength checks against pubeval and the previous check
    /// (0: none).
    #[arg(long, default_value_t = 20_000)]
    pub check_every: u64,
    /// Duplicate-dice pairs (two games each) per strength check.
    #[arg(long, default_value_t = 500)]
    pub check_pairs: u64,
    /// Start afresh even if the checkpoint exists (it is overwritten).
    #[arg(long)]
    pub fresh: bool,
}

/// Options of `train expert`.
#[derive(Args, Debug)]
pub struct ExpertArgs {
    #[command(flatten)]
    pub out: TrainOutput,
    /// What the search labels: `search` (each sampled position's value,
    /// fitted by its error), `luck` (each position's value as a rollout's
    /// luck pass measures it: a shortlisted 1-ply, the labels of a luck
    /// yardstick; `--ply` is then unused) or `decisions:K` (one roll of each position
    /// with its best K plays at 0-ply, fitted to lower the search's regret
    /// of the play the nets choose) or `disputed:K` (the same, only for the
    /// rolls where a 1-ply search would choose another play than 0-ply:
    /// the deep search is spent where the net is wrong).
    #[arg(long, value_parser = parse_labels)]
    pub labels: LabelSource,
    /// Search depth of the labels.
    #[arg(long, default_value_t = 1, value_parser = crate::position_cmd::ply_arg)]
    pub ply: u32,
    /// Rounds of sample, label and fit.
    #[arg(long, default_value_t = 1, value_parser = crate::args::count)]
    pub rounds: u64,
    /// Positions sampled per round.
    #[arg(long, default_value_t = 200_000, value_parser = crate::args::count_usize)]
    pub positions: usize,
    /// Passes over each round's labels (0: label only, fit nothing).
    #[arg(long, default_value_t = 2, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(0..=1_000_000))]
    pub epochs: usize,
    /// Learning rate of the fit's first pass.
    #[arg(long, default_value_t = 0.003, value_parser = crate::args::positive)]
    pub alpha: f32,
    /// Learning rate of the fit's last pass (falls geometrically from
    /// --alpha; default: the same).
    #[arg(long, value_parser = crate::args::positive)]
    pub alpha_end: Option<f32>,
    /// Fit by Adam on batches of this many labels (0: plain descent, one
    /// label at a time; Adam suits rates such as 0.0003). Decisions are
    /// always fitted by Adam.
    #[arg(long, default_value_t = 0)]
    pub batch: usize,
    /// Softmax temperature of the decision fit, in equity: plays closer
    /// than this are nearly a toss-up to the fit.
    #[arg(long, default_value_t = 0.02, value_parser = crate::args::positive)]
    pub temperature: f32,
    /// Weight of the decision fit's pull back to the nets' own 0-ply
    /// outputs (keeps their values where the choices were right).
    #[arg(long, default_value_t = 1.0, value_parser = crate::args::non_negative)]
    pub anchor: f32,
    /// Anchor the decision fit to the checkpoint's own 0-ply outputs as
    /// the fit starts, not the labelling net's kept in the labels: for
    /// decisions fitted after the checkpoint has moved (calibrated to
    /// rollouts, say), whose stored anchors would pull it back.
    #[arg(long)]
    pub reanchor: bool,
    /// Label with this weights file's search instead of the checkpoint's
    /// own (e.g. an ensemble teaching a single net).
    #[arg(long)]
    pub teacher: Option<PathBuf>,
    /// Keep each round's labels in this directory (`round-N.labels` or
    /// `round-N.decisions`) and reuse them when present. Labels are kept in
    /// pieces as they are made, so a stopped run resumes where it stopped.
    #[arg(long)]
    pub cache: Option<PathBuf>,
    /// Label only shard I of N (`I/N`, I from 0) of each round's pieces,
    /// so runs on several machines or sessions share one sample in the same
    /// --cache; the run that completes the set fits.
    #[arg(long, value_parser = parse_shard, requires = "cache")]
    pub shard: Option<Shard>,
    /// Label and fit only the sampled positions of this phase, leaving
    /// the other net as it is (e.g. `race`: the race net alone);
    /// --positions counts the sample before this filter.
    #[arg(long, value_enum)]
    pub phase: Option<PhaseArg>,
    /// Fit only this net, the others left as they are though they value
    /// some of the labels' plays (e.g. `blitz`: a blitz net taught beside
    /// the contact net; the checkpoint must have one, see `train weights
    /// splice --blitz`).
    #[arg(long, value_enum)]
    pub fit_net: Option<NetArg>,
    /// Label and fit only the sampled positions of this class (holding
    /// games, say); --positions counts the sample before this filter.
    #[arg(long, value_enum, default_value = "all")]
    pub class: ClassArg,
    /// Label these positions instead of self-play's: a file with one
    /// position a line as the commands read them (Position ID,
    /// PositionID:MatchID or XGID; only the board counts, the labels are
    /// cubeless), `#` lines and blank lines skipped. Each round draws
    /// --positions of them in an order set by its seed.
    #[arg(long)]
    pub sample: Option<PathBuf>,
    /// Label the boards --sample's positions lead to after this many turns
    /// of the nets' own play (the best 0-ply play of a random roll) instead
    /// of the positions themselves: new boards near real play's.
    #[arg(long, default_value_t = 0, requires = "sample")]
    pub sample_walk: u32,
    /// Seed of the samples and rolls.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Duplicate-dice pairs (two games each) of the check after each round.
    #[arg(long, default_value_t = 500)]
    pub check_pairs: u64,
}

/// Options of `train calibrate`.
#[derive(Args, Debug)]
pub struct CalibrateArgs {
    #[command(flatten)]
    pub out: TrainOutput,
    /// Label file: the rollouts, kept in pieces beside it as they are made
    /// (a stopped run resumes) and reused when it exists.
    #[arg(long)]
    pub labels: PathBuf,
    /// Positions sampled from self-play or --sample (before keeping
    /// --phase's).
    #[arg(long, default_value_t = 10_000, value_parser = crate::args::count_usize)]
    pub positions: usize,
    /// Rollout trials per position (cubeless, 0-ply, to the end).
    #[arg(long, default_value_t = 36, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub trials: u32,
    /// The net calibrated; the other stays as it is.
    #[arg(long, value_enum, default_value = "contact")]
    pub phase: PhaseArg,
    /// Which sampled positions are rolled out.
    #[arg(long, value_enum, default_value = "all")]
    pub class: ClassArg,
    /// Roll out these positions instead of self-play's (real play's,
    /// whose chances the net's own games do not teach): a file with one
    /// position a line as --sample of `train expert` reads it, drawn
    /// --positions at a time in an order set by --seed.
    #[arg(long)]
    pub sample: Option<PathBuf>,
    /// Roll out the boards --sample's positions lead to after this many
    /// turns of the net's own play instead of the positions themselves.
    #[arg(long, default_value_t = 0, requires = "sample")]
    pub sample_walk: u32,
    /// What is fitted to the rollouts: `outputs` (each output's logit
    /// rescaled, the hidden layers kept) or `net` (the whole net, with
    /// --anchors times as many other positions held at its own values).
    #[arg(long, value_enum, default_value = "outputs")]
    pub fit: FitArg,
    /// Passes over the labels of `--fit net`.
    #[arg(long, default_value_t = 10, value_parser = crate::args::count_usize)]
    pub epochs: usize,
    /// Learning rate of `--fit net`'s first pass (it falls to a tenth).
    #[arg(long, default_value_t = 0.0003, value_parser = crate::args::positive)]
    pub alpha: f32,
    /// Positions held at the net's own values per rolled-out position
    /// (`--fit net`; 0 to 100).
    #[arg(long, default_value_t = 1, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(0..=100))]
    pub anchors: usize,
    /// Label only shard I of N (`I/N`) of the pieces, so several machines
    /// share one sample in the same label file's folder; the run that
    /// completes the set fits.
    #[arg(long, value_parser = parse_shard)]
    pub shard: Option<Shard>,
    /// Seed of the sample and the rollouts' dice.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// Options of `train prefilter`.
#[derive(Args, Debug)]
pub struct PrefilterArgs {
    #[command(flatten)]
    pub out: TrainOutput,
    /// Positions sampled from the checkpoint's self-play; each contact
    /// one gives a roll with all its plays valued by the contact net.
    #[arg(long, default_value_t = 1_000_000, value_parser = crate::args::count_usize)]
    pub positions: usize,
    /// Hidden units of the pre-filter: 32 or 64.
    #[arg(long, default_value_t = 32, value_parser = parse_prefilter_hidden)]
    pub hidden: usize,
    /// Passes over the labels.
    #[arg(long, default_value_t = 6, value_parser = crate::args::count_usize)]
    pub epochs: usize,
    /// Adam's learning rate of the first pass (it falls to a tenth).
    #[arg(long, default_value_t = 0.003, value_parser = crate::args::positive)]
    pub alpha: f32,
    /// Plays per Adam step.
    #[arg(long, default_value_t = 64, value_parser = crate::args::count_usize)]
    pub batch: usize,
    /// Seed of the sample, the rolls and the fit.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// The positions `train calibrate --class` rolls out.
#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub enum ClassArg {
    /// Every sampled position of the phase.
    All,
    /// Back games: a side holding two or more points in the other's home
    /// board, trailing the race by 30 pips or more.
    BackGame,
    /// Blitzes: a side on the bar against four or more closed points of
    /// the other's home board, or two or more on the bar against three.
    Blitz,
    /// Holding games: a side holding two or more points in the other's
    /// home board, whatever the race.
    TwoAnchors,
}

impl From<ClassArg> for PositionClass {
    fn from(c: ClassArg) -> PositionClass {
        match c {
            ClassArg::All => PositionClass::All,
            ClassArg::BackGame => PositionClass::BackGame,
            ClassArg::Blitz => PositionClass::Blitz,
            ClassArg::TwoAnchors => PositionClass::TwoAnchors,
        }
    }
}

/// What `train calibrate --fit` fits.
#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub enum FitArg {
    /// Each output's logit rescaled.
    Outputs,
    /// The whole net.
    Net,
}

/// The net a `train expert --phase` round teaches.
#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub enum PhaseArg {
    /// Positions where the sides can still hit each other.
    Contact,
    /// Pure races.
    Race,
}

/// The net a `train expert --fit-net` round fits.
#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub enum NetArg {
    /// The contact net.
    Contact,
    /// The race net.
    Race,
    /// The blitz net.
    Blitz,
    /// The back-game net.
    BackGame,
}

impl From<NetArg> for NetClass {
    fn from(n: NetArg) -> NetClass {
        match n {
            NetArg::Contact => NetClass::Contact,
            NetArg::Race => NetClass::Race,
            NetArg::Blitz => NetClass::Blitz,
            NetArg::BackGame => NetClass::BackGame,
        }
    }
}

impl From<PhaseArg> for Phase {
    fn from(p: PhaseArg) -> Phase {
        match p {
            PhaseArg::Contact => Phase::Contact,
            PhaseArg::Race => Phase::Race,
        }
    }
}

/// `train weights ...`: weights from weights.
#[derive(Subcommand, Debug)]
pub enum WeightsOp {
    /// The mean of several weights files of one shape (late checkpoints
    /// of one run).
    Average(FoldArgs),
    /// One net that averages the output logits of independently trained
    /// weights files (their hidden layers side by side: slower to
    /// evaluate, stronger).
    Ensemble(FoldArgs),
    /// The contact net of one weights file with the race net of another
    /// (a race net trained apart, shipped beside a contact net), with
    /// another's contact net as its blitz net, or with another's contact
    /// net as the rollouts' luck yardstick.
    Splice(SpliceArgs),
    /// Print a weights file's facts as its model card shows them (size
    /// and digest, input layout, each net's shape, what its training
    /// record holds), in Markdown.
    Card {
        /// The weights file.
        file: PathBuf,
    },
}

/// The files a splice takes its nets from.
#[derive(Args, Debug)]
#[command(group = clap::ArgGroup::new("spliced").required(true).multiple(true).args(["race", "blitz", "back_game", "luck", "promote_luck"]))]
pub struct SpliceArgs {
    /// The file whose contact net is kept.
    #[arg(long)]
    pub contact: PathBuf,
    /// The file whose race net is taken.
    #[arg(long)]
    pub race: Option<PathBuf>,
    /// The file whose contact net becomes the blitz net (it values the
    /// blitzes the kept contact net valued until then).
    #[arg(long)]
    pub blitz: Option<PathBuf>,
    /// The file whose contact net becomes the back-game net (it values
    /// the back games the kept contact net valued until then).
    #[arg(long)]
    pub back_game: Option<PathBuf>,
    /// The file whose contact net measures the dice's luck in rollouts
    /// (a net fitted for self-consistency; the kept nets still play).
    #[arg(long)]
    pub luck: Option<PathBuf>,
    /// Play with the contact file's luck net in place of its contact net
    /// (the next round of value iteration starts from the yardstick).
    #[arg(long)]
    pub promote_luck: bool,
    /// Where the result is written.
    #[arg(long)]
    pub out: PathBuf,
}

/// The files folded and where the result goes.
#[derive(Args, Debug)]
pub struct FoldArgs {
    /// The weights files.
    #[arg(required = true, num_args = 2..)]
    pub files: Vec<PathBuf>,
    /// Where the result is written.
    #[arg(long)]
    pub out: PathBuf,
}

/// Reads `search`, `luck`, `decisions:K` or `disputed:K`.
fn parse_labels(s: &str) -> Result<LabelSource, String> {
    let expected = || "expected `search`, `luck`, `decisions:K` or `disputed:K`".to_string();
    match s {
        "search" => return Ok(LabelSource::Search),
        "luck" => return Ok(LabelSource::Luck),
        _ => {}
    }
    let (kind, k) = s.split_once(':').ok_or_else(expected)?;
    let disputed = match kind {
        "decisions" => false,
        "disputed" => true,
        _ => return Err(expected()),
    };
    match k.parse::<usize>() {
        Ok(keep) if keep >= 2 => Ok(LabelSource::Decisions { keep, disputed }),
        _ => Err(format!("{kind}:{k}: give 2 or more plays per roll")),
    }
}

/// Reads a hidden layer's width: the evaluator works in blocks of
/// [`BLOCK`] units.
fn parse_hidden(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if n > 0 && n % BLOCK == 0 && n <= MAX_HIDDEN => Ok(n),
        _ => Err(format!(
            "{s}: give a multiple of {BLOCK} up to {MAX_HIDDEN}"
        )),
    }
}

/// Reads a pre-filter's width: 32 or 64 hidden units.
fn parse_prefilter_hidden(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if n > 0 && n % BLOCK == 0 && n <= MAX_PREFILTER_HIDDEN => Ok(n),
        _ => Err(format!("{s}: give 32 or 64")),
    }
}

/// Reads `I/N` with I below N.
fn parse_shard(s: &str) -> Result<Shard, String> {
    let (i, n) = s.split_once('/').ok_or("expected I/N, as 0/4")?;
    match (i.parse::<usize>(), n.parse::<usize>()) {
        (Ok(index), Ok(count)) if index < count => Ok(Shard { index, count }),
        _ => Err(format!("{s}: expected I/N with I from 0 to N-1")),
    }
}

/// Runs `sheshbesh train`.
pub fn run(a: TrainArgs) -> Result<()> {
    run_as(a, std::env::args().collect::<Vec<_>>().join(" "))
}

/// Runs `sheshbesh train` recorded in the weights' provenance as `command`.
pub fn run_as(a: TrainArgs, command: String) -> Result<()> {
    match a.mode {
        TrainMode::Selfplay(s) => selfplay(s, command),
        TrainMode::Expert(e) => expert(e, command),
        TrainMode::Calibrate(c) => calibrate(c, command),
        TrainMode::Prefilter(p) => prefilter(p, command),
        TrainMode::Weights { op } => weights_op(op),
    }
}

fn progress(out: &TrainOutput) -> bool {
    !out.quiet && std::io::IsTerminal::is_terminal(&std::io::stderr())
}

fn selfplay(a: SelfplayArgs, command: String) -> Result<()> {
    let cfg = SelfplayConfig {
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
        layout: Layout::from_id(a.layout).expect("clap keeps --layout to 2 or 3"),
        shards: a.shards.max(1),
        round_games: a.round_games.max(1),
        checkpoint: a.out.checkpoint.clone(),
        checkpoint_every: a.checkpoint_every.max(1),
        check_every: a.check_every,
        check_pairs: a.check_pairs,
        resume: !a.fresh,
        command,
        progress: progress(&a.out),
    };
    let (_, prov) = train(&cfg)?;
    report(&a.out, &prov)
}

fn expert(a: ExpertArgs, command: String) -> Result<()> {
    let (_, prov) = a.job(a.rounds, command)?.run()?;
    report(&a.out, &prov)
}

fn calibrate(a: CalibrateArgs, command: String) -> Result<()> {
    let cfg = CalibrateConfig {
        sample: sample_source(a.sample.as_deref(), a.sample_walk)?,
        positions: a.positions,
        trials: a.trials,
        phase: a.phase.into(),
        class: a.class.into(),
        fit: match a.fit {
            FitArg::Outputs => CalibrationFit::Outputs,
            FitArg::Net => CalibrationFit::Net {
                epochs: a.epochs,
                alpha: a.alpha,
                anchors: a.anchors,
            },
        },
        seed: a.seed,
        shard: a.shard.unwrap_or(Shard::ALL),
    };
    let job = CalibrateJob {
        checkpoint: a.out.checkpoint.clone(),
        labels: a.labels.clone(),
        command,
        config: cfg,
    };
    let Some(c) = job.run()? else {
        println!("labelled this shard's pieces; the run that completes the set fits");
        return Ok(());
    };
    if a.out.json {
        println!("{}", serde_json::to_string(&c)?);
        return Ok(());
    }
    let fitted = match c.fit {
        CalibrationFit::Outputs => "its outputs rescaled".to_string(),
        CalibrationFit::Net {
            epochs,
            alpha,
            anchors,
        } => format!(
            "the whole net fitted ({epochs} passes from rate {alpha}, {anchors} anchors a label)"
        ),
    };
    println!(
        "calibrated the {} net on {} rollouts of {} trials ({} held out), {fitted}; checkpoint {}",
        c.net,
        c.labels,
        c.trials,
        c.held_out,
        a.out.checkpoint.display()
    );
    let outputs = matches!(c.fit, CalibrationFit::Outputs);
    println!(
        "output  {}held-out bias before/after   rmse before/after",
        if outputs { "scale   shift   " } else { "" }
    );
    for (k, name) in ["win", "win g", "win bg", "lose g", "lose bg"]
        .iter()
        .enumerate()
    {
        let (p, b, f) = (c.outputs[k], c.before[k], c.after[k]);
        let platt = if outputs {
            format!("{:6.3} {:+7.3}   ", p.scale, p.shift)
        } else {
            String::new()
        };
        println!(
            "{name:<7} {platt}{:+.4} / {:+.4}            {:.4} / {:.4}",
            b.bias, f.bias, b.rmse, f.rmse
        );
    }
    Ok(())
}

fn prefilter(a: PrefilterArgs, command: String) -> Result<()> {
    let cfg = PrefilterConfig {
        positions: a.positions,
        hidden: a.hidden,
        epochs: a.epochs,
        alpha: a.alpha,
        batch: a.batch,
        seed: a.seed,
    };
    let path = &a.out.checkpoint;
    let (mut ev, prov) = checkpoint::load(path)?;
    let show = progress(&a.out);
    let (p, report) = distil(&ev, &cfg, |pass| {
        if show {
            eprintln!("pass {pass} of {}", cfg.epochs);
        }
    });
    ev.prefilter = Some(std::sync::Arc::new(p));
    let mut prov = prov.unwrap_or_else(|| Provenance::new(&command, a.seed));
    prov.prefilter = Some(PrefilterStep {
        command,
        config: cfg,
        report: report.clone(),
    });
    checkpoint::save(path, &ev, &prov)?;
    if a.out.json {
        println!("{}", serde_json::to_string(&report)?);
        return Ok(());
    }
    println!(
        "distilled a pre-filter from {} rolls into {}; on {} held-out rolls the teacher's best play is among the first k:",
        report.fitted,
        path.display(),
        report.prefilter.rolls
    );
    println!("k   pre-filter  pubeval");
    for (&(k, ours), &(_, theirs)) in report.prefilter.rates.iter().zip(&report.pubeval.rates) {
        println!("{k:<3} {:>9.1}%  {:>6.1}%", 100.0 * ours, 100.0 * theirs);
    }
    println!(
        "mean equity lost by the best of the first {PREFILTER_KEEP}: pre-filter {:.5}, pubeval {:.5}",
        report.prefilter.mean_loss, report.pubeval.mean_loss
    );
    Ok(())
}

impl ExpertArgs {
    /// The trainer's job of `train expert` with these options: `rounds`
    /// rounds, recorded in the checkpoint as `command`. Fails on a
    /// `--sample` file it cannot read, naming the line.
    pub fn job(&self, rounds: u64, command: String) -> Result<ExpertJob> {
        if self.reanchor && !matches!(self.labels, LabelSource::Decisions { .. }) {
            bail!("--reanchor is for decision labels (--labels decisions:K or disputed:K)");
        }
        let sample = sample_source(self.sample.as_deref(), self.sample_walk)?;
        Ok(ExpertJob {
            checkpoint: self.out.checkpoint.clone(),
            seed: self.seed,
            rounds,
            check_pairs: self.check_pairs,
            command,
            round: ExpertConfig {
                labels: self.labels,
                positions: self.positions,
                ply: self.ply,
                epochs: self.epochs,
                alpha: self.alpha,
                alpha_end: self.alpha_end.unwrap_or(self.alpha),
                sample,
                teacher: self.teacher.clone(),
                cache_dir: self.cache.clone(),
                shard: self.shard.unwrap_or(Shard::ALL),
                batch: self.batch,
                temperature: self.temperature,
                anchor: self.anchor,
                phase: self.phase.map(Phase::from),
                fit_net: self.fit_net.map(NetClass::from),
                class: self.class.into(),
                reanchor: self.reanchor,
            },
        })
    }
}

/// Where `--sample FILE --sample-walk N` say positions come from:
/// self-play without a file.
fn sample_source(sample: Option<&std::path::Path>, walk: u32) -> Result<SampleSource> {
    Ok(match sample {
        None => SampleSource::SelfPlay { explore: 0.1 },
        Some(path) => SampleSource::Listed {
            boards: read_sample(path)?,
            walk,
        },
    })
}

/// The positions of a `--sample` file.
fn read_sample(path: &std::path::Path) -> Result<Vec<Position>> {
    let bad = || format!("bad sample \"{}\"", path.display());
    let bytes =
        read_bounded(path, TEXT_LIMIT).with_context(|| format!("{}: cannot read", bad()))?;
    let text = String::from_utf8(bytes).map_err(|_| anyhow!("{}: not UTF-8 text", bad()))?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        let input = parse_position(t).map_err(|e| anyhow!("{} line {}: {e}", bad(), i + 1))?;
        out.push(input.position);
    }
    if out.is_empty() {
        bail!("{}: no positions", bad());
    }
    Ok(out)
}

fn report(out: &TrainOutput, prov: &Provenance) -> Result<()> {
    if out.json {
        println!(
            "{}",
            json!({"checkpoint": out.checkpoint, "games": prov.games, "seconds": prov.seconds, "checks": prov.checks})
        );
    } else {
        println!(
            "trained {} games in {:.0} s; checkpoint {}",
            prov.games,
            prov.seconds,
            out.checkpoint.display()
        );
    }
    Ok(())
}

fn weights_op(op: WeightsOp) -> Result<()> {
    let (ev, prov, what, out) = match op {
        WeightsOp::Card { file } => {
            let bytes = read_bounded(&file, weights::FILE_LIMIT)
                .with_context(|| format!("bad weights \"{}\": cannot read", file.display()))?;
            let facts = card::facts(&bytes)
                .with_context(|| format!("bad weights \"{}\"", file.display()))?;
            print!("{facts}");
            return Ok(());
        }
        WeightsOp::Average(f) => {
            let (ev, prov) = surgery::average(&f.files)?;
            (ev, prov, format!("averaged {} files", f.files.len()), f.out)
        }
        WeightsOp::Ensemble(f) => {
            let (ev, prov) = surgery::ensemble(&f.files)?;
            let what = format!(
                "ensemble of {} files ({} contact hidden units)",
                f.files.len(),
                ev.contact.hidden()
            );
            (ev, prov, what, f.out)
        }
        WeightsOp::Splice(f) => {
            let (ev, prov) = surgery::splice(&surgery::SpliceFrom {
                contact: &f.contact,
                race: f.race.as_deref(),
                blitz: f.blitz.as_deref(),
                back_game: f.back_game.as_deref(),
                luck: f.luck.as_deref(),
                promote_luck: f.promote_luck,
            })?;
            let kept = if f.promote_luck {
                "luck net promoted to contact net"
            } else {
                "contact net"
            };
            let mut what = format!(
                "{kept} of {} ({} hidden units)",
                f.contact.display(),
                ev.contact.hidden()
            );
            if let Some(race) = &f.race {
                what += &format!(", race net of {} ({})", race.display(), ev.race.hidden());
            }
            if let Some(blitz) = &f.blitz {
                what += &format!(", blitz net: contact net of {}", blitz.display());
            }
            if let Some(back_game) = &f.back_game {
                what += &format!(", back-game net: contact net of {}", back_game.display());
            }
            if let Some(luck) = &f.luck {
                what += &format!(", luck net: contact net of {}", luck.display());
            }
            (ev, prov, what, f.out)
        }
    };
    checkpoint::save(&out, &ev, &prov)?;
    println!("{what} into {}", out.display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prefilter_has_32_or_64_hidden_units() {
        assert_eq!(parse_prefilter_hidden("32"), Ok(32));
        assert_eq!(parse_prefilter_hidden("64"), Ok(64));
        for bad in ["0", "16", "96", "x"] {
            assert_eq!(
                parse_prefilter_hidden(bad),
                Err(format!("{bad}: give 32 or 64"))
            );
        }
    }

    #[test]
    fn label_sources_are_read_and_bad_ones_named() {
        assert_eq!(parse_labels("search"), Ok(LabelSource::Search));
        assert_eq!(parse_labels("luck"), Ok(LabelSource::Luck));
        for (text, disputed) in [("decisions:8", false), ("disputed:8", true)] {
            assert_eq!(
                parse_labels(text),
                Ok(LabelSource::Decisions { keep: 8, disputed })
            );
        }
        assert_eq!(
            parse_labels("disputed:1"),
            Err("disputed:1: give 2 or more plays per roll".to_string())
        );
        for bad in ["decisions", "rollouts:8", ""] {
            let err = parse_labels(bad).unwrap_err();
            assert!(err.starts_with("expected `search`"), "{bad}: {err}");
        }
    }
}
