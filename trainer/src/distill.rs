//! Expert iteration: teach the net what its own search knows.
//!
//! A round samples positions from self-play, labels each with the
//! evaluation of a `ply`-ply search on the current nets, and fits the nets
//! to those labels by a few passes of gradient descent. The search looks
//! at every roll and reply, so its values are better informed than the
//! net's own; after fitting, the 0-ply net plays closer to the search, and
//! the next round's search starts from a stronger net. No outside engine is
//! consulted: the labels are our own search's.

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use rayon::prelude::*;
use sheshbesh_engine::evaluator::{candidate_values, Evaluator, NetEvaluator, Phase};
use sheshbesh_engine::inputs::SparseInputs;
use sheshbesh_engine::movegen::{generate, MoveList};
use sheshbesh_engine::search::Ply;
use sheshbesh_engine::{Dice, Position, Probs};

/// One labelled position.
#[derive(Clone, Debug)]
pub struct Example {
    /// Which net learns it.
    pub phase: Phase,
    /// The position (player on roll).
    pub position: Position,
    /// The search's probabilities.
    pub target: Probs,
}

/// Settings of a distillation round.
#[derive(Clone, Copy, Debug)]
pub struct DistillConfig {
    /// Positions sampled and labelled.
    pub positions: usize,
    /// Search depth of the labels.
    pub ply: u32,
    /// Passes over the labelled positions.
    pub epochs: usize,
    /// Learning rate of the fit.
    pub alpha: f32,
    /// Chance that a sampling game plays the second-best play instead of
    /// the best (variety in the sampled positions).
    pub explore: f64,
}

/// Positions from self-play games of `ev`, every position where a side is
/// on roll and no database knows the answer. Game `g` has its own dice, so
/// the sample is the same on any number of threads.
pub fn sample(ev: &NetEvaluator, n: usize, explore: f64, seed: u64) -> Vec<Position> {
    let per_game = 60;
    let games = n.div_ceil(per_game / 2).max(1);
    let mut all: Vec<Position> = (0..games as u64)
        .into_par_iter()
        .map_init(
            || (MoveList::new(), Vec::new()),
            |(list, values), g| {
                let mut rng =
                    Xoshiro256PlusPlus::seed_from_u64(seed ^ g.wrapping_mul(0x9E37_79B9_7F4A_7C15));
                let mut out = Vec::with_capacity(per_game);
                let mut pos = Position::start();
                loop {
                    let dice = Dice::new(rng.gen_range(1..=6), rng.gen_range(1..=6)).expect("1..6");
                    if ev.exact(&pos).is_none() && !(out.is_empty() && pos == Position::start()) {
                        out.push(pos);
                    }
                    generate(&pos, dice, list);
                    candidate_values(ev, list.as_slice(), values);
                    let mut order: Vec<usize> = (0..values.len()).collect();
                    order.sort_by(|&a, &b| values[b].equity().total_cmp(&values[a].equity()));
                    let pick = if order.len() > 1 && rng.gen_bool(explore) {
                        order[1]
                    } else {
                        order[0]
                    };
                    let after = list.as_slice()[pick].position;
                    if after.me.off() == 15 {
                        break;
                    }
                    pos = after.swapped();
                }
                out
            },
        )
        .flatten()
        .collect();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    all.shuffle(&mut rng);
    all.truncate(n);
    all
}

/// Labels positions with a `ply`-ply search of `ev`.
pub fn label(ev: &NetEvaluator, positions: &[Position], ply: u32) -> Vec<Example> {
    let search = Ply::new(ev, ply);
    positions
        .par_iter()
        .map(|p| Example {
            phase: Phase::of(p),
            position: *p,
            target: search.eval(p),
        })
        .collect()
}

/// Fits the nets to labelled examples; returns, for each pass, the
/// root-mean-square error of the win probability (before each step).
pub fn fit(
    ev: &mut NetEvaluator,
    examples: &[Example],
    epochs: usize,
    alpha: f32,
    seed: u64,
) -> Vec<f64> {
    let mut order: Vec<usize> = (0..examples.len()).collect();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut act = ev.contact.activations();
    let mut x = SparseInputs::default();
    let mut rmse = Vec::with_capacity(epochs);
    for _ in 0..epochs {
        order.shuffle(&mut rng);
        let mut sq = 0.0;
        for &i in &order {
            let e = &examples[i];
            ev.encode_into(&e.position, &mut x);
            let before = ev.net_mut(e.phase).train(&x, &e.target, alpha, &mut act);
            sq += f64::from((before.win() - e.target.win()).powi(2));
        }
        rmse.push((sq / examples.len().max(1) as f64).sqrt());
    }
    rmse
}

/// One round: sample, label, fit. Returns the fit's RMSE by pass.
pub fn round(ev: &mut NetEvaluator, cfg: &DistillConfig, seed: u64) -> Vec<f64> {
    let positions = sample(ev, cfg.positions, cfg.explore, seed);
    let examples = label(ev, &positions, cfg.ply);
    fit(ev, &examples, cfg.epochs, cfg.alpha, seed ^ 0xD15)
}
