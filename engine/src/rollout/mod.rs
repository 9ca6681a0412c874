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
//! - Truncation after a number of plies (the evaluator's value then stands
//!   in for the rest), and free truncation when the bear-off databases know
//!   the position exactly.
//! - Cubeful trials double, take and pass by the money cube model of
//!   [`crate::cube::money`] at each turn and score points times the cube.

use std::sync::atomic::{AtomicBool, Ordering};

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use rayon::prelude::*;
use rustc_hash::FxHashMap;

use crate::cube::money::{self, MoneyCube, Owner};
use crate::evaluation::evaluator::{final_result, Evaluator};
use crate::evaluation::probs::Probs;
use crate::rules::dice::Dice;
use crate::rules::movegen::{generate, MoveList};
use crate::rules::position::Position;
use crate::search::ply::Searcher;

/// How to roll out.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RolloutSettings {
    /// Most trials.
    pub trials: u32,
    /// Checker play depth during the trials.
    pub ply: u32,
    /// Stop each trial after this many plies and use the evaluator's value.
    pub truncate: Option<u32>,
    /// Play with a cube (money play).
    pub cubeful: bool,
    /// Luck adjustment.
    pub luck: bool,
    /// Stratified first two rolls.
    pub quasi: bool,
    /// Seed of the dice.
    pub seed: u64,
    /// Stop once the cubeless equity's standard error is below this.
    pub target_se: Option<f32>,
    /// Money cube rules at the root (owner seen from the player on roll).
    pub cube: MoneyCube,
}

impl Default for RolloutSettings {
    fn default() -> Self {
        RolloutSettings {
            trials: 1296,
            ply: 0,
            truncate: None,
            cubeful: false,
            luck: true,
            quasi: true,
            seed: 1,
            target_se: None,
            cube: MoneyCube::default(),
        }
    }
}

/// Named analysis levels, from quick mini-rollouts to a full rollout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RolloutLevel {
    /// 72 trials at 0-ply truncated after 7 plies.
    Roller,
    /// 216 trials at 0-ply truncated after 11 plies.
    RollerPlus,
    /// 216 trials at 1-ply truncated after 9 plies.
    RollerPlusPlus,
    /// 1,296 trials at 0-ply played to the end.
    Full,
}

impl RolloutLevel {
    /// The level's settings (seed and cube from `base`).
    pub fn settings(self, base: RolloutSettings) -> RolloutSettings {
        let (trials, ply, truncate) = match self {
            RolloutLevel::Roller => (72, 0, Some(7)),
            RolloutLevel::RollerPlus => (216, 0, Some(11)),
            RolloutLevel::RollerPlusPlus => (216, 1, Some(9)),
            RolloutLevel::Full => (1296, 0, None),
        };
        RolloutSettings {
            trials,
            ply,
            truncate,
            luck: true,
            quasi: true,
            target_se: None,
            ..base
        }
    }

    /// Reads a level's name (`roller`, `roller+`, `roller++`, `full`).
    pub fn parse(s: &str) -> Option<RolloutLevel> {
        match s.to_ascii_lowercase().as_str() {
            "roller" => Some(RolloutLevel::Roller),
            "roller+" => Some(RolloutLevel::RollerPlus),
            "roller++" => Some(RolloutLevel::RollerPlusPlus),
            "full" => Some(RolloutLevel::Full),
            _ => None,
        }
    }
}

/// One trial's luck-adjusted result, from the root player's side.
#[derive(Clone, Copy, Debug, Default)]
struct Trial {
    probs: [f64; 5],
    cubeful: f64,
}

/// A rollout's estimate with its standard errors.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RolloutResult {
    /// Trials played.
    pub trials: u32,
    /// Mean outcome probabilities for the player on roll.
    pub probs: Probs,
    /// Their standard errors.
    pub probs_se: [f32; 5],
    /// Cubeless equity.
    pub equity: f32,
    /// Its standard error.
    pub equity_se: f32,
    /// Cubeful equity (cubeful rollouts).
    pub cubeful: Option<f32>,
    /// Its standard error.
    pub cubeful_se: Option<f32>,
    /// The seed.
    pub seed: u64,
}

impl RolloutResult {
    /// 95% confidence half-width of the cubeless equity.
    pub fn equity_ci95(&self) -> f32 {
        1.96 * self.equity_se
    }
}

/// The 36 rolls as ordered dice pairs.
fn rolls36() -> [Dice; 36] {
    std::array::from_fn(|k| Dice::new(k as u8 / 6 + 1, k as u8 % 6 + 1).expect("1..6"))
}

struct Dicer {
    rng: Xoshiro256PlusPlus,
    fixed: [Option<Dice>; 2],
    turn: usize,
}

impl Dicer {
    fn new(s: &RolloutSettings, trial: u32, perms: &[[Dice; 36]; 2]) -> Dicer {
        let rng = Xoshiro256PlusPlus::seed_from_u64(
            s.seed.rotate_left(17) ^ u64::from(trial).wrapping_mul(0x9E37_79B9_7F4A_7C15),
        );
        let fixed = if s.quasi {
            let i = trial as usize;
            [Some(perms[0][i % 36]), Some(perms[1][(i / 36) % 36])]
        } else {
            [None, None]
        };
        Dicer {
            rng,
            fixed,
            turn: 0,
        }
    }

    fn roll(&mut self) -> Dice {
        let t = self.turn;
        self.turn += 1;
        if t < 2 {
            if let Some(d) = self.fixed[t] {
                return d;
            }
        }
        Dice::new(self.rng.gen_range(1..=6), self.rng.gen_range(1..=6)).expect("1..6")
    }
}

/// Cube state during a cubeful trial, from the root player's side.
#[derive(Clone, Copy)]
struct TrialCube {
    value: f64,
    /// `Some(true)`: the root player owns it.
    owner: Option<bool>,
}

impl TrialCube {
    fn for_mover(self, mover_is_root: bool, rules: MoneyCube) -> MoneyCube {
        let owner = match self.owner {
            None => Owner::Centred,
            Some(r) if r == mover_is_root => Owner::Me,
            Some(_) => Owner::Opponent,
        };
        MoneyCube { owner, ..rules }
    }
}

/// The cubeful value, per unit cube, for the player on roll with these
/// probabilities, taking the right cube action first.
fn cube_value(p: &Probs, cube: MoneyCube, x: f32) -> f32 {
    let d = money::money_decision(p, cube, x);
    match cube.owner {
        Owner::Opponent => d.no_double,
        _ => d.no_double.max(d.double_take.min(d.double_pass)),
    }
}

/// Plays per roll the luck pass values with the net: the best few by
/// pubeval's cheap linear score (see [`LuckPass`]).
const LUCK_SHORTLIST: usize = 8;

/// The luck pass of one turn: the 0-ply value of the best play of each of
/// the 21 rolls, valued in one batch. Two economies keep it cheap, as
/// gnubg's pruning nets do for its own 0-ply:
/// - only the best [`LUCK_SHORTLIST`] plays of a roll by pubeval's linear
///   score are valued by the net. Luck is then measured with a slightly
///   different yardstick, the best of the shortlist, used alike for the
///   roll thrown and the mean over rolls, so the adjustment stays unbiased
///   (a roll's luck has mean zero for any fixed way of valuing it); the roll
///   thrown still has every play valued, so the play chosen at 0-ply is the
///   net's own choice;
/// - rolls with the same pip total often reach the same board (`13/8` with
///   41 and with 32), so each distinct board is valued once.
#[derive(Default)]
struct LuckPass {
    list: MoveList,
    /// Every play's board (mover's side), roll after roll.
    after: Vec<Position>,
    /// Each roll's range in `after`.
    rolls: Vec<(usize, usize)>,
    /// Per play: the game's end for the mover, or the index of its board
    /// (opponent's side) in `boards`, or `None` when it is not valued.
    slot: Vec<Option<Result<usize, Probs>>>,
    /// Per play: on its roll's shortlist.
    listed: Vec<bool>,
    boards: Vec<Position>,
    values: Vec<Probs>,
    seen: FxHashMap<Position, usize>,
    scores: Vec<(f32, usize)>,
}

impl LuckPass {
    /// Values the plays of every roll; every play of `full` (the roll
    /// thrown, when the play is chosen from this pass) is valued.
    fn fill<E: Evaluator + ?Sized>(&mut self, base: &E, pos: &Position, full: Option<Dice>) {
        self.after.clear();
        self.rolls.clear();
        self.slot.clear();
        self.listed.clear();
        self.boards.clear();
        self.seen.clear();
        let race = !pos.is_contact();
        for r in Dice::all_21() {
            generate(pos, r, &mut self.list);
            let start = self.after.len();
            let cands = self.list.as_slice();
            let everyone = cands.len() <= LUCK_SHORTLIST;
            if everyone {
                self.listed.extend(std::iter::repeat_n(true, cands.len()));
            } else {
                self.scores.clear();
                self.scores.extend(
                    cands
                        .iter()
                        .enumerate()
                        .map(|(i, c)| (crate::evaluation::pubeval::score(&c.position, race), i)),
                );
                // The shortlist: highest scores, the first on ties.
                self.scores
                    .sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
                let first = self.listed.len();
                self.listed.extend(std::iter::repeat_n(false, cands.len()));
                for &(_, i) in &self.scores[..LUCK_SHORTLIST] {
                    self.listed[first + i] = true;
                }
            }
            let value_all = Some(r) == full;
            for (i, c) in cands.iter().enumerate() {
                self.after.push(c.position);
                if !(value_all || self.listed[start + i]) {
                    self.slot.push(None);
                    continue;
                }
                let slot = match final_result(&c.position) {
                    Some(p) => Err(p),
                    None => {
                        let board = c.position.swapped();
                        let next = self.boards.len();
                        let j = *self.seen.entry(board).or_insert(next);
                        if j == next {
                            self.boards.push(board);
                        }
                        Ok(j)
                    }
                };
                self.slot.push(Some(slot));
            }
            self.rolls.push((start, self.after.len()));
        }
        self.values.clear();
        self.values.resize(self.boards.len(), Probs::default());
        base.eval_batch(&self.boards, &mut self.values);
    }

    /// The best valued play of roll `k` (index into `after`) and its value
    /// for the mover: among the shortlist, or among every play.
    fn best(&self, k: usize, shortlist: bool) -> (usize, Probs) {
        let (a, b) = self.rolls[k];
        let mut best: Option<(usize, Probs)> = None;
        for i in a..b {
            if shortlist && !self.listed[i] {
                continue;
            }
            let v = match self.slot[i] {
                Some(Ok(j)) => self.values[j].flipped(),
                Some(Err(p)) => p,
                None => continue,
            };
            if best.is_none_or(|(_, bv)| v.equity() > bv.equity()) {
                best = Some((i, v));
            }
        }
        best.expect("every roll has a valued play")
    }
}

fn play_trial<E: Evaluator + ?Sized>(
    base: &E,
    exact: &(dyn Fn(&Position) -> Option<Probs> + Sync),
    root: &Position,
    s: &RolloutSettings,
    trial: u32,
    perms: &[[Dice; 36]; 2],
) -> Trial {
    let mut dicer = Dicer::new(s, trial, perms);
    let mut chooser = Searcher::new(base, s.ply);
    let mut list = MoveList::new();
    let mut scratch = LuckPass::default();
    let mut pos = *root;
    let mut mover_is_root = true;
    let mut luck = [0.0f64; 5];
    let mut cube_luck = 0.0f64;
    let mut cube = TrialCube {
        value: 1.0,
        owner: match s.cube.owner {
            Owner::Centred => None,
            Owner::Me => Some(true),
            Owner::Opponent => Some(false),
        },
    };
    let to_root = |p: Probs, mover_is_root: bool| if mover_is_root { p } else { p.flipped() };
    let mut plies = 0u32;
    let (outcome, cubeful): (Probs, f64) = loop {
        // Value of the position for the mover, when the trial stops here.
        let stop_value = if let Some(p) = exact(&pos) {
            Some(p)
        } else if s.truncate.is_some_and(|t| plies >= t) {
            Some(base.eval(&pos))
        } else {
            None
        };
        if let Some(p) = stop_value {
            let x = money::efficiency(&pos);
            let cv = if s.cubeful {
                f64::from(cube_value(&p, cube.for_mover(mover_is_root, s.cube), x)) * cube.value
            } else {
                0.0
            };
            let sign = if mover_is_root { 1.0 } else { -1.0 };
            break (to_root(p, mover_is_root), sign * cv);
        }
        if s.cubeful {
            let mc = cube.for_mover(mover_is_root, s.cube);
            if mc.owner != Owner::Opponent {
                let p = base.eval(&pos);
                let d = money::money_decision(&p, mc, money::efficiency(&pos));
                if d.double_take.min(d.double_pass) > d.no_double {
                    if d.double_take >= d.double_pass {
                        // Passed: the mover wins the cube's value.
                        let sign = if mover_is_root { 1.0 } else { -1.0 };
                        break (to_root(Probs::certain(1), mover_is_root), sign * cube.value);
                    }
                    cube.value *= 2.0;
                    cube.owner = Some(!mover_is_root);
                }
            }
        }
        let dice = dicer.roll();
        // At 0-ply the luck pass below finds the play for the roll thrown.
        let mut played: Option<Position> = None;
        if s.luck {
            // The 0-ply value of each roll's best play, and of the roll
            // thrown.
            let mut mean = [0.0f64; 5];
            let mut mean_cube = 0.0f64;
            let mut thrown = [0.0f64; 5];
            let mut thrown_cube = 0.0f64;
            let thrown_roll = dice.high_first();
            scratch.fill(base, &pos, (s.ply == 0).then_some(thrown_roll));
            for (k, r) in Dice::all_21().enumerate() {
                let (_, best) = scratch.best(k, true);
                if s.ply == 0 && r == thrown_roll {
                    played = Some(scratch.after[scratch.best(k, false).0]);
                }
                let w = f64::from(r.weight()) / 36.0;
                let cv = if s.cubeful {
                    // After the play the opponent is on roll with the cube.
                    let opp_cube = cube.for_mover(!mover_is_root, s.cube);
                    let after_pos = scratch.after[scratch.rolls[k].0].swapped();
                    -f64::from(cube_value(
                        &best.flipped(),
                        opp_cube,
                        money::efficiency(&after_pos),
                    )) * cube.value
                } else {
                    0.0
                };
                for (m, &b) in mean.iter_mut().zip(&best.0) {
                    *m += w * f64::from(b);
                }
                mean_cube += w * cv;
                if r == dice.high_first() {
                    thrown = best.0.map(f64::from);
                    thrown_cube = cv;
                }
            }
            let rootwise = |v: [f64; 5]| -> [f64; 5] {
                if mover_is_root {
                    v
                } else {
                    [1.0 - v[0], v[3], v[4], v[1], v[2]]
                }
            };
            let (t, m) = (rootwise(thrown), rootwise(mean));
            for k in 0..5 {
                luck[k] += t[k] - m[k];
            }
            let sign = if mover_is_root { 1.0 } else { -1.0 };
            cube_luck += sign * (thrown_cube - mean_cube);
        }
        let after = match played {
            Some(a) => a,
            None => {
                generate(&pos, dice, &mut list);
                let pick =
                    crate::search::chooser::Chooser::choose(&mut chooser, &pos, list.as_slice());
                list.as_slice()[pick].position
            }
        };
        plies += 1;
        if let Some(p) = final_result(&after) {
            let mut pts = f64::from(p.equity());
            // Jacoby: gammons count single while the cube is centred.
            if s.cube.jacoby && cube.owner.is_none() {
                pts = pts.signum();
            }
            let sign = if mover_is_root { 1.0 } else { -1.0 };
            break (to_root(p, mover_is_root), sign * pts * cube.value);
        }
        pos = after.swapped();
        mover_is_root = !mover_is_root;
    };
    let mut probs = outcome.0.map(f64::from);
    for k in 0..5 {
        probs[k] -= luck[k];
    }
    Trial {
        probs,
        cubeful: cubeful - cube_luck,
    }
}

fn mean_se(xs: impl Iterator<Item = f64> + Clone, n: f64) -> (f64, f64) {
    let mean = xs.clone().sum::<f64>() / n;
    let var = if n > 1.0 {
        xs.map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)
    } else {
        0.0
    };
    (mean, (var / n).sqrt())
}

fn summarize(trials: &[Trial], s: &RolloutSettings) -> RolloutResult {
    let n = trials.len().max(1) as f64;
    let mut probs = [0.0f32; 5];
    let mut probs_se = [0.0f32; 5];
    for k in 0..5 {
        let (m, e) = mean_se(trials.iter().map(|t| t.probs[k]), n);
        probs[k] = m as f32;
        probs_se[k] = e as f32;
    }
    let eq = |t: &Trial| 2.0 * t.probs[0] - 1.0 + t.probs[1] - t.probs[3] + t.probs[2] - t.probs[4];
    let (equity, equity_se) = mean_se(trials.iter().map(eq), n);
    let (cubeful, cubeful_se) = mean_se(trials.iter().map(|t| t.cubeful), n);
    RolloutResult {
        trials: trials.len() as u32,
        probs: Probs(probs),
        probs_se,
        equity: equity as f32,
        equity_se: equity_se as f32,
        cubeful: s.cubeful.then_some(cubeful as f32),
        cubeful_se: s.cubeful.then_some(cubeful_se as f32),
        seed: s.seed,
    }
}

/// Trials per batch: results are checked (target error, interruption,
/// progress) only between batches, so stopping points do not depend on the
/// number of threads. Four rounds of 36 give each thread enough games of
/// uneven length to keep busy until the batch ends.
pub const BATCH: u32 = 144;

/// The first batch: a quarter of [`BATCH`], so a progress bar moves within
/// a second.
const FIRST_BATCH: u32 = 36;

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
    mut progress: impl FnMut(&RolloutResult),
) -> RolloutResult {
    let perms = permutations(s.seed);
    let mut trials: Vec<Trial> = Vec::with_capacity(s.trials as usize);
    let mut done = 0u32;
    while done < s.trials && !stop.load(Ordering::Relaxed) {
        // A first short batch, so progress shows early; then batches that
        // end on multiples of BATCH, as before.
        let step = if done == 0 {
            FIRST_BATCH
        } else {
            BATCH - done % BATCH
        };
        let hi = (done + step).min(s.trials);
        // A stop is seen between trials: the trials after the first one
        // skipped are dropped, so the result is always trials 0..n.
        let batch: Vec<Option<Trial>> = (done..hi)
            .into_par_iter()
            .map(|i| {
                (!stop.load(Ordering::Relaxed)).then(|| play_trial(ev, exact, pos, s, i, &perms))
            })
            .collect();
        let complete = batch.iter().take_while(|t| t.is_some()).count();
        trials.extend(batch.into_iter().take(complete).flatten());
        done += complete as u32;
        if done < hi {
            progress(&summarize(&trials, s));
            break;
        }
        let r = summarize(&trials, s);
        progress(&r);
        if s.target_se
            .is_some_and(|t| done >= 2 * BATCH && r.equity_se <= t)
        {
            break;
        }
    }
    summarize(&trials, s)
}

fn permutations(seed: u64) -> [[Dice; 36]; 2] {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x005E_ED0F_D1CE);
    let mut a = rolls36();
    let mut b = rolls36();
    a.shuffle(&mut rng);
    b.shuffle(&mut rng);
    [a, b]
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
/// dice, dropping a play once its equity is below the best by more than
/// `z` joint standard errors. Results are from the mover's side.
pub fn rollout_moves<E: Evaluator + ?Sized>(
    ev: &E,
    afters: &[Position],
    s: &RolloutSettings,
    z: f32,
    stop: &AtomicBool,
) -> Vec<MoveRollout> {
    let exact = |p: &Position| ev.exact(p);
    let perms = permutations(s.seed);
    let roots: Vec<Position> = afters.iter().map(Position::swapped).collect();
    let mut trials: Vec<Vec<Trial>> = vec![Vec::new(); afters.len()];
    let mut alive: Vec<bool> = vec![true; afters.len()];
    let mut done = 0u32;
    let flip = |t: Trial| Trial {
        probs: [
            1.0 - t.probs[0],
            t.probs[3],
            t.probs[4],
            t.probs[1],
            t.probs[2],
        ],
        cubeful: -t.cubeful,
    };
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
                    cubeful: f64::from(p.equity()),
                };
                trials[m].extend((done..hi).map(|_| t));
                continue;
            }
            let batch: Vec<Trial> = (done..hi)
                .into_par_iter()
                .map(|i| flip(play_trial(ev, &exact, root, s, i, &perms)))
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
            .max_by(|&a, &b| results[a].equity.total_cmp(&results[b].equity))
            .expect("one alive");
        for m in 0..afters.len() {
            if m != best && alive[m] && done >= 2 * BATCH {
                let joint = (results[m].equity_se.powi(2) + results[best].equity_se.powi(2)).sqrt();
                if results[best].equity - results[m].equity > z * joint.max(1e-6) {
                    alive[m] = false;
                }
            }
        }
        if alive.iter().filter(|&&a| a).count() == 1 {
            break;
        }
    }
    (0..afters.len())
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
    use crate::rules::position::Checkers;
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
            bearoff: db,
            layout: crate::evaluation::inputs::Layout::V2,
        }
    }

    #[test]
    fn quasi_random_dice_are_stratified() {
        let s = RolloutSettings::default();
        let perms = permutations(s.seed);
        let mut firsts = std::collections::HashSet::new();
        let mut pairs = std::collections::HashSet::new();
        for i in 0..1296 {
            let mut d = Dicer::new(&s, i, &perms);
            let (a, b) = (d.roll(), d.roll());
            if i < 36 {
                firsts.insert((a.first(), a.second()));
            }
            pairs.insert((a.first(), a.second(), b.first(), b.second()));
        }
        assert_eq!(firsts.len(), 36);
        assert_eq!(pairs.len(), 1296);
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
}
