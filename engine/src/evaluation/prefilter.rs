//! The play pre-filter: a small net, distilled from the contact net, that
//! ranks a roll's plays so that a search's inner nodes value only the
//! best few with the full net (as gnubg's pruning nets do).
//!
//! At 3-ply nine in ten evaluations are of an inner node's plays, valued
//! only to find the best one. A linear score (pubeval) holds the full
//! net's best among its first four in 86% of rolls; a net that learnt the
//! full net's values does much better, so fewer plays need the full net.
//! It reads the board alone ([`SparseInputs::fill_board`]): encoding the
//! features costs more than its whole pass.

use crate::evaluation::inputs::{SparseInputs, BOARD_PER_SIDE};
use crate::evaluation::net::{FirstSums, Net};
use crate::evaluation::probs::Probs;
use crate::evaluation::weights::WeightsError;
use crate::rules::movegen::Candidate;
use crate::rules::position::Position;

/// The name of a weights file's pre-filter net.
pub const PREFILTER_NET: &str = "prefilter";

/// Inputs of the pre-filter net.
pub const INPUTS: usize = 2 * BOARD_PER_SIDE;

/// A pre-filter net. Its outputs are the mover's chances after a play, as
/// the contact net's are; only their order among a roll's plays is used.
#[derive(Clone, Debug, PartialEq)]
pub struct Prefilter {
    net: Net,
}

impl Prefilter {
    /// Wraps `net`, which must read [`INPUTS`] inputs.
    pub fn new(net: Net) -> Result<Prefilter, WeightsError> {
        if net.inputs() != INPUTS {
            return Err(WeightsError::Shape(format!(
                "net {PREFILTER_NET:?} has {} inputs, a pre-filter reads {INPUTS}",
                net.inputs()
            )));
        }
        if net.hidden2() != 0 {
            return Err(WeightsError::Shape(format!(
                "net {PREFILTER_NET:?} has a second hidden layer, a pre-filter has one"
            )));
        }
        Ok(Prefilter { net })
    }

    /// The net.
    pub fn net(&self) -> &Net {
        &self.net
    }

    /// Each play's `value` of the chances the pre-filter gives it (the
    /// mover's cubeless equity, or its match-winning chance at a score),
    /// for plays from `before` (the mover on roll): each is valued by its
    /// difference from `before`, so only the rows of the points a play
    /// changed are summed.
    pub fn scores_near(
        &self,
        before: &Position,
        candidates: &[Candidate],
        value: impl Fn(&Probs) -> f32,
        out: &mut Vec<f32>,
    ) {
        let mut x = SparseInputs::default();
        x.fill_board(before);
        let mut sums = FirstSums::default();
        self.net.first_sums(&x, &mut sums);
        let mut act = self.net.activations();
        out.clear();
        out.extend(candidates.iter().map(|c| {
            if c.position.me.off() == 15 {
                return f32::INFINITY;
            }
            x.fill_board_difference(&c.position, before);
            value(&self.net.eval_near(&sums, &x, &mut act))
        }));
    }

    /// Each candidate's score for the mover (its cubeless equity as the
    /// pre-filter sees it), into `out`.
    pub fn scores(&self, candidates: &[Candidate], out: &mut Vec<f32>) {
        let mut x = SparseInputs::default();
        let mut act = self.net.activations();
        out.clear();
        out.extend(candidates.iter().map(|c| {
            if c.position.me.off() == 15 {
                // A play that ends the game is the best there is.
                return f32::INFINITY;
            }
            x.fill_board(&c.position);
            self.net.eval(&x, &mut act).equity()
        }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::dice::Dice;
    use crate::rules::movegen::{generate, MoveList};
    use rand::{Rng, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;

    /// Valuing plays by their differences from the position before them
    /// gives the whole pass's scores, hits, bar entries and bear-offs
    /// included, along random games.
    #[test]
    fn scores_by_difference_are_the_whole_pass_s() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
        let p = Prefilter::new(Net::random(INPUTS, 32, &mut rng)).unwrap();
        let mut list = MoveList::new();
        let (mut whole, mut near) = (Vec::new(), Vec::new());
        let mut checked = 0;
        for _ in 0..30 {
            let mut pos = Position::start();
            for _ in 0..200 {
                let dice = Dice::new(rng.gen_range(1..=6), rng.gen_range(1..=6)).unwrap();
                generate(&pos, dice, &mut list);
                let cands = list.as_slice();
                p.scores(cands, &mut whole);
                p.scores_near(&pos, cands, Probs::equity, &mut near);
                for (a, b) in whole.iter().zip(&near) {
                    assert!(a == b || (a - b).abs() < 1e-5, "{a} {b}");
                    checked += 1;
                }
                let next = cands[rng.gen_range(0..cands.len())].position;
                if next.me.off() == 15 {
                    break;
                }
                pos = next.swapped();
            }
        }
        assert!(checked > 10_000, "{checked}");
    }

    #[test]
    fn a_net_of_other_inputs_is_no_prefilter() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(12);
        let err = Prefilter::new(Net::random(INPUTS + 1, 32, &mut rng)).unwrap_err();
        assert!(err.to_string().contains("a pre-filter reads 204"), "{err}");
    }
}
