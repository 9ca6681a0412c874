//! Calibration: a net's chances refitted to its own rollouts.
//!
//! A play's rank needs only the order of the net's values; a cube
//! decision and a play at a match score price the chances themselves, and
//! there the net's static estimate can be off where its own games are
//! not: its gammons run short (TD carries a game's end back to the middle
//! game short), and it rates the side facing a back game too likely to
//! win. Full cubeless rollouts of positions sampled from self-play,
//! played by the same nets, say what the chances are; this job labels
//! positions with them ([`PositionClass`]: all of a phase, or one class
//! such as back games) and fits the net to them ([`CalibrationFit`]):
//! - each output's logit `z` rescaled to `a z + b` (Platt scaling), the
//!   hidden layers untouched: two numbers per output cannot learn the
//!   labels' noise, and the result is the same net with its output layer
//!   scaled, nothing added at inference;
//! - or the whole net, the labels mixed with other positions held at the
//!   net's own values, so that it moves only where the rollouts reach.
//!
//! What each measured is in docs/experiments/2026-12-05-cube-accuracy.md.

use std::path::Path;
use std::sync::atomic::AtomicBool;

use anyhow::Result;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use sheshbesh_engine::evaluation::evaluator::{
    sanitize, Evaluator, NetClass, NetEvaluator, Phase, BACK_GAME_NET, BLITZ_NET,
};
use sheshbesh_engine::evaluation::inputs::SparseInputs;
use sheshbesh_engine::evaluation::net::OUTPUTS;
use sheshbesh_engine::rollout::{rollout, RolloutSettings};
use sheshbesh_engine::{Position, Probs};

use crate::classes::PositionClass;
use crate::expert::{fit, SampleSource};
use crate::labels::{held_out_split, label_in_pieces, load_examples, sample, Example, Shard};

/// Settings of a calibration.
#[derive(Clone, Debug)]
pub struct CalibrateConfig {
    /// Where the positions come from: the net's self-play, or a list (real
    /// play's positions, whose chances the net's own games do not teach).
    pub sample: SampleSource,
    /// Positions sampled (before keeping one phase's).
    pub positions: usize,
    /// Rollout trials per position (full, cubeless, 0-ply, luck-adjusted).
    pub trials: u32,
    /// The net calibrated; the other is left as it is.
    pub phase: Phase,
    /// Which of the sampled positions are rolled out.
    pub class: PositionClass,
    /// What is fitted to the rollouts.
    pub fit: CalibrationFit,
    /// Seed of the sample and of the rollouts' dice.
    pub seed: u64,
    /// This run's share of the labelling.
    pub shard: Shard,
}

/// What a calibration fits to the rollouts.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum CalibrationFit {
    /// Each output's logit rescaled ([`Platt`]); the hidden layers kept.
    Outputs,
    /// The whole net, by Adam on batches of 64 at a rate falling from
    /// `alpha` to a tenth of it over `epochs` passes, the rollouts mixed
    /// with `anchors` times as many other positions of the phase labelled
    /// by the net's own 0-ply before the fit (which hold the net where the
    /// rollouts do not reach).
    Net {
        /// Passes over the labels.
        epochs: usize,
        /// Learning rate of the first pass.
        alpha: f32,
        /// Anchor positions per rolled-out position.
        anchors: usize,
    },
}

/// One output's calibration: its logit `z` becomes `scale * z + shift`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Platt {
    /// Multiplies the logit.
    pub scale: f32,
    /// Added after.
    pub shift: f32,
}

impl Platt {
    /// No change.
    pub const IDENTITY: Platt = Platt {
        scale: 1.0,
        shift: 0.0,
    };
}

/// How well one output fits the held-out labels.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct OutputFit {
    /// Mean label minus mean net output.
    pub bias: f64,
    /// Root-mean-square difference.
    pub rmse: f64,
}

/// What a calibration did, kept in the weights' training record.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Calibration {
    /// The command that ran it.
    pub command: String,
    /// Labels fitted (the held-out share excluded).
    pub labels: usize,
    /// Labels held out to measure the fit by.
    pub held_out: usize,
    /// Rollout trials per label.
    pub trials: u32,
    /// The net calibrated (`contact`, `race` or `blitz`).
    pub net: String,
    /// The positions rolled out.
    pub class: PositionClass,
    /// What was fitted.
    pub fit: CalibrationFit,
    /// Each output's calibration (win, win gammon, win backgammon, lose
    /// gammon, lose backgammon); the identity when the whole net was fitted.
    pub outputs: [Platt; OUTPUTS],
    /// Each output on the held-out labels before.
    pub before: [OutputFit; OUTPUTS],
    /// And after.
    pub after: [OutputFit; OUTPUTS],
}

/// The sample a calibration labels: positions of `cfg.sample` of
/// `cfg.phase` and `cfg.class`.
pub fn positions(ev: &NetEvaluator, cfg: &CalibrateConfig) -> Vec<Position> {
    cfg.sample
        .draw(ev, cfg.positions, cfg.seed)
        .into_iter()
        .filter(|p| Phase::of(p) == cfg.phase && cfg.class.holds(p))
        .collect()
}

/// Each of `positions[range]` labelled by a cubeless 0-ply rollout of
/// `trials` trials played to the end by `ev`; position `i`'s dice are
/// seeded by `seed` and `i`, so pieces label alike wherever they run.
pub fn rollout_labels(
    ev: &NetEvaluator,
    positions: &[Position],
    range: std::ops::Range<usize>,
    trials: u32,
    seed: u64,
) -> Vec<Example> {
    let stop = AtomicBool::new(false);
    range
        .into_par_iter()
        .map(|i| {
            let position = positions[i];
            let s = RolloutSettings {
                trials,
                seed: seed ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15),
                ..RolloutSettings::default()
            };
            let r = rollout(ev, &position, &s, &stop, |_| {});
            Example {
                phase: Phase::of(&position),
                position,
                target: Probs(r.probs.0.map(|v| v.clamp(0.0, 1.0))),
            }
        })
        .collect()
}

/// The labels in `labels` when the file exists (a second fit does not
/// roll out again); otherwise the sample labelled in pieces kept beside it
/// (resumable, shardable as [`label_in_pieces`] is); `None` while other
/// shards' pieces are missing.
pub fn label(
    ev: &NetEvaluator,
    cfg: &CalibrateConfig,
    labels: &Path,
) -> Result<Option<Vec<Example>>> {
    if labels.exists() {
        return Ok(Some(load_examples(labels)?));
    }
    let sample = positions(ev, cfg);
    label_in_pieces(labels, &sample, cfg.seed, cfg.shard, |range| {
        rollout_labels(ev, &sample, range, cfg.trials, cfg.seed)
    })
}

/// One output of one labelled position: the net's logit and the label.
#[derive(Clone, Copy, Debug)]
struct Point {
    logit: f64,
    target: f64,
}

/// The raw logits of `ev`'s `class` net for `pos`, with `None` for an
/// output the evaluator sets to zero there (a gammon that cannot happen):
/// those say nothing about the output's scale.
fn logits(ev: &NetEvaluator, class: NetClass, pos: &Position) -> [Option<f64>; OUTPUTS] {
    let net = ev.net(class);
    let mut x = SparseInputs::default();
    let mut act = net.activations();
    ev.encode_into(pos, &mut x);
    net.forward_unpacked(&x, &mut act);
    let raw = act.outputs();
    let kept = sanitize(pos, Probs(raw));
    std::array::from_fn(|k| {
        let p = f64::from(raw[k]).clamp(1e-7, 1.0 - 1e-7);
        (kept.0[k] > 0.0).then(|| (p / (1.0 - p)).ln())
    })
}

fn sigmoid(z: f64) -> f64 {
    1.0 / (1.0 + (-z).exp())
}

/// Pull of the fit back to the identity, per label: negligible where the
/// labels say something (a label's own curvature is of order 0.1), and
/// what keeps the fit bounded where they do not (an output nearly
/// constant over the sample, or labels it separates exactly).
const RIDGE: f64 = 1e-4;

/// The fit's loss: the labels' cross-entropy plus the ridge.
fn loss(points: &[Point], a: f64, b: f64) -> f64 {
    let ce: f64 = points
        .iter()
        .map(|p| {
            let z = a * p.logit + b;
            // -t ln q - (1 - t) ln(1 - q), stable for large |z|.
            z.max(0.0) - p.target * z + (-z.abs()).exp().ln_1p()
        })
        .sum();
    ce + 0.5 * RIDGE * points.len() as f64 * ((a - 1.0).powi(2) + b * b)
}

/// The Platt calibration of one output minimizing [`loss`] by Newton's
/// method from the identity, each step halved until the loss falls (a
/// convex problem in two unknowns, so a few steps settle it).
fn fit_platt(points: &[Point]) -> Platt {
    let n = points.len() as f64;
    let (mut a, mut b) = (1.0f64, 0.0f64);
    let mut current = loss(points, a, b);
    for _ in 0..50 {
        let (mut ga, mut gb) = (RIDGE * n * (a - 1.0), RIDGE * n * b);
        let (mut haa, mut hab, mut hbb) = (RIDGE * n, 0.0, RIDGE * n);
        for p in points {
            let q = sigmoid(a * p.logit + b);
            let (e, w) = (q - p.target, q * (1.0 - q));
            ga += e * p.logit;
            gb += e;
            haa += w * p.logit * p.logit;
            hab += w * p.logit;
            hbb += w;
        }
        let det = haa * hbb - hab * hab;
        if det <= 0.0 {
            break;
        }
        let (da, db) = ((hbb * ga - hab * gb) / det, (haa * gb - hab * ga) / det);
        let mut step = 1.0;
        let next = loop {
            let l = loss(points, a - step * da, b - step * db);
            if l <= current || step < 1e-6 {
                break l;
            }
            step *= 0.5;
        };
        if next > current {
            break;
        }
        a -= step * da;
        b -= step * db;
        current = next;
        if (step * da).abs() < 1e-9 && (step * db).abs() < 1e-9 {
            break;
        }
    }
    Platt {
        scale: a as f32,
        shift: b as f32,
    }
}

fn measure(points: &[Point], c: Platt) -> OutputFit {
    let n = points.len().max(1) as f64;
    let (mut bias, mut sq) = (0.0, 0.0);
    for p in points {
        let d = p.target - sigmoid(f64::from(c.scale) * p.logit + f64::from(c.shift));
        bias += d;
        sq += d * d;
    }
    OutputFit {
        bias: bias / n,
        rmse: (sq / n).sqrt(),
    }
}

/// Each output of `class`'s net on `examples[which]`: the net's logit
/// and the label, where the output can happen.
fn points(
    ev: &NetEvaluator,
    class: NetClass,
    examples: &[&Example],
    which: &[usize],
) -> [Vec<Point>; OUTPUTS] {
    let rows: Vec<[Option<f64>; OUTPUTS]> = which
        .par_iter()
        .map(|&i| logits(ev, class, &examples[i].position))
        .collect();
    std::array::from_fn(|k| {
        which
            .iter()
            .zip(&rows)
            .filter_map(|(&i, row)| {
                row[k].map(|logit| Point {
                    logit,
                    target: f64::from(examples[i].target.0[k]),
                })
            })
            .collect()
    })
}

/// Fits `phase`'s net to `examples` as `cfg.fit` says (a held-out share
/// of them measures the fit) and records what it did.
pub fn calibrate(
    ev: &mut NetEvaluator,
    cfg: &CalibrateConfig,
    examples: &[Example],
    command: &str,
) -> Calibration {
    let phase = cfg.phase;
    let class = taught_net(ev, phase, examples);
    let examples: Vec<&Example> = examples
        .iter()
        .filter(|e| e.phase == phase && ev.class_of(&e.position) == class)
        .collect();
    let (_, held, fitted) = held_out_split(examples.len(), cfg.seed);
    let held_before = points(ev, class, &examples, &held);
    let before = std::array::from_fn(|k| measure(&held_before[k], Platt::IDENTITY));
    let mut outputs = [Platt::IDENTITY; OUTPUTS];
    match cfg.fit {
        CalibrationFit::Outputs => {
            let fit_points = points(ev, class, &examples, &fitted);
            outputs = std::array::from_fn(|k| fit_platt(&fit_points[k]));
            let p = ev.net_mut(class).params_mut();
            for (k, c) in outputs.iter().enumerate() {
                p.w2.row_mut(k).mapv_inplace(|w| w * c.scale);
                p.b2[k] = p.b2[k] * c.scale + c.shift;
            }
        }
        CalibrationFit::Net {
            epochs,
            alpha,
            anchors,
        } => {
            let mut all: Vec<Example> = fitted.iter().map(|&i| examples[i].clone()).collect();
            all.extend(anchor_examples(ev, cfg, anchors * fitted.len()));
            fit(
                ev,
                &all,
                epochs,
                (alpha, alpha / 10.0),
                64,
                cfg.seed ^ 0xCA1,
                Some(class),
            );
        }
    }
    let held_after = points(ev, class, &examples, &held);
    let after = std::array::from_fn(|k| measure(&held_after[k], Platt::IDENTITY));
    Calibration {
        command: command.to_string(),
        labels: fitted.len(),
        held_out: held.len(),
        trials: cfg.trials,
        net: match class {
            NetClass::Contact => "contact",
            NetClass::Race => "race",
            NetClass::Blitz => BLITZ_NET,
            NetClass::BackGame => BACK_GAME_NET,
        }
        .to_string(),
        class: cfg.class,
        fit: cfg.fit,
        outputs,
        before,
        after,
    }
}

/// The net a calibration of `phase` teaches: the one that values most of
/// the phase's labels (a game plan's net, when there is one, for its
/// blitzes or back games; the phase's net for every file without one).
/// The labels it does not value are left out.
fn taught_net(ev: &NetEvaluator, phase: Phase, examples: &[Example]) -> NetClass {
    let of_phase = || examples.iter().filter(|e| e.phase == phase);
    let count = |class| {
        of_phase()
            .filter(|e| ev.class_of(&e.position) == class)
            .count()
    };
    [NetClass::Blitz, NetClass::BackGame]
        .into_iter()
        .find(|&plan| 2 * count(plan) > of_phase().count())
        .unwrap_or(NetClass::from(phase))
}

/// `n` positions of `cfg.phase` from self-play on another seed, each
/// labelled by `ev`'s own 0-ply: a fit to them holds the net where it is.
fn anchor_examples(ev: &NetEvaluator, cfg: &CalibrateConfig, n: usize) -> Vec<Example> {
    let mut out: Vec<Example> = sample(ev, n * 2 + 64, 0.1, cfg.seed ^ 0xA4C4)
        .into_iter()
        .filter(|p| Phase::of(p) == cfg.phase)
        .take(n)
        .map(|position| Example {
            phase: cfg.phase,
            position,
            target: Probs::default(),
        })
        .collect();
    let positions: Vec<Position> = out.iter().map(|e| e.position).collect();
    let mut values = vec![Probs::default(); positions.len()];
    ev.eval_batch(&positions, &mut values);
    for (e, v) in out.iter_mut().zip(values) {
        e.target = v;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn platt_scaling_recovers_a_known_distortion() {
        // Labels made by a = 1.3, b = 0.4 from logits spread over -4..4:
        // the fit must find those numbers (to the ridge's small pull), not
        // the identity it starts at.
        let points: Vec<Point> = (0..400)
            .map(|i| {
                let logit = -4.0 + 8.0 * f64::from(i) / 399.0;
                Point {
                    logit,
                    target: sigmoid(1.3 * logit + 0.4),
                }
            })
            .collect();
        let c = fit_platt(&points);
        assert!((c.scale - 1.3).abs() < 2e-3, "{c:?}");
        assert!((c.shift - 0.4).abs() < 2e-3, "{c:?}");
        assert!(measure(&points, c).rmse < 1e-3);
        assert!(measure(&points, Platt::IDENTITY).rmse > 0.01);
    }

    #[test]
    fn the_committed_back_game_labels_read_back_and_are_back_games() {
        // The rollouts the shipped net's back-game fit was made from, and
        // those of real play's deep back games walked on, kept for the
        // next fit (data/labels/README.md): checksummed, every one a back
        // game, every label a probability.
        for (file, count) in [
            ("backgame-seed21.labels", 9622),
            ("backgame-deep-walks-seed141-142.labels", 7209),
        ] {
            let path = Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../data/labels")
                .join(file);
            let examples = load_examples(&path).unwrap();
            assert_eq!(examples.len(), count, "{file}");
            for e in &examples {
                assert!(PositionClass::BackGame.holds(&e.position), "{file}");
                assert!(e.target.0.iter().all(|p| (0.0..=1.0).contains(p)), "{file}");
            }
        }
    }

    #[test]
    fn the_committed_class_labels_read_back_and_are_real_play_of_their_class() {
        // Our rollouts of real play's holding games, blitzes and contact
        // positions kept for later fits (data/labels/README.md):
        // checksummed, each of its class and a board of the sample they
        // were drawn from.
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
        let sample =
            std::fs::read_to_string(Path::new(root).join("data/samples/bglab-checker.ids"))
                .unwrap();
        let listed: std::collections::HashSet<&str> = sample.lines().collect();
        for (file, class, count) in [
            ("holding-seed98.labels", PositionClass::TwoAnchors, 8663),
            ("blitz-seed131.labels", PositionClass::Blitz, 8287),
            ("real-seed96.labels", PositionClass::All, 36723),
        ] {
            let examples = load_examples(&Path::new(root).join("data/labels").join(file)).unwrap();
            assert_eq!(examples.len(), count, "{file}");
            for e in &examples {
                assert!(class.holds(&e.position), "{file}");
                let id = sheshbesh_engine::formats::position_id::encode(&e.position);
                assert!(listed.contains(id.as_str()), "{file}: {id}");
                assert!(e.target.0.iter().all(|p| (0.0..=1.0).contains(p)));
            }
        }
    }

    #[test]
    fn a_listed_sample_rolls_out_its_own_positions_of_the_phase() {
        use sheshbesh_engine::evaluation::inputs::Layout;
        let ev = crate::train::fresh(5, 32, 32, Layout::V3);
        let list = sample(&ev, 300, 0.1, 9);
        let cfg = |walk| CalibrateConfig {
            sample: SampleSource::Listed {
                boards: list.clone(),
                walk,
            },
            positions: 120,
            trials: 1,
            phase: Phase::Contact,
            class: PositionClass::All,
            fit: CalibrationFit::Outputs,
            seed: 4,
            shard: Shard::ALL,
        };
        // Drawn from the list, contact only, no more than asked for.
        let drawn = positions(&ev, &cfg(0));
        assert!(!drawn.is_empty() && drawn.len() <= 120);
        assert!(drawn.iter().all(|p| list.contains(p)));
        assert!(drawn.iter().all(|p| Phase::of(p) == Phase::Contact));
        assert_eq!(drawn, positions(&ev, &cfg(0)), "the seed sets the draw");
        // A walk rolls out boards the list leads to, not the list's own.
        let walked = positions(&ev, &cfg(1));
        assert!(walked.iter().filter(|p| !list.contains(p)).count() > walked.len() / 2);
    }

    /// A calibration of contact positions of `class` that fits the labels
    /// it is given (it rolls out none).
    fn fit_only(class: PositionClass, fit: CalibrationFit) -> CalibrateConfig {
        CalibrateConfig {
            sample: SampleSource::SelfPlay { explore: 0.1 },
            positions: 0,
            trials: 1,
            phase: Phase::Contact,
            class,
            fit,
            seed: 1,
            shard: Shard::ALL,
        }
    }

    #[test]
    fn a_calibrated_net_gives_the_calibrated_chances() {
        use sheshbesh_engine::evaluation::inputs::Layout;
        let mut ev = crate::train::fresh(5, 32, 32, Layout::V3);
        let pos = Position::start();
        let before = logits(&ev, NetClass::Contact, &pos);
        // Labels that push every output up: the fit must raise them, and
        // the net itself (not a wrapper) must then say so.
        let examples: Vec<Example> = sample(&ev, 200, 0.1, 3)
            .into_iter()
            .filter(|p| Phase::of(p) == Phase::Contact)
            .map(|position| {
                let p = ev.eval(&position);
                Example {
                    phase: Phase::Contact,
                    position,
                    target: Probs(p.0.map(|v| (v * 1.5).min(1.0))),
                }
            })
            .collect();
        assert!(examples.len() > 50);
        let cfg = fit_only(PositionClass::All, CalibrationFit::Outputs);
        let c = calibrate(&mut ev, &cfg, &examples, "test");
        let after = logits(&ev, NetClass::Contact, &pos);
        assert!(c.after[0].rmse < c.before[0].rmse, "{c:?}");
        assert!(after[0].unwrap() > before[0].unwrap());
        let k = 0;
        let expected =
            f64::from(c.outputs[k].scale) * before[k].unwrap() + f64::from(c.outputs[k].shift);
        assert!((after[k].unwrap() - expected).abs() < 1e-3);
    }

    /// Labels of a game plan's positions (blitzes, back games) teach the
    /// file's net of that plan, and only it.
    #[test]
    fn rollouts_of_a_game_plan_calibrate_its_net_alone() {
        use sheshbesh_engine::evaluation::inputs::Layout;
        for (class, plan, name) in [
            (PositionClass::Blitz, NetClass::Blitz, BLITZ_NET),
            (PositionClass::BackGame, NetClass::BackGame, BACK_GAME_NET),
        ] {
            let mut ev = crate::train::fresh(5, 32, 32, Layout::V3);
            let copy = Some(ev.contact.clone());
            match plan {
                NetClass::Blitz => ev.blitz = copy,
                _ => ev.back_game = copy,
            }
            let examples: Vec<Example> = sample(&ev, 20_000, 0.1, 3)
                .into_iter()
                .filter(|p| class.holds(p) && ev.class_of(p) == plan)
                .take(200)
                .map(|position| Example {
                    phase: Phase::Contact,
                    position,
                    target: Probs([0.9, 0.5, 0.05, 0.02, 0.0]),
                })
                .collect();
            assert!(examples.len() > 50, "{name}: {}", examples.len());
            let fit = CalibrationFit::Net {
                epochs: 2,
                alpha: 0.001,
                anchors: 1,
            };
            let cfg = fit_only(class, fit);
            let before = ev.clone();
            let c = calibrate(&mut ev, &cfg, &examples, "test");
            assert_eq!(c.net, name);
            assert!(c.after[0].rmse < c.before[0].rmse, "{c:?}");
            assert_eq!((&ev.contact, &ev.race), (&before.contact, &before.race));
            assert_ne!(ev.net(plan), before.net(plan));
        }
    }
}
