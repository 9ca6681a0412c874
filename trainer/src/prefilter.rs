//! The play pre-filter distilled from the contact net
//! ([`sheshbesh_engine::evaluation::prefilter`]): positions sampled from
//! self-play, one roll each, every play of the roll valued by the teacher
//! at 0-ply; a small board-only net fitted to the equity of those values
//! by Adam (squared error); and how often its best few hold the teacher's
//! best play, beside pubeval's.

use crate::adam::Adam;
use crate::backprop::Gradient;
use crate::labels::sample;
use crate::selfplay::roll;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use sheshbesh_engine::evaluation::evaluator::{candidate_values, NetEvaluator};
use sheshbesh_engine::evaluation::inputs::SparseInputs;
use sheshbesh_engine::evaluation::net::Net;
use sheshbesh_engine::evaluation::prefilter::{random_net, Prefilter, PREFILTER_KEEP};
use sheshbesh_engine::evaluation::pubeval;
use sheshbesh_engine::rules::movegen::{generate, Candidate, MoveList};
use sheshbesh_engine::Probs;

/// What a pre-filter is distilled from and how.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PrefilterConfig {
    /// Self-play positions sampled (contact ones with a choice are kept).
    pub positions: usize,
    /// Hidden units of the pre-filter.
    pub hidden: usize,
    /// Passes over the labels.
    pub epochs: usize,
    /// Adam's learning rate of the first pass (falls geometrically to a
    /// tenth of it by the last).
    pub alpha: f32,
    /// Plays per Adam step.
    pub batch: usize,
    /// Seed of the sample, the rolls, the start and the order.
    pub seed: u64,
}

/// One roll of a sampled position: its plays (boards after each, mover's
/// view) and the teacher's chances after each.
pub struct Roll {
    plays: Vec<Candidate>,
    values: Vec<Probs>,
}

impl Roll {
    /// The teacher's best play.
    fn best(&self) -> usize {
        argmax(self.values.iter().map(|p| p.equity()))
    }
}

fn argmax(scores: impl Iterator<Item = f32>) -> usize {
    scores
        .enumerate()
        .fold((0, f32::NEG_INFINITY), |(b, bs), (i, s)| {
            if s > bs {
                (i, s)
            } else {
                (b, bs)
            }
        })
        .0
}

/// Contact positions of `teacher`'s self-play, one roll each (more plays
/// than the pre-filter keeps), valued by the teacher.
pub fn label(teacher: &NetEvaluator, positions: usize, seed: u64) -> Vec<Roll> {
    let sampled = sample(teacher, positions, 0.05, seed);
    sampled
        .par_iter()
        .enumerate()
        .filter(|(_, p)| p.is_contact())
        .map_init(
            || (MoveList::new(), Vec::new()),
            |(list, values), (i, p)| {
                let mut rng = Xoshiro256PlusPlus::seed_from_u64(
                    seed ^ 0x5eed ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15),
                );
                generate(p, roll(&mut rng), list);
                if list.as_slice().len() <= PREFILTER_KEEP {
                    return None;
                }
                candidate_values(teacher, list.as_slice(), values);
                Some(Roll {
                    plays: list.as_slice().to_vec(),
                    values: values.clone(),
                })
            },
        )
        .flatten()
        .collect()
}

/// How often a ranking's first `k` plays hold the teacher's best, for
/// each `k` of [`KEPT`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HoldRates {
    /// Rolls measured.
    pub rolls: usize,
    /// `(k, share of rolls)`.
    pub rates: Vec<(usize, f64)>,
    /// The mean equity the best of the first [`PREFILTER_KEEP`] gives
    /// up against the teacher's best (teacher's values, cubeless).
    pub mean_loss: f64,
}

/// The shortlist sizes a hold rate is given for.
pub const KEPT: [usize; 6] = [1, 2, 3, 4, 5, 8];

/// Hold rates of `score` (higher first) over `rolls`.
pub fn hold_rates(rolls: &[Roll], score: impl Fn(&Roll, &mut Vec<f32>) + Sync) -> HoldRates {
    let per_roll: Vec<(usize, f64)> = rolls
        .par_iter()
        .map_init(Vec::new, |scores, r| {
            score(r, scores);
            let best = r.best();
            let mut order: Vec<usize> = (0..r.plays.len()).collect();
            order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]).then(a.cmp(&b)));
            let rank = order
                .iter()
                .position(|&i| i == best)
                .expect("best is a play");
            let kept = &order[..PREFILTER_KEEP.min(order.len())];
            let top = r.values[best].equity();
            let got = kept
                .iter()
                .map(|&i| r.values[i].equity())
                .fold(f32::NEG_INFINITY, f32::max);
            (rank, f64::from(top - got))
        })
        .collect();
    let n = per_roll.len().max(1) as f64;
    HoldRates {
        rolls: per_roll.len(),
        rates: KEPT
            .iter()
            .map(|&k| {
                (
                    k,
                    per_roll.iter().filter(|(r, _)| *r < k).count() as f64 / n,
                )
            })
            .collect(),
        mean_loss: per_roll.iter().map(|x| x.1).sum::<f64>() / n,
    }
}

/// The pre-filter's scores of a roll's plays.
pub fn prefilter_scores(p: &Prefilter) -> impl Fn(&Roll, &mut Vec<f32>) + Sync + '_ {
    move |r, out| {
        out.clear();
        out.extend(r.plays.iter().map(|c| p.score(&c.position)));
    }
}

/// Pubeval's scores of a roll's plays.
pub fn pubeval_scores(r: &Roll, out: &mut Vec<f32>) {
    out.clear();
    out.extend(r.plays.iter().map(|c| pubeval::score(&c.position, false)));
}

/// A pre-filter's record in its weights file's provenance.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PrefilterStep {
    /// The command line that made it.
    pub command: String,
    /// How.
    pub config: PrefilterConfig,
    /// What it measured.
    pub report: PrefilterReport,
}

/// What a distillation measured.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PrefilterReport {
    /// Rolls fitted.
    pub fitted: usize,
    /// Held-out hold rates of the pre-filter.
    pub prefilter: HoldRates,
    /// Held-out hold rates of pubeval, for comparison.
    pub pubeval: HoldRates,
}

/// Adds the gradient of half the squared error of the pre-filter's score
/// of `x` against `target` to `grad` (`pre`: scratch for the hidden
/// sums).
fn backward(net: &Net, x: &SparseInputs, target: f32, pre: &mut [f32], grad: &mut Gradient) {
    let p = net.params();
    let h = pre.len();
    let w1 = p.w1.as_slice().expect("standard layout");
    pre.copy_from_slice(p.b1.as_slice().expect("standard layout"));
    for (&i, &v) in x.indices().iter().zip(x.values()) {
        let row = &w1[usize::from(i) * h..(usize::from(i) + 1) * h];
        for (s, w) in pre.iter_mut().zip(row) {
            *s += v * w;
        }
    }
    let w_out = p.w2.row(0);
    let y = p.b2[0]
        + pre
            .iter()
            .zip(w_out)
            .map(|(s, w)| s.max(0.0) * w)
            .sum::<f32>();
    let d = y - target;
    let [g1, gb1, _, _, g2, gb2] = &mut grad.0;
    gb2[0] += d;
    for j in 0..h {
        g2[j] += d * pre[j].max(0.0);
    }
    // The error at each hidden unit, through the rectifier.
    for j in 0..h {
        pre[j] = if pre[j] > 0.0 { d * w_out[j] } else { 0.0 };
        gb1[j] += pre[j];
    }
    for (&i, &v) in x.indices().iter().zip(x.values()) {
        let row = &mut g1[usize::from(i) * h..(usize::from(i) + 1) * h];
        for (g, dj) in row.iter_mut().zip(pre.iter()) {
            *g += v * dj;
        }
    }
}

/// Distils a pre-filter from `teacher`: labels, fits on all but a
/// twentieth of the rolls, measures on that twentieth. `progress` is told
/// each pass's number as it ends.
pub fn distil(
    teacher: &NetEvaluator,
    cfg: &PrefilterConfig,
    progress: impl Fn(usize),
) -> (Prefilter, PrefilterReport) {
    let mut rolls = label(teacher, cfg.positions, cfg.seed);
    let held = rolls.split_off(rolls.len() - rolls.len() / 20);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(cfg.seed);
    // One output: the other rows stay zero (their gradient is zero).
    let mut net = random_net(cfg.hidden, &mut rng);
    let mut samples: Vec<(usize, usize)> = rolls
        .iter()
        .enumerate()
        .flat_map(|(r, roll)| (0..roll.plays.len()).map(move |k| (r, k)))
        .collect();
    let mut adam = Adam::new(&net);
    let mut grad = Gradient::zeros(&net);
    let mut x = SparseInputs::default();
    let h = cfg.hidden;
    let mut pre = vec![0.0f32; h];
    let decay = if cfg.epochs > 1 {
        0.1f32.powf(1.0 / (cfg.epochs - 1) as f32)
    } else {
        1.0
    };
    let mut alpha = cfg.alpha;
    for epoch in 0..cfg.epochs {
        samples.shuffle(&mut rng);
        for chunk in samples.chunks(cfg.batch.max(1)) {
            for &(r, k) in chunk {
                x.fill_board(&rolls[r].plays[k].position);
                let target = rolls[r].values[k].equity();
                backward(&net, &x, target, &mut pre, &mut grad);
            }
            adam.step(&mut net, &grad, chunk.len(), alpha);
            grad.clear();
        }
        alpha *= decay;
        progress(epoch + 1);
    }
    let prefilter = Prefilter::new(net).expect("made with the pre-filter's inputs");
    let report = PrefilterReport {
        fitted: rolls.len(),
        prefilter: hold_rates(&held, prefilter_scores(&prefilter)),
        pubeval: hold_rates(&held, pubeval_scores),
    };
    (prefilter, report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::train::fresh;
    use sheshbesh_engine::evaluation::inputs::Layout;

    /// A few passes over a small sample already rank better than chance,
    /// and the measure counts every roll.
    #[test]
    fn a_distilled_prefilter_learns_its_teacher_s_order() {
        let teacher = fresh(5, 32, 32, Layout::V3);
        let cfg = PrefilterConfig {
            positions: 3000,
            hidden: 32,
            epochs: 4,
            alpha: 0.003,
            batch: 16,
            seed: 9,
        };
        let (p, report) = distil(&teacher, &cfg, |_| {});
        assert_eq!(p.net().hidden(), 32);
        assert_eq!(
            p.net().inputs(),
            sheshbesh_engine::evaluation::prefilter::INPUTS
        );
        let held = &report.prefilter;
        assert!(held.rolls > 50, "{held:?}");
        let rate = |h: &HoldRates, k: usize| h.rates.iter().find(|r| r.0 == k).unwrap().1;
        // Chance would hold the best among the first 5 of 20-odd plays
        // about a quarter of the time.
        assert!(rate(held, 5) > 0.6, "{held:?}");
        assert!(rate(held, 8) >= rate(held, 1));
    }
}
