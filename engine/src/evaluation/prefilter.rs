//! The play pre-filter: a small net, distilled from the contact net, that
//! ranks a roll's plays so that only the best few are valued by the full
//! net (as gnubg's pruning nets do): in a rollout's luck pass, which
//! values the best play of each of the 21 rolls at every turn.
//!
//! It must cost a small fraction of a full evaluation per play, or ranking
//! thirty plays costs more than valuing seven fewer with the full net. So
//! it reads the board alone (each side's point units as the nets have
//! them, checkers off and pips: the features cost more than its whole
//! pass), its hidden units are rectified (no exponential), its one output
//! is linear (the mover's cubeless equity after the play), and a play is
//! valued from the position before the roll by the rows of the points it
//! changed.
//!
//! The weights file stores it as a net named [`PREFILTER_NET`]: `w1`,
//! `b1`, and the output as the first row of `w2` and first value of `b2`
//! (the other four rows zero).

use crate::evaluation::inputs::{point_units, SparseInputs, BOARD_PER_SIDE};
use crate::evaluation::net::{Net, OUTPUTS};
use crate::rules::movegen::Candidate;
use crate::rules::position::{Checkers, Position};

pub use crate::evaluation::weights::PREFILTER_NET;

/// Plays per roll a pre-filter's ranking keeps for the full net.
pub const PREFILTER_KEEP: usize = 5;

/// Inputs of the pre-filter net.
pub const INPUTS: usize = 2 * BOARD_PER_SIDE;

/// The most hidden units a pre-filter may have.
pub const MAX_PREFILTER_HIDDEN: usize = 64;

/// Why a net is no pre-filter.
#[derive(Debug, thiserror::Error)]
#[error("net {PREFILTER_NET:?} {0}")]
pub struct NotAPrefilter(String);

/// A pre-filter: `score = b_out + w_out . relu(b1 + x W1)`.
#[derive(Clone, Debug, PartialEq)]
pub struct Prefilter {
    /// The stored form.
    net: Net,
    /// `W1` row-major (input `i`'s row at `i * hidden`).
    rows: Vec<f32>,
    b1: Vec<f32>,
    w_out: Vec<f32>,
    b_out: f32,
}

/// A net of a pre-filter's shape with small random weights (as training
/// starts from): [`Net::random`]'s, with only the first output row kept.
pub fn random_net(hidden: usize, rng: &mut impl rand::Rng) -> Net {
    let mut net = Net::random(INPUTS, hidden, rng);
    let p = net.params_mut();
    for k in 1..OUTPUTS {
        p.w2.row_mut(k).fill(0.0);
        p.b2[k] = 0.0;
    }
    net
}

/// The hidden sums of a position before its roll, from which the plays of
/// every one of its rolls are valued ([`Prefilter::scores_from`]): made
/// once per turn, not once per roll.
#[derive(Clone, Debug)]
pub struct Before {
    pos: Position,
    sums: [f32; MAX_PREFILTER_HIDDEN],
}

impl Prefilter {
    /// Reads a pre-filter from its stored form: [`INPUTS`] inputs, at most
    /// [`MAX_PREFILTER_HIDDEN`] hidden units, no second layer, and only the
    /// first output row non-zero.
    pub fn new(net: Net) -> Result<Prefilter, NotAPrefilter> {
        let bad = |why: String| Err(NotAPrefilter(why));
        if net.inputs() != INPUTS {
            return bad(format!(
                "has {} inputs, a pre-filter reads {INPUTS}",
                net.inputs()
            ));
        }
        let h = net.hidden();
        if h > MAX_PREFILTER_HIDDEN || net.hidden2() != 0 {
            return bad(format!(
                "has {h} and {} hidden units, a pre-filter at most {MAX_PREFILTER_HIDDEN} and none",
                net.hidden2()
            ));
        }
        let p = net.params();
        if (1..OUTPUTS).any(|k| p.b2[k] != 0.0 || p.w2.row(k).iter().any(|&w| w != 0.0)) {
            return bad("has more than one output".into());
        }
        Ok(Prefilter {
            rows: p.w1.iter().copied().collect(),
            b1: p.b1.to_vec(),
            w_out: p.w2.row(0).to_vec(),
            b_out: p.b2[0],
            net,
        })
    }

    /// The stored form.
    pub fn net(&self) -> &Net {
        &self.net
    }

    /// The score of the board `after` a play (mover's view): its cubeless
    /// equity for the mover as the pre-filter sees it, by a whole pass.
    pub fn score(&self, after: &Position) -> f32 {
        if after.me.off() == 15 {
            // A play that ends the game is the best there is.
            return f32::INFINITY;
        }
        let mut x = SparseInputs::default();
        x.fill_board(after);
        let mut sums = self.b1.clone();
        for (&i, &v) in x.indices().iter().zip(x.values()) {
            self.add_row(&mut sums, usize::from(i), v);
        }
        self.output(&sums)
    }

    /// `pos` (the mover on roll) summed for [`Self::scores_from`].
    pub fn before(&self, pos: &Position) -> Before {
        let mut sums = [0.0f32; MAX_PREFILTER_HIDDEN];
        let base = &mut sums[..self.b1.len()];
        base.copy_from_slice(&self.b1);
        self.add_side(base, &pos.me, None, 0);
        self.add_side(base, &pos.opp, None, BOARD_PER_SIDE);
        Before { pos: *pos, sums }
    }

    /// [`Self::score`] of each play of a roll from the position `before`
    /// holds, into `out`: each valued by the rows of the points it changed
    /// from that position.
    pub fn scores_from(&self, before: &Before, candidates: &[Candidate], out: &mut Vec<f32>) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::is_x86_feature_detected as has;
            if has!("avx512f") {
                // SAFETY: the feature was detected.
                return unsafe { self.scores_from_avx512(before, candidates, out) };
            }
            if has!("avx2") && has!("fma") {
                // SAFETY: the features were detected.
                return unsafe { self.scores_from_avx2(before, candidates, out) };
            }
        }
        self.scores_from_with(before, candidates, out)
    }

    /// [`Self::scores_from`] compiled for AVX2: the same steps in wider
    /// registers (no fused multiply-adds, so the same results).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn scores_from_avx2(
        &self,
        before: &Before,
        candidates: &[Candidate],
        out: &mut Vec<f32>,
    ) {
        self.scores_from_with(before, candidates, out)
    }

    /// [`Self::scores_from`] compiled for AVX-512: a 32-unit net's sums in
    /// two registers (no fused multiply-adds, so the same results).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f")]
    unsafe fn scores_from_avx512(
        &self,
        before: &Before,
        candidates: &[Candidate],
        out: &mut Vec<f32>,
    ) {
        self.scores_from_with(before, candidates, out)
    }

    #[inline(always)]
    fn scores_from_with(&self, before: &Before, candidates: &[Candidate], out: &mut Vec<f32>) {
        let h = self.b1.len();
        let (pos, base) = (&before.pos, &before.sums[..h]);
        let mut sums = [0.0f32; MAX_PREFILTER_HIDDEN];
        let sums = &mut sums[..h];
        out.clear();
        // A plain loop, not an iterator adaptor: std's generic `fold` would
        // be compiled apart, without the caller's target features.
        for c in candidates {
            let after = &c.position;
            if after.me.off() == 15 {
                out.push(f32::INFINITY);
                continue;
            }
            sums.copy_from_slice(base);
            self.add_side(sums, &after.me, Some(&pos.me), 0);
            if after.opp != pos.opp {
                self.add_side(sums, &after.opp, Some(&pos.opp), BOARD_PER_SIDE);
            }
            out.push(self.output(sums));
        }
    }

    #[inline(always)]
    fn add_row(&self, sums: &mut [f32], input: usize, v: f32) {
        let h = sums.len();
        let row = &self.rows[input * h..(input + 1) * h];
        for (s, w) in sums.iter_mut().zip(row) {
            *s += v * w;
        }
    }

    /// Adds the rows of `side`'s board (inputs from `at`), less those of
    /// `old` where given (then only where the two differ).
    #[inline(always)]
    fn add_side(&self, sums: &mut [f32], side: &Checkers, old: Option<&Checkers>, at: usize) {
        let mut points = old.map_or(side.occupied(), |o| side.differing(o));
        let mut pips = 0i32;
        while points != 0 {
            let p = points.trailing_zeros() as usize;
            points &= points - 1;
            let (n, was) = (side.at(p), old.map_or(0, |o| o.at(p)));
            pips += p as i32 * (i32::from(n) - i32::from(was));
            let (a, b) = (point_units(n), point_units(was));
            for k in 0..4 {
                if a[k] != b[k] {
                    self.add_row(sums, at + (p - 1) * 4 + k, a[k] - b[k]);
                }
            }
        }
        let off = i32::from(side.off()) - old.map_or(0, |o| i32::from(o.off()));
        if off != 0 {
            self.add_row(sums, at + 100, off as f32 / 15.0);
        }
        if pips != 0 {
            self.add_row(sums, at + 101, pips as f32 / 150.0);
        }
    }

    /// The score from the hidden sums, summed in eight lanes so that it
    /// vectorizes (hidden sizes are multiples of 32).
    #[inline(always)]
    fn output(&self, sums: &[f32]) -> f32 {
        let mut lanes = [0.0f32; 8];
        for (s, w) in sums.chunks_exact(8).zip(self.w_out.chunks_exact(8)) {
            for k in 0..8 {
                lanes[k] += s[k].max(0.0) * w[k];
            }
        }
        self.b_out + lanes.iter().sum::<f32>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::dice::Dice;
    use crate::rules::movegen::{generate, MoveList};
    use rand::{Rng, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;

    fn random(seed: u64, hidden: usize) -> Prefilter {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        Prefilter::new(random_net(hidden, &mut rng)).unwrap()
    }

    /// Valuing plays by their differences from the position before them
    /// gives the whole pass's scores, hits, bar entries and bear-offs
    /// included, along random games; every build the same bits.
    #[test]
    fn scores_by_difference_are_the_whole_pass_s() {
        let p = random(11, 32);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
        let mut list = MoveList::new();
        let (mut near, mut portable) = (Vec::new(), Vec::new());
        let mut checked = 0;
        for _ in 0..30 {
            let mut pos = Position::start();
            for _ in 0..200 {
                let dice = Dice::new(rng.gen_range(1..=6), rng.gen_range(1..=6)).unwrap();
                generate(&pos, dice, &mut list);
                let cands = list.as_slice();
                let before = p.before(&pos);
                p.scores_from(&before, cands, &mut near);
                // The build this CPU runs gives the portable bits.
                p.scores_from_with(&before, cands, &mut portable);
                assert_eq!(near, portable);
                for (c, b) in cands.iter().zip(&near) {
                    let a = p.score(&c.position);
                    assert!(a == *b || (a - b).abs() < 1e-4, "{a} {b}");
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
    fn a_net_of_another_shape_is_no_prefilter() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(12);
        let err = Prefilter::new(Net::random(INPUTS + 1, 32, &mut rng)).unwrap_err();
        assert!(err.to_string().contains("a pre-filter reads 204"), "{err}");
        let err = Prefilter::new(Net::random(INPUTS, 128, &mut rng)).unwrap_err();
        assert!(err.to_string().contains("at most 64"), "{err}");
        // Five outputs are a contact net's, not a pre-filter's.
        let err = Prefilter::new(Net::random(INPUTS, 32, &mut rng)).unwrap_err();
        assert!(err.to_string().contains("more than one output"), "{err}");
        assert_eq!(random(3, 64).net().hidden(), 64);
    }
}
