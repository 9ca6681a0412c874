//! Rollouts: play a position out many times and average the results.
//!
//! - Trial `i` draws its dice from its own generator seeded by
//!   `(seed, i)`, trials run in batches over rayon's threads, and results
//!   are summed in trial order, so a rollout is bit-identical on any number
//!   of threads.
//! - Quasi-random dice: the first roll of trial `i` is the `i mod 36`-th of
//!   a seeded shuffle of the 36 rolls and the second the `(i / 36) mod 36`-th
//!   of another, so every 36 trials see each first roll once and every
//!   1,296 each pair of first rolls once.
//! - Luck adjustment (variance reduction): at every turn the luck of the
//!   roll thrown, the 0-ply value of its best play minus the mean of that
//!   over the 21 rolls, is subtracted from the trial's result. Each term
//!   has mean zero whatever the value function, so the estimate stays
//!   unbiased while most of the dice's noise cancels.
//!   What it leaves is the net's own inconsistency, its 1-ply value less
//!   its 0-ply value at every position a trial reaches, summed along the
//!   game (`benches/rollout_consistency.py` measures it against gnubg's).
//!   So luck is measured with the evaluator's luck yardstick when it has
//!   one ([`Evaluator::luck_yardstick`]: a net fitted to its own 1-ply
//!   values, more self-consistent than nets fitted to choose plays), while
//!   the evaluator's own nets still choose every play, the luck pass's
//!   too: the yardstick values the plays the trial would make, so that
//!   its own choices, where they differ, add nothing to the noise.
//! - Truncation after a number of plies (the evaluator's value then stands
//!   in for the rest), and free truncation when the bear-off databases know
//!   the position exactly (cubeless, or money cubeful; cubeful match
//!   trials play bear-offs out with the live cube).
//! - Money or match ([`Stakes`]): cubeless trials choose plays by money
//!   equity or by EMG at the mover's score and cube; cubeful trials choose
//!   them by their cubeful value with the cube where it is, as hints do
//!   (the luck pass still picks each roll's play cubelessly: where the two
//!   differ the luck is measured along a neighbouring game, which adds
//!   noise and no bias), double, take and pass by the money or match cube
//!   model, and end with the points or the MWC the result is worth.
//! - Shards ([`rollout_shard`], [`merge_shards`]): trial ranges played
//!   apart (other processes, other machines) merge into exactly the result
//!   of one run.
//! - A match equity table of our own ([`met_rollout`]): the opening at
//!   every score, its progress kept on disk ([`met_progress`]).
//! - A cube decision is rolled out as two rollouts on the same dice, no
//!   double and double/take ([`rollout_cube`]), so their difference has a
//!   much smaller error than either.

mod batches;
pub mod met_progress;
pub mod met_rollout;
mod settings;
mod shard;
mod stakes;
mod summary;
mod trial;

use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;

use crate::cube::money::CubeAction;
use crate::evaluation::evaluator::{final_result, Evaluator};
use crate::evaluation::probs::Probs;
use crate::rules::position::Position;
use batches::run_batches;
pub use batches::BATCH;
pub use settings::{RolloutLevel, RolloutSettings};
pub use shard::{merge_shards, rollout_shard, RolloutShard, ShardError};
use stakes::TrialCube;
pub use stakes::{MatchStakes, Stakes};
use summary::summarize;
pub use summary::{Estimate, Passes, RolloutResult};
pub use trial::luck_pass_value;
use trial::{permutations, play_trial, Start, Trial, TrialEnd};

/// Rolls out `pos` (player on roll, before rolling) with `ev`. `progress`
/// sees the running result after each batch; `stop` ends the rollout
/// early (the partial result is returned).
pub fn rollout<E: Evaluator + ?Sized>(
    ev: &E,
    pos: &Position,
    s: &RolloutSettings,
    stop: &AtomicBool,
    progress: impl FnMut(&RolloutResult),
) -> RolloutResult {
    run_trials(ev, &|p: &Position| ev.exact(p), pos, s, stop, progress)
}

/// [`rollout`] with the source of exact values given.
fn run_trials<E: Evaluator + ?Sized>(
    ev: &E,
    exact: &(dyn Fn(&Position) -> Option<Probs> + Sync),
    pos: &Position,
    s: &RolloutSettings,
    stop: &AtomicBool,
    progress: impl FnMut(&RolloutResult),
) -> RolloutResult {
    let perms = permutations(s.seed);
    let start = Start {
        cube: TrialCube::at_root(&s.stakes),
        root_may_double: true,
        opening: false,
    };
    run_batches(
        s.trials,
        s.target_se,
        stop,
        |i| play_trial(ev, exact, pos, s, start, i, &perms),
        |t| summarize(t, s),
        |r| r.value().se,
        progress,
    )
}

/// A cube decision rolled out: no double and double/take on the same dice.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CubeRollout {
    /// Trials of each side (the same dice in both).
    pub trials: u32,
    /// The player on roll does not double now (it may later).
    pub no_double: RolloutResult,
    /// It doubles and the opponent takes.
    pub double_take: RolloutResult,
    /// Double/take minus no double, trial by trial.
    pub take_gain: Estimate,
    /// The equity of a double that is passed: +1 (in EMG or per cube).
    pub double_pass: f32,
    /// The proper action by the rolled-out equities.
    pub action: CubeAction,
}

impl CubeRollout {
    /// What doubling gains over not doubling, the opponent answering
    /// right (positive: double), with its standard error.
    pub fn double_margin(&self) -> Estimate {
        let nd = self.no_double.value();
        let dt = self.double_take.value();
        if dt.mean < self.double_pass {
            self.take_gain
        } else {
            Estimate {
                mean: self.double_pass - nd.mean,
                se: nd.se,
            }
        }
    }

    /// What taking gains the opponent over passing (positive: take).
    pub fn take_margin(&self) -> Estimate {
        let dt = self.double_take.value();
        Estimate {
            mean: self.double_pass - dt.mean,
            se: dt.se,
        }
    }
}

/// Rolls out the cube decision of the player on roll at `pos`: trial `i`
/// of no double and of double/take play the same dice, each with a live
/// cube (`s.cubeful` is taken as set). Equities are per unit of the
/// current cube, or EMG at a match score.
pub fn rollout_cube<E: Evaluator + ?Sized>(
    ev: &E,
    pos: &Position,
    s: &RolloutSettings,
    stop: &AtomicBool,
    progress: impl FnMut(&CubeRollout),
) -> CubeRollout {
    let s = &RolloutSettings {
        cubeful: true,
        ..s.clone()
    };
    let exact = |p: &Position| ev.exact(p);
    let perms = permutations(s.seed);
    let root = TrialCube::at_root(&s.stakes);
    let no_double = Start {
        cube: root,
        root_may_double: false,
        opening: false,
    };
    let double_take = Start {
        cube: root.doubled(true),
        root_may_double: false,
        opening: false,
    };
    let double_pass = s.stakes.root_equity(s.stakes.pass_value(root, true)) as f32;
    let summarize_pairs = |pairs: &[(Trial, Trial)]| {
        let nd: Vec<Trial> = pairs.iter().map(|p| p.0).collect();
        let dt: Vec<Trial> = pairs.iter().map(|p| p.1).collect();
        let (nd, dt) = (summarize(&nd, s), summarize(&dt, s));
        let gain = Estimate::of(
            pairs
                .iter()
                .map(|(a, b)| s.stakes.root_equity(b.cubeful) - s.stakes.root_equity(a.cubeful)),
        );
        let (ndv, dtv) = (nd.value().mean, dt.value().mean);
        CubeRollout {
            trials: nd.trials,
            no_double: nd,
            double_take: dt,
            take_gain: gain,
            double_pass,
            action: s.stakes.action(ndv, dtv, double_pass),
        }
    };
    run_batches(
        s.trials,
        s.target_se,
        stop,
        |i| {
            (
                play_trial(ev, &exact, pos, s, no_double, i, &perms),
                play_trial(ev, &exact, pos, s, double_take, i, &perms),
            )
        },
        summarize_pairs,
        |r| r.no_double.value().se.max(r.double_take.value().se),
        progress,
    )
}

/// One play's rollout among the plays compared by [`rollout_moves`].
#[derive(Clone, Debug)]
pub struct MoveRollout {
    /// Index of the play in the candidate list given.
    pub index: usize,
    /// The rollout of the position after it, from the mover's side.
    pub result: RolloutResult,
    /// Dropped early as clearly worse.
    pub eliminated: bool,
}

/// Rolls out several plays' resulting boards (mover's view) with common
/// dice, dropping a play once its value ([`RolloutResult::value`]) is
/// below the best by more than `z` joint standard errors. `s.stakes` are
/// the mover's; results are from the mover's side. `progress` sees every
/// play's result after each batch of trials.
pub fn rollout_moves<E: Evaluator + ?Sized>(
    ev: &E,
    afters: &[Position],
    s: &RolloutSettings,
    z: f32,
    stop: &AtomicBool,
    mut progress: impl FnMut(&[MoveRollout]),
) -> Vec<MoveRollout> {
    let exact = |p: &Position| ev.exact(p);
    let perms = permutations(s.seed);
    let roots: Vec<Position> = afters.iter().map(Position::swapped).collect();
    // The trials are played from the opponent's side.
    let theirs = RolloutSettings {
        stakes: s.stakes.swapped(),
        ..s.clone()
    };
    let start = Start {
        cube: TrialCube::at_root(&theirs.stakes),
        root_may_double: true,
        opening: false,
    };
    let mut trials: Vec<Vec<Trial>> = vec![Vec::new(); afters.len()];
    let mut alive: Vec<bool> = vec![true; afters.len()];
    let mut done = 0u32;
    let mut results: Vec<RolloutResult> = vec![summarize(&[], s); afters.len()];
    while done < s.trials && !stop.load(Ordering::Relaxed) {
        let hi = (done + BATCH).min(s.trials);
        for (m, root) in roots.iter().enumerate() {
            if !alive[m] {
                continue;
            }
            // A play that ends the game needs no trials.
            if let Some(p) = final_result(&afters[m]) {
                let t = Trial {
                    probs: p.0.map(f64::from),
                    cubeful: s.stakes.end_value(&p, TrialCube::at_root(&s.stakes), true),
                    end: TrialEnd::Played,
                };
                trials[m].extend((done..hi).map(|_| t));
                continue;
            }
            let batch: Vec<Trial> = (done..hi)
                .into_par_iter()
                .map(|i| {
                    play_trial(ev, &exact, root, &theirs, start, i, &perms).flipped(&theirs.stakes)
                })
                .collect();
            trials[m].extend(batch);
        }
        done = hi;
        for m in 0..afters.len() {
            if alive[m] {
                results[m] = summarize(&trials[m], s);
            }
        }
        let best = (0..afters.len())
            .filter(|&m| alive[m])
            .max_by(|&a, &b| results[a].value().mean.total_cmp(&results[b].value().mean))
            .expect("one alive");
        for m in 0..afters.len() {
            if m != best && alive[m] && done >= 2 * BATCH {
                let (vm, vb) = (results[m].value(), results[best].value());
                let joint = (vm.se.powi(2) + vb.se.powi(2)).sqrt();
                if vb.mean - vm.mean > z * joint.max(1e-6) {
                    alive[m] = false;
                }
            }
        }
        let so_far = move_rollouts(&results, &alive);
        progress(&so_far);
        if alive.iter().filter(|&&a| a).count() == 1 {
            break;
        }
    }
    move_rollouts(&results, &alive)
}

fn move_rollouts(results: &[RolloutResult], alive: &[bool]) -> Vec<MoveRollout> {
    (0..results.len())
        .map(|m| MoveRollout {
            index: m,
            result: results[m],
            eliminated: !alive[m],
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evaluation::bearoff::Bearoff;
    use crate::evaluation::evaluator::NetEvaluator;
    use crate::rollout::trial::Dicer;
    use crate::rules::dice::Dice;
    use crate::rules::movegen::{generate, MoveList};
    use crate::rules::position::Checkers;
    use rand::SeedableRng;
    use rand_xoshiro::Xoshiro256PlusPlus;
    use std::sync::Arc;

    fn side(points: &[(usize, u8)]) -> Checkers {
        crate::rules::position::test_side(points, 0)
    }

    fn evaluator(db: Option<Arc<Bearoff>>) -> NetEvaluator {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
        NetEvaluator {
            contact: crate::evaluation::net::Net::random(
                crate::evaluation::inputs::Layout::V2.inputs(),
                32,
                &mut rng,
            ),
            race: crate::evaluation::net::Net::random(
                crate::evaluation::inputs::Layout::V2.inputs(),
                32,
                &mut rng,
            ),
            blitz: None,
            back_game: None,
            bearoff: db,
            layout: crate::evaluation::inputs::Layout::V2,
            luck: None,
            prefilter: None,
        }
    }

    #[test]
    fn cubeful_trials_play_by_the_cube_and_cubeless_ones_do_not() {
        // 5-point match, a real position where the cube changes the play:
        // with 62 the cubeful best is 24/18 10/8 (by 0.062 EMG), the
        // cubeless (dead-cube EMG) best the gammonish 10/4* 6/4 (by 0.022). Trial after trial, a cubeful rollout
        // truncated after one play must reach the cubeful play's board on
        // that roll, as `hint` ranks it, and a cubeless one the other.
        use crate::cube::decision::{rank_plays, PlayEquity};
        use crate::formats::{match_id, position_id};
        use crate::rollout::trial::{permutations, play_trial, Start};
        let bytes = include_bytes!("../../../weights/sheshbesh.weights");
        let ev = NetEvaluator::from_weights(&crate::evaluation::weights::decode(bytes).unwrap())
            .unwrap();
        let pos = position_id::decode("sGfwAQXgc+JBIA").unwrap();
        let state = match_id::decode("MAGrADAAEAAE").unwrap();
        let dice = Dice::new(6, 2).unwrap();
        let best = |equity| {
            rank_plays(&ev, &pos, dice, &state, 0, equity).unwrap()[0]
                .candidate
                .position
        };
        let (cubeful, cubeless) = (best(PlayEquity::Cubeful), best(PlayEquity::Cubeless));
        assert_ne!(
            cubeful, cubeless,
            "the fixture no longer tells the two apart"
        );
        let stakes = Stakes::for_state(&state).unwrap();
        for (is_cubeful, expected) in [(true, cubeful), (false, cubeless)] {
            let s = RolloutSettings {
                trials: 36,
                truncate: Some(1),
                cubeful: is_cubeful,
                luck: false,
                stakes: stakes.clone(),
                ..RolloutSettings::default()
            };
            let perms = permutations(s.seed);
            let start = Start {
                cube: TrialCube::at_root(&stakes),
                root_may_double: false,
                opening: false,
            };
            let i = (0..36)
                .find(|&i| Dicer::new(&s, i, &perms, false).roll().high_first() == dice)
                .unwrap();
            let t = play_trial(&ev, &|_: &Position| None, &pos, &s, start, i, &perms);
            let reached = ev.eval(&expected.swapped()).flipped().0.map(f64::from);
            for (a, b) in t.probs.iter().zip(&reached) {
                assert!((a - b).abs() < 1e-6, "cubeful {is_cubeful}: {:?}", t.probs);
            }
        }
    }

    #[test]
    fn a_luck_yardstick_measures_luck_and_leaves_the_mean() {
        // The same nets as yardstick reproduce the rollout (to rounding:
        // the play is then chosen apart from the luck pass); another net
        // as yardstick changes every trial's luck but not what the trials
        // estimate.
        let ev = evaluator(None);
        let other = {
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(77);
            crate::evaluation::net::Net::random(
                crate::evaluation::inputs::Layout::V2.inputs(),
                32,
                &mut rng,
            )
        };
        let s = RolloutSettings {
            trials: 648,
            truncate: Some(6),
            ..RolloutSettings::default()
        };
        let stop = AtomicBool::new(false);
        let pos = Position::start();
        let plain = rollout(&ev, &pos, &s, &stop, |_| {});
        let same = ev.clone().with_luck(Some(&ev.contact));
        assert!(same.luck_yardstick().is_some());
        let r = rollout(&same, &pos, &s, &stop, |_| {});
        for k in 0..5 {
            assert!(
                (r.probs.0[k] - plain.probs.0[k]).abs() < 1e-4,
                "{r:?} {plain:?}"
            );
        }
        let apart = ev.clone().with_luck(Some(&other));
        let r = rollout(&apart, &pos, &s, &stop, |_| {});
        assert!((r.probs.win() - plain.probs.win()).abs() > 1e-4);
        let se = (r.probs_se[0].powi(2) + plain.probs_se[0].powi(2)).sqrt();
        assert!(
            (r.probs.win() - plain.probs.win()).abs() < 4.0 * se,
            "{} vs {} ± {se}",
            r.probs.win(),
            plain.probs.win()
        );
    }

    #[test]
    fn the_luck_pass_value_is_a_shortlisted_one_ply() {
        use crate::search::ply::Ply;
        let ev = evaluator(None);
        let one_ply = |pos: &Position| Ply::new(&ev, 1).eval(pos);
        // Where no roll has more plays than the shortlist, it is the
        // 1-ply value; elsewhere the shortlist can miss the best play, so
        // its equity is at most the 1-ply one.
        let few = Position {
            me: side(&[(20, 1)]),
            opp: side(&[(20, 1)]),
        };
        assert!(few.is_contact());
        let (a, b) = (luck_pass_value(&ev, &few), one_ply(&few));
        for k in 0..5 {
            assert!((a.0[k] - b.0[k]).abs() < 1e-5, "{a:?} {b:?}");
        }
        let start = Position::start();
        let (a, b) = (luck_pass_value(&ev, &start), one_ply(&start));
        assert!(a.equity() < b.equity() - 1e-4, "{a:?} {b:?}");
    }

    #[test]
    fn quasi_random_dice_are_stratified() {
        let s = RolloutSettings::default();
        let perms = permutations(s.seed);
        let mut firsts = std::collections::HashSet::new();
        let mut pairs = std::collections::HashSet::new();
        for i in 0..1296 {
            let mut d = Dicer::new(&s, i, &perms, false);
            let (a, b) = (d.roll(), d.roll());
            if i < 36 {
                firsts.insert((a.first(), a.second()));
            }
            pairs.insert((a.first(), a.second(), b.first(), b.second()));
        }
        assert_eq!(firsts.len(), 36);
        assert_eq!(pairs.len(), 1296);
        // An opening roll is never a double: the 30 others, each once in
        // 30 trials, with or without stratification.
        for quasi in [true, false] {
            let s = RolloutSettings { quasi, ..s.clone() };
            let mut firsts = std::collections::HashSet::new();
            for i in 0..300 {
                let d = Dicer::new(&s, i, &perms, true).roll();
                assert!(!d.is_double());
                if i < 30 {
                    firsts.insert((d.first(), d.second()));
                }
            }
            assert_eq!(firsts.len() == 30, quasi);
        }
    }

    /// The same chances everywhere, with no gammons.
    struct Flat(f32);

    impl Evaluator for Flat {
        fn eval_batch(&self, positions: &[Position], out: &mut [Probs]) {
            out[..positions.len()].fill(Probs([self.0, 0.0, 0.0, 0.0, 0.0]));
        }
    }

    #[test]
    fn a_passed_double_is_not_reported_as_a_cubeless_win() {
        // 85% without gammons is past the money cash point (80%): every
        // trial ends in a double and a pass before a checker moves. The
        // cubeful equity is the pass's +1; the cubeless chances are the
        // position's, where it was passed, not a won game.
        let s = RolloutSettings {
            trials: 36,
            cubeful: true,
            ..RolloutSettings::default()
        };
        let stop = AtomicBool::new(false);
        let r = rollout(&Flat(0.85), &Position::start(), &s, &stop, |_| {});
        assert!((r.probs.win() - 0.85).abs() < 1e-6, "{r:?}");
        assert!((r.equity.mean - 0.7).abs() < 1e-5, "{r:?}");
        assert!((r.cubeful.unwrap().mean - 1.0).abs() < 1e-6, "{r:?}");
        // And counted as what they were.
        let every = Passes {
            by_opponent: 36,
            by_root: 0,
        };
        assert_eq!(r.passes, Some(every));
        let cubeless = RolloutSettings {
            cubeful: false,
            ..s.clone()
        };
        assert_eq!(
            rollout(&Flat(0.15), &Position::start(), &cubeless, &stop, |_| {}).passes,
            None
        );
    }

    #[test]
    fn results_do_not_depend_on_the_thread_count() {
        let ev = evaluator(None);
        let s = RolloutSettings {
            trials: 72,
            truncate: Some(6),
            cubeful: true,
            ..RolloutSettings::default()
        };
        let stop = AtomicBool::new(false);
        let run = |threads: usize| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| rollout(&ev, &Position::start(), &s, &stop, |_| {}))
        };
        assert_eq!(run(1), run(3));
    }

    #[test]
    fn shards_merge_into_exactly_the_rollout_for_any_split() {
        let ev = evaluator(None);
        let pos = Position::start();
        let stop = AtomicBool::new(false);
        for cubeful in [false, true] {
            let s = RolloutSettings {
                trials: 75,
                truncate: Some(5),
                cubeful,
                seed: 9,
                ..RolloutSettings::default()
            };
            let whole = rollout(&ev, &pos, &s, &stop, |_| {});
            for cuts in [vec![], vec![1], vec![36, 37], vec![10, 20, 50, 74]] {
                let mut bounds = vec![0];
                bounds.extend(cuts.iter().copied());
                bounds.push(s.trials);
                // Shards given in reverse order, each through its bytes.
                let shards: Vec<RolloutShard> = bounds
                    .windows(2)
                    .rev()
                    .map(|w| {
                        let shard = rollout_shard(&ev, &pos, &s, w[0]..w[1]).unwrap();
                        RolloutShard::from_bytes(&shard.to_bytes()).unwrap()
                    })
                    .collect();
                assert_eq!(merge_shards(&pos, &s, &shards).unwrap(), whole, "{cuts:?}");
            }
        }
    }

    #[test]
    fn shards_that_do_not_tile_or_belong_elsewhere_are_refused() {
        let ev = evaluator(None);
        let pos = Position::start();
        let s = RolloutSettings {
            trials: 20,
            truncate: Some(3),
            ..RolloutSettings::default()
        };
        let shard = |r: std::ops::Range<u32>| rollout_shard(&ev, &pos, &s, r).unwrap();
        let (a, b, c) = (shard(0..10), shard(10..20), shard(5..15));
        assert!(matches!(
            merge_shards(&pos, &s, std::slice::from_ref(&a)),
            Err(ShardError::Tiling { at: 10, .. })
        ));
        assert!(matches!(
            merge_shards(&pos, &s, &[a.clone(), b.clone(), c]),
            Err(ShardError::Tiling { at: 5, .. })
        ));
        let other = RolloutSettings {
            seed: 2,
            ..s.clone()
        };
        assert!(matches!(
            merge_shards(&pos, &other, &[a.clone(), b.clone()]),
            Err(ShardError::Foreign { start: 0, .. })
        ));
        assert!(merge_shards(&pos, &s, &[b, a.clone()]).is_ok());
        assert!(matches!(
            rollout_shard(&ev, &pos, &s, 15..21),
            Err(ShardError::Range { .. })
        ));
        let mut bytes = a.to_bytes();
        bytes.pop();
        assert!(matches!(
            RolloutShard::from_bytes(&bytes),
            Err(ShardError::Bytes(_))
        ));
        // A trial's end byte out of range, and a shard of format 1.
        let mut bytes = a.to_bytes();
        *bytes.last_mut().unwrap() = 7;
        assert!(matches!(
            RolloutShard::from_bytes(&bytes),
            Err(ShardError::Bytes(why)) if why.contains("end")
        ));
        let mut bytes = a.to_bytes();
        bytes[7] = b'1';
        assert!(matches!(
            RolloutShard::from_bytes(&bytes),
            Err(ShardError::Bytes(why)) if why.contains("version")
        ));
        assert!(matches!(
            RolloutShard::from_bytes(b"not a shard"),
            Err(ShardError::Bytes(_))
        ));
    }

    #[test]
    fn luck_adjustment_is_unbiased_on_an_exact_bear_off() {
        // A bear-off the databases know exactly, rolled out by a net that
        // has never been trained: with the databases as the value the
        // rollout must agree with them within its error, with and without
        // luck adjustment, and the adjustment must shrink the error.
        let db = Arc::new(Bearoff::build());
        let ev = evaluator(Some(db.clone()));
        let pos = Position {
            me: side(&[(6, 2), (5, 2), (4, 3), (3, 1)]),
            opp: side(&[(6, 2), (4, 2), (3, 2), (2, 2)]),
        };
        // Start from the position after the first roll so the databases
        // are not consulted at the root itself: evaluate each roll's best
        // play exactly and compare with the rollout of the root.
        let exact_win = {
            let mut sum = 0.0;
            for d in Dice::all_21() {
                let mut list = MoveList::new();
                generate(&pos, d, &mut list);
                let best = list
                    .iter()
                    .map(|c| match final_result(&c.position) {
                        Some(p) => p.win(),
                        None => db.probs(&c.position.swapped()).flipped().win(),
                    })
                    .fold(0.0f32, f32::max);
                sum += best * d.weight() as f32 / 36.0;
            }
            sum
        };
        let stop = AtomicBool::new(false);
        // The databases everywhere but at the root, which is played.
        let exact = |p: &Position| if *p == pos { None } else { ev.exact(p) };
        let mut se = Vec::new();
        for luck in [false, true] {
            let s = RolloutSettings {
                trials: 1296,
                luck,
                ..RolloutSettings::default()
            };
            let r = run_trials(&ev, &exact, &pos, &s, &stop, |_| {});
            let err = (r.probs.win() - exact_win).abs();
            assert!(
                err < 4.0 * r.probs_se[0] + 1e-3,
                "luck {luck}: {} vs {exact_win} ± {}",
                r.probs.win(),
                r.probs_se[0]
            );
            se.push(r.probs_se[0]);
        }
        assert!(
            se[1] < 0.5 * se[0],
            "luck adjustment should cut the error: {se:?}"
        );
    }

    fn match_stakes(me: u32, opp: u32, cube: u32, owner: crate::cube::money::Owner) -> Stakes {
        use crate::cube::met::{Met, Score};
        Stakes::Match(
            MatchStakes::new(
                std::sync::Arc::new(Met::kazaross_xg2().clone()),
                Score::pre(me, opp),
                cube,
                owner,
            )
            .unwrap(),
        )
    }

    #[test]
    fn a_certain_gammon_is_scored_through_the_match_table() {
        // The player on roll bears off its last checker with any roll; the
        // opponent has none off: a gammon. Cubeless at 5-away 3-away it is
        // worth the MWC after winning two points; cubeful at 2-away with
        // its own dead 2-cube (no double to make), the match.
        use crate::cube::met::{Met, Score};
        use crate::cube::money::Owner;
        let pos = Position {
            me: side(&[(1, 1)]),
            opp: side(&[(6, 5), (5, 5), (4, 5)]),
        };
        let ev = evaluator(None);
        let stop = AtomicBool::new(false);
        let cases = [
            (
                false,
                match_stakes(5, 3, 1, Owner::Centred),
                Met::kazaross_xg2().after(Score::pre(5, 3), 2).unwrap(),
            ),
            (true, match_stakes(2, 3, 2, Owner::Me), 1.0),
        ];
        for (cubeful, stakes, want) in cases {
            let s = RolloutSettings {
                trials: 36,
                cubeful,
                stakes,
                ..RolloutSettings::default()
            };
            let r = rollout(&ev, &pos, &s, &stop, |_| {});
            let mwc = if cubeful { r.cubeful_mwc } else { r.mwc }.unwrap();
            assert!(
                (mwc.mean - want).abs() < 1e-6 && mwc.se < 1e-6,
                "{mwc:?} {want}"
            );
            // At least a single game's worth, in EMG.
            assert!(r.value().mean > 0.999, "{:?}", r.value());
        }
    }

    #[test]
    fn the_crawford_game_is_played_cubeless() {
        // No cube in the Crawford game: trial by trial the cubeful MWC is
        // the cubeless one, luck adjustment included.
        let ev = evaluator(None);
        let stop = AtomicBool::new(false);
        let s = RolloutSettings {
            trials: 72,
            truncate: Some(8),
            cubeful: true,
            stakes: match_stakes(1, 4, 1, crate::cube::money::Owner::Centred),
            ..RolloutSettings::default()
        };
        let r = rollout(&ev, &Position::start(), &s, &stop, |_| {});
        let (a, b) = (r.mwc.unwrap(), r.cubeful_mwc.unwrap());
        assert!(
            (a.mean - b.mean).abs() < 1e-4 && (a.se - b.se).abs() < 1e-4,
            "{a:?} {b:?}"
        );
    }

    #[test]
    fn double_take_is_the_same_dice_with_the_doubled_cube() {
        // Money: the double/take side of a cube rollout is trial for
        // trial twice a rollout with the opponent owning the cube, so both
        // sides are played on the same dice and counted in the root's cube.
        let ev = evaluator(None);
        let stop = AtomicBool::new(false);
        let s = RolloutSettings {
            trials: 72,
            truncate: Some(6),
            cubeful: true,
            ..RolloutSettings::default()
        };
        let c = rollout_cube(&ev, &Position::start(), &s, &stop, |_| {});
        let owned = RolloutSettings {
            stakes: Stakes::Money(crate::cube::money::MoneyCube {
                owner: crate::cube::money::Owner::Opponent,
                ..crate::cube::money::MoneyCube::default()
            }),
            ..s.clone()
        };
        let r = rollout(&ev, &Position::start(), &owned, &stop, |_| {});
        let (dt, half) = (c.double_take.value(), r.value());
        assert!((dt.mean - 2.0 * half.mean).abs() < 1e-5, "{dt:?} {half:?}");
        assert!((dt.se - 2.0 * half.se).abs() < 1e-5);
        assert_eq!(c.double_pass, 1.0);
        assert_eq!(c.trials, 72);
        // The paired difference is the difference of the means.
        let nd = c.no_double.value();
        assert!((c.take_gain.mean - (dt.mean - nd.mean)).abs() < 1e-5);
    }
}
