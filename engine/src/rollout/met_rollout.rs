//! A match equity table from our own cubeful match rollouts.
//!
//! The table's entry at a score is the match-winning chance of a game that
//! starts from the opening position: either player equally likely to roll
//! first, the first roll never a double, and no cube turned before it.
//! Each score is rolled out twice, once with each player moving first
//! ([`Opening`]), with a live cube and the match's rules (Crawford game,
//! post-Crawford doubling); a trial ends with the MWC its result is worth
//! in the table built so far. Results only ever bring the match nearer its
//! end, so rolling out the scores in [`openings`]' order (by the sum of
//! the away counts) means every value a trial needs, for its results and
//! for its cube decisions, is already rolled out.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use crate::cube::met::{Met, MetError, Score};
use crate::cube::money::Owner;
use crate::evaluation::evaluator::Evaluator;
use crate::rollout::batches::run_batches;
use crate::rollout::settings::RolloutSettings;
use crate::rollout::stakes::{MatchStakes, Stakes, TrialCube};
use crate::rollout::summary::{summarize, Estimate};
use crate::rollout::trial::{permutations, play_trial, Start};
use crate::rules::position::Position;

/// A score at which the opening is rolled out, from the side of the
/// player who moves first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Opening {
    /// The first mover's away count.
    pub away: u32,
    /// Its opponent's.
    pub opp_away: u32,
    /// After the Crawford game (one player is 1-away).
    pub post_crawford: bool,
}

impl Opening {
    fn score(self) -> Score {
        Score {
            me: self.away,
            opp: self.opp_away,
            post_crawford: self.post_crawford,
        }
    }

    /// The same score with the other player moving first.
    pub fn other_first(self) -> Opening {
        Opening {
            away: self.opp_away,
            opp_away: self.away,
            ..self
        }
    }
}

/// Every opening a table of `length` points needs, in an order where each
/// one's results and cube decisions only reach openings before it.
pub fn openings(length: u32) -> Vec<Opening> {
    let mut v = Vec::new();
    for a in 1..=length {
        for b in 1..=length {
            if a == 1 && b == 1 {
                continue; // Even, whoever rolls first: 50%.
            }
            v.push(Opening {
                away: a,
                opp_away: b,
                post_crawford: false,
            });
            if a == 1 || b == 1 {
                v.push(Opening {
                    away: a,
                    opp_away: b,
                    post_crawford: true,
                });
            }
        }
    }
    v.sort_by_key(|o| (o.away + o.opp_away, o.away, o.post_crawford));
    v
}

/// Builds a table of `length` points from the first mover's MWC of each
/// opening (`known`); scores not yet known take `fallback`'s entries.
pub fn assemble(
    length: u32,
    known: &dyn Fn(Opening) -> Option<f32>,
    fallback: &Met,
    name: &str,
) -> Met {
    let n = length as usize;
    let entry = |a: u32, b: u32, post: bool| -> f32 {
        if a == 1 && b == 1 {
            return 0.5;
        }
        let o = Opening {
            away: a,
            opp_away: b,
            post_crawford: post,
        };
        match (known(o), known(o.other_first())) {
            (Some(x), Some(y)) => 0.5 * x + 0.5 * (1.0 - y),
            _ => fallback
                .mwc(o.score())
                .unwrap_or(if a < b { 1.0 } else { 0.0 }),
        }
    };
    let pre = (1..=length)
        .map(|a| (1..=length).map(|b| entry(a, b, false)).collect())
        .collect();
    let post = (1..=length).map(|b| entry(b, 1, true)).collect();
    Met {
        name: name.to_string(),
        description: String::new(),
        length: n,
        pre,
        post,
    }
}

/// Rolls out `opening` (the player on roll moving first with the opening
/// roll) with a live cube, the match's results valued by `table`: the
/// first mover's MWC. `s` gives the trials, depth, seed and variance
/// reduction; its stakes are replaced by the opening's.
pub fn rollout_opening<E: Evaluator + ?Sized>(
    ev: &E,
    table: &Met,
    opening: Opening,
    s: &RolloutSettings,
    stop: &AtomicBool,
    mut progress: impl FnMut(u32),
) -> Result<Estimate, MetError> {
    let stakes = Stakes::Match(MatchStakes::new(
        Arc::new(table.clone()),
        opening.score(),
        1,
        Owner::Centred,
    )?);
    let s = RolloutSettings {
        cubeful: true,
        stakes,
        ..s.clone()
    };
    let start = Start {
        cube: TrialCube::at_root(&s.stakes),
        root_may_double: false,
        opening: true,
    };
    let perms = permutations(s.seed);
    let exact = |p: &Position| ev.exact(p);
    let pos = Position::start();
    let r = run_batches(
        s.trials,
        s.target_se,
        stop,
        |i| play_trial(ev, &exact, &pos, &s, start, i, &perms),
        |t| summarize(t, &s),
        |r| r.cubeful_mwc.map_or(f32::INFINITY, |m| m.se),
        |r| progress(r.trials),
    );
    Ok(r.cubeful_mwc
        .expect("a cubeful match rollout reports its MWC"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_opening_comes_after_what_its_results_reach() {
        let all = openings(5);
        // Both players first at every score but 1-away 1-away, and the
        // post-Crawford scores.
        assert_eq!(all.len(), 24 + 8);
        for (i, o) in all.iter().enumerate() {
            // Winning or losing k points (and a Crawford game ending)
            // leads only to openings listed before this one.
            for k in 1..=6u32 {
                for won in [true, false] {
                    let (mut a, mut b) = (o.away, o.opp_away);
                    if won {
                        a = a.saturating_sub(k);
                    } else {
                        b = b.saturating_sub(k);
                    }
                    if a == 0 || b == 0 || (a == 1 && b == 1) {
                        continue;
                    }
                    // After the Crawford game (or once past it) the
                    // match is post-Crawford.
                    let crawford_game = o.away == 1 || o.opp_away == 1;
                    let next = Opening {
                        away: a,
                        opp_away: b,
                        post_crawford: o.post_crawford || crawford_game,
                    };
                    let at = all.iter().position(|x| *x == next).unwrap();
                    assert!(at < i, "{o:?} reaches {next:?} listed later");
                }
            }
        }
    }

    #[test]
    fn assembled_tables_are_symmetric() {
        // Any first-mover values give a table where the two players'
        // chances at a score add up to one.
        let known = |o: Opening| {
            Some(
                0.5 + 0.03 * (o.opp_away as f32 - o.away as f32)
                    + if o.post_crawford { 0.01 } else { 0.0 },
            )
        };
        let m = assemble(5, &known, Met::kazaross_xg2(), "t");
        assert!(m.asymmetry() < 1e-6);
        assert_eq!(m.pre[0][0], 0.5);
        assert_eq!(m.post[0], 0.5);
        let back = Met::from_xml(&m.to_xml()).unwrap();
        assert_eq!(back.length, 5);
    }
}
