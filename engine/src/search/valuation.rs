//! How a player compares the plays of a roll: by cubeless money equity,
//! or, at a match score, by what the outcomes are worth in the match.
//!
//! At a match score a gammon may be worth far more or less than twice a
//! single game, so the play a money player picks can be the wrong one.
//! [`Valuation::Match`] values the five outcome probabilities by the
//! match-winning chance after each outcome (a match equity table's entries
//! at the score and cube, which the cube layer looks up) and reports it as
//! EMG: equity in points of the cube, +1 for a single win and -1 for a
//! single loss, so move filters and margins read as in money play. The
//! search uses the valuation at every node, from the side of the player on
//! roll there.

use crate::evaluation::probs::Probs;

/// How plays are compared.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Valuation {
    /// Cubeless money equity.
    Money,
    /// EMG at a match score.
    Match(MatchOutcomes),
}

/// The match-winning chances of the root player (the one on roll where
/// the valuation was made) after each outcome of the game at the current
/// cube: winning 1, 2 and 3 times the cube, then losing 1, 2 and 3 times.
/// The opponent's are one minus the root's after the mirror outcome.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MatchOutcomes {
    /// MWC after win single, gammon, backgammon, lose single, gammon,
    /// backgammon.
    pub root: [f32; 6],
}

impl MatchOutcomes {
    /// The table from the side of the mover.
    fn side(&self, mover_is_root: bool) -> [f32; 6] {
        let r = self.root;
        if mover_is_root {
            r
        } else {
            [
                1.0 - r[3],
                1.0 - r[4],
                1.0 - r[5],
                1.0 - r[0],
                1.0 - r[1],
                1.0 - r[2],
            ]
        }
    }

    /// The mover's match-winning chance with outcome probabilities `p`
    /// (the mover's, cumulative as [`Probs`]).
    pub fn mwc(&self, p: &Probs, mover_is_root: bool) -> f32 {
        let a = self.side(mover_is_root);
        let [w, wg, wbg, lg, lbg] = p.0;
        let l = 1.0 - w;
        (w - wg) * a[0]
            + (wg - wbg) * a[1]
            + wbg * a[2]
            + (l - lg) * a[3]
            + (lg - lbg) * a[4]
            + lbg * a[5]
    }

    /// The mover's EMG: the match-winning chance rescaled so that a single
    /// win is +1 and a single loss -1.
    pub fn emg(&self, p: &Probs, mover_is_root: bool) -> f32 {
        let a = self.side(mover_is_root);
        let (w1, l1) = (a[0], a[3]);
        (2.0 * self.mwc(p, mover_is_root) - (w1 + l1)) / (w1 - l1).max(1e-9)
    }

    /// The root player's match-winning chance worth `emg` (the inverse of
    /// [`MatchOutcomes::emg`] from the root's side).
    pub fn mwc_of_emg(&self, emg: f32) -> f32 {
        let (w1, l1) = (self.root[0], self.root[3]);
        (emg * (w1 - l1) + w1 + l1) / 2.0
    }
}

impl Valuation {
    /// The value of a play or position for the mover, whose outcome
    /// probabilities are `p`: money equity, or EMG at the match score.
    #[inline]
    pub fn value(&self, p: &Probs, mover_is_root: bool) -> f32 {
        match self {
            Valuation::Money => p.equity(),
            Valuation::Match(m) => m.emg(p, mover_is_root),
        }
    }

    /// The index of the highest value among `values` (the first on ties).
    pub fn argmax(&self, values: &[Probs], mover_is_root: bool) -> usize {
        let mut best = 0;
        let mut best_value = f32::NEG_INFINITY;
        for (i, v) in values.iter().enumerate() {
            let x = self.value(v, mover_is_root);
            if x > best_value {
                (best, best_value) = (i, x);
            }
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A score where gammons count little for the root player: it wins
    /// the match with a single, and a gammon adds nothing.
    const DMP_LIKE: MatchOutcomes = MatchOutcomes {
        root: [1.0, 1.0, 1.0, 0.3, 0.2, 0.1],
    };

    #[test]
    fn singles_are_worth_one_and_the_sides_mirror() {
        for root in [true, false] {
            let win = DMP_LIKE.emg(&Probs::certain(1), root);
            let lose = DMP_LIKE.emg(&Probs::certain(-1), root);
            assert!((win - 1.0).abs() < 1e-6 && (lose + 1.0).abs() < 1e-6);
        }
        // What one side wins the other loses.
        let p = Probs([0.6, 0.2, 0.01, 0.1, 0.005]);
        let mine = DMP_LIKE.mwc(&p, true);
        let theirs = DMP_LIKE.mwc(&p.flipped(), false);
        assert!((mine + theirs - 1.0).abs() < 1e-6);
        assert!((DMP_LIKE.mwc_of_emg(DMP_LIKE.emg(&p, true)) - mine).abs() < 1e-6);
    }

    #[test]
    fn the_match_values_gammons_as_the_score_does() {
        // Money prefers the gammonish play; at this score the safe one.
        let safe = Probs([0.80, 0.05, 0.0, 0.01, 0.0]);
        let gammonish = Probs([0.70, 0.40, 0.05, 0.02, 0.0]);
        let m = Valuation::Match(DMP_LIKE);
        assert!(Valuation::Money.value(&gammonish, true) > Valuation::Money.value(&safe, true));
        assert!(m.value(&safe, true) > m.value(&gammonish, true));
        assert_eq!(m.argmax(&[gammonish, safe], true), 1);
        assert_eq!(Valuation::Money.argmax(&[gammonish, safe], true), 0);
    }
}
