//! Expert iteration: teach the net what its own search knows.
//!
//! A round samples positions from self-play, labels them by a `ply`-ply
//! search on the current nets ([`LabelSource`]: each position's value, or
//! the whole decision of one roll), and fits the nets to those labels. The search looks
//! at every roll and reply, so its values are better informed than the
//! net's own; after fitting, the 0-ply net plays closer to the search, and
//! the next round's search starts from a stronger net. No outside engine is
//! consulted: the labels are our own search's.

use std::ops::Range;
use std::path::{Path, PathBuf};

use crate::adam::BatchFit;
use crate::backprop;
use crate::classes::PositionClass;
use crate::decisions::{self, DecisionLabel};
use crate::labels::{
    self, held_out_split, label_in_pieces, sample, Example, FitPass, LabelLines, Shard, LABEL_PIECE,
};
use anyhow::Result;
use rand::seq::SliceRandom;
use sheshbesh_engine::evaluation::evaluator::{NetClass, NetEvaluator, Phase};
use sheshbesh_engine::evaluation::inputs::SparseInputs;
use sheshbesh_engine::search::ply::MoveFilter;
use sheshbesh_engine::Position;

/// What a round's search labels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LabelSource {
    /// Each sampled position's probabilities, fitted by their error.
    Search,
    /// Each sampled position's value as a rollout's luck pass measures it
    /// with the nets ([`sheshbesh_engine::rollout::luck_pass_value`]: a
    /// 1-ply whose plays come from a shortlist), fitted by its error: the
    /// labels of a luck yardstick, whatever `ply` says.
    Luck,
    /// One roll of each sampled position with its best `keep` plays at
    /// 0-ply, each valued by the search, fitted by the search's regret of
    /// the nets' choice ([`crate::decisions`]).
    Decisions {
        /// Plays kept per roll.
        keep: usize,
        /// Keep only the rolls whose 0-ply choice a 1-ply search disputes
        /// (the search's labels are spent where the net is wrong).
        disputed: bool,
    },
}

/// Where a round's positions come from.
#[derive(Clone, Debug, PartialEq)]
pub enum SampleSource {
    /// The teacher's self-play games; `explore` is the chance that a move
    /// plays the second-best play instead of the best (variety).
    SelfPlay {
        /// Chance of the second-best play.
        explore: f64,
    },
    /// A given list (positions of real play, say: self-play never reaches
    /// many of the positions people do). Each round draws `positions` of
    /// them in an order set by its seed; those a database knows are dropped.
    Listed {
        /// The listed positions.
        boards: Vec<Position>,
        /// Turns the teacher plays on from each listed position (its best
        /// 0-ply play of a random roll) before it is labelled: 0 labels the
        /// list itself; more labels new boards near it, so a list can
        /// teach more than its own positions.
        walk: u32,
    },
}

impl SampleSource {
    /// `n` positions of this source, played by `ev` (self-play, or the
    /// walks from the list) and drawn in an order set by `seed`.
    pub fn draw(&self, ev: &NetEvaluator, n: usize, seed: u64) -> Vec<Position> {
        match self {
            SampleSource::SelfPlay { explore } => sample(ev, n, *explore, seed),
            SampleSource::Listed { boards, walk } => {
                let walked = labels::walked(ev, boards, *walk, seed);
                labels::drawn(ev, &walked, n, seed)
            }
        }
    }
}

/// Settings of an expert-iteration round.
#[derive(Clone, Debug)]
pub struct ExpertConfig {
    /// What is labelled.
    pub labels: LabelSource,
    /// Positions sampled and labelled.
    pub positions: usize,
    /// Search depth of the labels.
    pub ply: u32,
    /// Passes over the labels (0: label only, fit nothing).
    pub epochs: usize,
    /// Learning rate of the fit.
    pub alpha: f32,
    /// Learning rate of the last pass; the rate falls geometrically from
    /// `alpha` to it, so early passes move far and late ones settle.
    pub alpha_end: f32,
    /// Where the round's positions come from.
    pub sample: SampleSource,
    /// Weights whose search labels (and whose self-play samples) the
    /// positions instead of the nets being trained: a stronger, slower net
    /// (an ensemble) teaching a fast one. `None`: the nets teach themselves.
    pub teacher: Option<std::path::PathBuf>,
    /// Directory keeping each round's labels (`round-N.labels` or
    /// `round-N.decisions`), made in pieces and reused when present.
    pub cache_dir: Option<std::path::PathBuf>,
    /// The share of the labelling this run does (with `cache_dir`).
    pub shard: Shard,
    /// Fit by [`crate::adam::Adam`] on batches of this many labels (0: plain
    /// descent, one at a time; decisions always use Adam).
    pub batch: usize,
    /// Softmax temperature of the decision fit, in equity.
    pub temperature: f32,
    /// Weight of the decision fit's anchor to the nets' own outputs.
    pub anchor: f32,
    /// Label and fit only the positions of one phase, the other phase's
    /// net untouched; `None`: every position.
    pub phase: Option<Phase>,
    /// Fit only this net (the blitz net, say), the others untouched though
    /// they value some of the labels' plays; `None`: every net.
    pub fit_net: Option<NetClass>,
    /// Label only the sampled positions of this class (holding games,
    /// say): the search is spent where the net chooses worst.
    pub class: PositionClass,
    /// Anchor a decision fit to the nets being fitted (their 0-ply outputs
    /// as the fit starts) rather than to the labelling net's outputs kept
    /// in the labels: for labels fitted after the nets have moved (a
    /// calibration to rollouts, say), which the stored anchors would pull
    /// back.
    pub reanchor: bool,
}

/// Fits the nets to labelled examples: `epochs` passes at a learning rate
/// falling geometrically from `alpha` to `alpha_end`, by plain descent one
/// position at a time (`batch` 0) or by [`crate::adam::Adam`] on batches of `batch`
/// positions. Each example teaches the net that values it
/// ([`NetEvaluator::class_of`]), only `only`'s when given. A
/// [`crate::labels::HELD_OUT`] share of the examples is never fitted.
pub fn fit(
    ev: &mut NetEvaluator,
    examples: &[Example],
    epochs: usize,
    (alpha, alpha_end): (f32, f32),
    batch: usize,
    seed: u64,
    only: Option<NetClass>,
) -> Vec<FitPass> {
    let kept: Vec<Example>;
    let examples = match only {
        Some(class) => {
            kept = examples
                .iter()
                .filter(|e| ev.class_of(&e.position) == class)
                .cloned()
                .collect();
            &kept[..]
        }
        None => examples,
    };
    let (mut rng, held, mut order) = held_out_split(examples.len(), seed);
    let mut act = ev.contact.activations();
    let mut x = SparseInputs::default();
    let mut nets = BatchFit::default();
    let mut passes = Vec::with_capacity(epochs);
    for epoch in 0..epochs {
        let t = if epochs > 1 {
            epoch as f32 / (epochs - 1) as f32
        } else {
            0.0
        };
        let alpha = alpha * (alpha_end / alpha).powf(t);
        order.shuffle(&mut rng);
        let mut sq = 0.0;
        for chunk in order.chunks(batch.max(1)) {
            for &i in chunk {
                let e = &examples[i];
                ev.encode_into(&e.position, &mut x);
                let class = ev.class_of(&e.position);
                let before = if batch == 0 {
                    backprop::train(ev.net_mut(class), &x, &e.target, alpha, &mut act)
                } else {
                    nets.backward(ev, class, &x, &e.target, &mut act)
                };
                sq += f64::from((before.win() - e.target.win()).powi(2));
            }
            nets.step(ev, alpha);
        }
        let mut held_sq = 0.0;
        for &i in &held {
            let e = &examples[i];
            ev.encode_into(&e.position, &mut x);
            let now = ev.net(ev.class_of(&e.position)).eval(&x, &mut act);
            held_sq += f64::from((now.win() - e.target.win()).powi(2));
        }
        passes.push(FitPass {
            fitted: (sq / order.len().max(1) as f64).sqrt(),
            held_out: (held_sq / held.len().max(1) as f64).sqrt(),
        });
    }
    passes
}

/// One round: sample, label, fit. Returns the fit's passes (value labels:
/// their error; decisions: the regret before the fit and after each
/// pass), or `None` when this run labelled its shard and other shards'
/// pieces are still missing (nothing is fitted then).
///
/// Labelling is the expensive part (a 2-ply label costs thousands of
/// evaluations), so with a `cache` path the labels are read from it when it
/// exists; otherwise they are made in pieces kept as they come
/// ([`label_in_pieces`]), so a stopped run resumes where it stopped and a
/// second fit with other settings does not label again.
pub fn round(
    ev: &mut NetEvaluator,
    teacher: Option<&NetEvaluator>,
    cfg: &ExpertConfig,
    seed: u64,
    cache: Option<&Path>,
) -> Result<Option<Vec<FitPass>>> {
    anyhow::ensure!(
        cfg.fit_net != Some(NetClass::Blitz) || ev.blitz.is_some(),
        "--fit-net blitz: the checkpoint has no blitz net to fit (add one with `train weights splice --blitz`)"
    );
    anyhow::ensure!(
        cfg.fit_net != Some(NetClass::BackGame) || ev.back_game.is_some(),
        "--fit-net back-game: the checkpoint has no back-game net to fit (add one with `train weights splice --back-game`)"
    );
    let teacher = teacher.unwrap_or(ev);
    match cfg.labels {
        LabelSource::Search | LabelSource::Luck => {
            let labelled = labels_of(teacher, cfg, seed, cache, labels::load_examples, |w, r| {
                w.examples(r)
            })?;
            let Some(mut examples) = labelled else {
                return Ok(None);
            };
            if let Some(phase) = cfg.phase {
                examples.retain(|e| e.phase == phase);
            }
            let (alpha, batch) = ((cfg.alpha, cfg.alpha_end), cfg.batch);
            Ok(Some(fit(
                ev,
                &examples,
                cfg.epochs,
                alpha,
                batch,
                seed ^ 0xD15,
                cfg.fit_net,
            )))
        }
        LabelSource::Decisions { .. } => {
            let labelled = labels_of(teacher, cfg, seed, cache, decisions::load, |w, r| {
                w.decisions(r)
            })?;
            let Some(mut all) = labelled else {
                return Ok(None);
            };
            if let Some(phase) = cfg.phase {
                // Labels read from a file may hold every phase: a decision
                // teaches the net of its plays' positions.
                all.retain(|d| d.choices.iter().all(|c| Phase::of(&c.next) == phase));
            }
            if cfg.reanchor {
                decisions::reanchor(ev, &mut all);
            }
            let fit = decisions::DecisionFit {
                epochs: cfg.epochs,
                alpha: (cfg.alpha, cfg.alpha_end),
                batch: cfg.batch,
                temperature: cfg.temperature,
                anchor: cfg.anchor,
                only: cfg.fit_net,
            };
            Ok(Some(decisions::fit(ev, &all, &fit, seed ^ 0xD15)))
        }
    }
}

/// A round's labels: read from its file in the cache when it exists;
/// otherwise sampled and made by `label`, in pieces kept beside that file
/// when there is a cache. `None` while other shards' pieces are missing.
fn labels_of<T: LabelLines>(
    teacher: &NetEvaluator,
    cfg: &ExpertConfig,
    seed: u64,
    cache: Option<&Path>,
    load: impl FnOnce(&Path) -> Result<Vec<T>>,
    label: impl Fn(&RoundLabels, Range<usize>) -> Vec<T>,
) -> Result<Option<Vec<T>>> {
    let cache = cache.map(|p| label_file(p, cfg.labels));
    if let Some(path) = cache.as_deref().filter(|p| p.exists()) {
        return Ok(Some(load(path)?));
    }
    let work = RoundLabels::new(teacher, cfg, seed);
    match cache.as_deref() {
        Some(path) => label_in_pieces(path, &work.positions, seed, cfg.shard, |r| label(&work, r)),
        None => Ok(Some(label(&work, 0..work.positions.len()))),
    }
}

/// The file a round keeps its labels in, given the round's cache path
/// (`round-N.labels`): luck labels go to `round-N.luck`, decisions to
/// `round-N.decisions`.
pub fn label_file(cache: &Path, labels: LabelSource) -> PathBuf {
    match labels {
        LabelSource::Search => cache.to_path_buf(),
        LabelSource::Luck => cache.with_extension("luck"),
        LabelSource::Decisions { .. } => cache.with_extension("decisions"),
    }
}

/// A round's sample and its labelling, piece by piece: piece `k` is
/// positions `k * LABEL_PIECE ..` of the sample, and its text is the file
/// [`label_in_pieces`] keeps for it. Sampling and labelling depend only on
/// the teacher, the settings and the seed, so pieces made in other
/// processes or on other machines join into the labels of a local run.
pub struct RoundLabels<'a> {
    teacher: &'a NetEvaluator,
    cfg: &'a ExpertConfig,
    seed: u64,
    positions: Vec<Position>,
}

impl<'a> RoundLabels<'a> {
    /// Samples the round's positions.
    pub fn new(teacher: &'a NetEvaluator, cfg: &'a ExpertConfig, seed: u64) -> Self {
        let mut positions = cfg.sample.draw(teacher, cfg.positions, seed);
        if let Some(phase) = cfg.phase {
            positions.retain(|p| Phase::of(p) == phase);
        }
        positions.retain(|p| cfg.class.holds(p));
        RoundLabels {
            teacher,
            cfg,
            seed,
            positions,
        }
    }

    /// Pieces of the sample.
    pub fn pieces(&self) -> usize {
        self.positions.len().div_ceil(LABEL_PIECE)
    }

    /// Piece `k`'s labels as the text of its file.
    pub fn piece_text(&self, k: usize) -> String {
        let r = k * LABEL_PIECE..((k + 1) * LABEL_PIECE).min(self.positions.len());
        let text = match self.cfg.labels {
            LabelSource::Search | LabelSource::Luck => Example::text(&self.examples(r)),
            LabelSource::Decisions { .. } => DecisionLabel::text(&self.decisions(r)),
        };
        labels::with_checksum(&text)
    }

    fn examples(&self, r: Range<usize>) -> Vec<Example> {
        match self.cfg.labels {
            LabelSource::Luck => labels::label_luck(self.teacher, &self.positions[r]),
            _ => labels::label(self.teacher, &self.positions[r], self.cfg.ply),
        }
    }

    fn decisions(&self, r: Range<usize>) -> Vec<DecisionLabel> {
        let LabelSource::Decisions { keep, disputed } = self.cfg.labels else {
            return Vec::new();
        };
        let filter = MoveFilter {
            keep,
            margin: MoveFilter::ROOT.margin,
        };
        let first = r.start;
        decisions::label(
            self.teacher,
            &self.positions[r],
            first,
            filter,
            self.cfg.ply,
            disputed,
            self.seed,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sheshbesh_engine::evaluation::inputs::Layout;

    fn config(labels: LabelSource, dir: &Path) -> ExpertConfig {
        ExpertConfig {
            labels,
            positions: 120,
            ply: 1,
            epochs: 4,
            alpha: 0.003,
            alpha_end: 0.003,
            sample: SampleSource::SelfPlay { explore: 0.1 },
            teacher: None,
            cache_dir: Some(dir.to_path_buf()),
            shard: Shard::ALL,
            batch: 16,
            class: PositionClass::All,
            reanchor: false,
            temperature: 0.02,
            anchor: 1.0,
            phase: None,
            fit_net: None,
        }
    }

    #[test]
    fn a_round_labels_once_and_fits_from_its_cache() {
        let dir = std::env::temp_dir().join(format!("shb-expert-{}", std::process::id()));
        let decisions = |disputed| LabelSource::Decisions { keep: 4, disputed };
        let kinds = [
            LabelSource::Search,
            LabelSource::Luck,
            decisions(false),
            decisions(true),
        ];
        for labels in kinds {
            let cfg = config(labels, &dir);
            let cache = dir.join("round-1.labels");
            let mut ev = crate::train::fresh(3, 32, 32, Layout::V2);
            let first = round(&mut ev, None, &cfg, 5, Some(&cache))
                .unwrap()
                .unwrap();
            assert_eq!(
                first.len(),
                cfg.epochs + usize::from(matches!(labels, LabelSource::Decisions { .. }))
            );
            // The second fit reads the same labels: the same passes.
            let mut again = crate::train::fresh(3, 32, 32, Layout::V2);
            let second = round(&mut again, None, &cfg, 5, Some(&cache))
                .unwrap()
                .unwrap();
            assert_eq!(first, second);
            assert_eq!(ev, again);
        }
        // Each kind kept its own labels: a shortlisted 1-ply is not the
        // full one (a random net's best play is often off pubeval's list).
        let read = |ext| std::fs::read_to_string(dir.join("round-1").with_extension(ext)).unwrap();
        assert_ne!(read("labels"), read("luck"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_round_of_one_class_samples_only_that_class() {
        let ev = crate::train::fresh(3, 32, 32, Layout::V2);
        let cfg = |class| ExpertConfig {
            class,
            cache_dir: None,
            positions: 3000,
            ..config(LabelSource::Search, Path::new("unused"))
        };
        let all = RoundLabels::new(&ev, &cfg(PositionClass::All), 5).positions;
        let holding = RoundLabels::new(&ev, &cfg(PositionClass::TwoAnchors), 5).positions;
        assert!(!holding.is_empty() && holding.len() < all.len());
        assert!(holding.iter().all(|p| PositionClass::TwoAnchors.holds(p)));
        let kept: Vec<_> = all
            .into_iter()
            .filter(|p| PositionClass::TwoAnchors.holds(p))
            .collect();
        assert_eq!(holding, kept);
    }

    /// Values and decisions: the two kinds of label a round's fit tests
    /// run through.
    fn both_label_sources() -> [LabelSource; 2] {
        [
            LabelSource::Search,
            LabelSource::Decisions {
                keep: 4,
                disputed: false,
            },
        ]
    }

    /// `--fit-net blitz` teaches the blitz net alone, by values and by
    /// decisions, though the contact net values some of the plays.
    #[test]
    fn a_round_fitting_the_blitz_net_leaves_the_others_alone() {
        let mut ev0 = crate::train::fresh(3, 32, 32, Layout::V2);
        ev0.blitz = Some(ev0.contact.clone());
        let dir = std::env::temp_dir().join(format!("shb-blitz-{}", std::process::id()));
        for labels in both_label_sources() {
            let cfg = ExpertConfig {
                positions: 3000,
                class: PositionClass::Blitz,
                fit_net: Some(NetClass::Blitz),
                ..config(labels, &dir)
            };
            let cache = dir.join("round-1.labels");
            let mut ev = ev0.clone();
            round(&mut ev, None, &cfg, 5, Some(&cache))
                .unwrap()
                .unwrap();
            assert_eq!((&ev.contact, &ev.race), (&ev0.contact, &ev0.race));
            assert_ne!(ev.blitz, ev0.blitz);
            // A checkpoint without a blitz net is refused, not left as it is.
            let err = round(
                &mut crate::train::fresh(3, 32, 32, Layout::V2),
                None,
                &cfg,
                5,
                None,
            )
            .unwrap_err()
            .to_string();
            assert!(err.contains("no blitz net"), "{err}");
            let _ = std::fs::remove_file(&cache);
            let _ = std::fs::remove_file(dir.join("round-1.decisions"));
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_round_of_one_phase_leaves_the_other_net_alone() {
        let cfg = ExpertConfig {
            phase: Some(Phase::Race),
            cache_dir: None,
            positions: 600,
            ..config(LabelSource::Search, Path::new("unused"))
        };
        let ev0 = crate::train::fresh(3, 32, 32, Layout::V2);
        let work = RoundLabels::new(&ev0, &cfg, 5);
        assert!(!work.positions.is_empty());
        assert!(work.positions.iter().all(|p| Phase::of(p) == Phase::Race));
        let mut ev = ev0.clone();
        round(&mut ev, None, &cfg, 5, None).unwrap().unwrap();
        assert_eq!(ev.contact, ev0.contact);
        assert_ne!(ev.race, ev0.race);
        // Labels of every phase read from a cache teach only the phase's net.
        let dir = std::env::temp_dir().join(format!("shb-phase-{}", std::process::id()));
        for labels in both_label_sources() {
            let all = ExpertConfig {
                labels,
                cache_dir: Some(dir.clone()),
                ..config(labels, &dir)
            };
            let cache = dir.join("round-1.labels");
            round(&mut ev0.clone(), None, &all, 5, Some(&cache))
                .unwrap()
                .unwrap();
            let contact_only = ExpertConfig {
                phase: Some(Phase::Contact),
                ..all.clone()
            };
            let mut ev = ev0.clone();
            round(&mut ev, None, &contact_only, 5, Some(&cache))
                .unwrap()
                .unwrap();
            assert_ne!(ev.contact, ev0.contact);
            assert_eq!(ev.race, ev0.race);
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
