//! One trial of a rollout: its dice, its luck pass, and the game played
//! out from the root.

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use rustc_hash::FxHashMap;

use crate::evaluation::evaluator::{final_result, Evaluator};
use crate::evaluation::prefilter::PREFILTER_KEEP;
use crate::evaluation::probs::Probs;
use crate::evaluation::pubeval::{self, keep_best, RankKey};
use crate::rollout::settings::RolloutSettings;
use crate::rollout::stakes::{CubeMove, Stakes, TrialCube};
use crate::rules::dice::Dice;
use crate::rules::movegen::{generate, Candidate, MoveList};
use crate::rules::position::Position;
use crate::search::chooser::Chooser;
use crate::search::ply::Searcher;
use crate::search::valuation::Valuation;

/// One trial's luck-adjusted result, from the root player's side.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Trial {
    /// Outcome probabilities (0 or 1 at the end of a game, the evaluator's
    /// at truncation or where a double was passed) minus the luck of the
    /// dice.
    pub probs: [f64; 5],
    /// Cubeful value in the stakes' unit (money points per root cube, or
    /// the root's MWC) minus the luck of the dice; 0 when cubeless.
    pub cubeful: f64,
    /// How the trial's game ended.
    pub end: TrialEnd,
}

/// How a trial's game ended, as the root player sees it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum TrialEnd {
    /// Played to the end, to a truncation or to a known value.
    #[default]
    Played,
    /// The root player doubled and the opponent passed.
    OpponentPassed,
    /// The opponent doubled and the root player passed.
    RootPassed,
}

impl TrialEnd {
    /// The same end seen by the other player.
    fn flipped(self) -> TrialEnd {
        match self {
            TrialEnd::Played => TrialEnd::Played,
            TrialEnd::OpponentPassed => TrialEnd::RootPassed,
            TrialEnd::RootPassed => TrialEnd::OpponentPassed,
        }
    }

    /// Its byte in a shard.
    pub fn byte(self) -> u8 {
        match self {
            TrialEnd::Played => 0,
            TrialEnd::OpponentPassed => 1,
            TrialEnd::RootPassed => 2,
        }
    }

    /// Reads [`TrialEnd::byte`].
    pub fn of_byte(b: u8) -> Option<TrialEnd> {
        [
            TrialEnd::Played,
            TrialEnd::OpponentPassed,
            TrialEnd::RootPassed,
        ]
        .into_iter()
        .find(|e| e.byte() == b)
    }
}

impl Trial {
    /// The same trial seen by the other player.
    pub fn flipped(self, stakes: &Stakes) -> Trial {
        let p = self.probs;
        Trial {
            probs: [1.0 - p[0], p[3], p[4], p[1], p[2]],
            cubeful: stakes.flip_value(self.cubeful),
            end: self.end.flipped(),
        }
    }
}

/// How a trial starts: the cube, whether the root player may double
/// before its first roll (a cube rollout's "no double" trials may not),
/// and whether the first roll is a game's opening roll (never a double).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Start {
    pub cube: TrialCube,
    pub root_may_double: bool,
    pub opening: bool,
}

/// The 36 rolls as ordered dice pairs.
fn rolls36() -> [Dice; 36] {
    std::array::from_fn(|k| Dice::new(k as u8 / 6 + 1, k as u8 % 6 + 1).expect("1..6"))
}

/// Seeded shuffles that stratify the first two rolls of the trials: of
/// the 36 rolls for the first and the second roll, and of the 30 that are
/// not doubles for an opening roll.
pub(crate) struct Perms {
    first: [Dice; 36],
    second: [Dice; 36],
    opening: [Dice; 30],
}

pub(crate) fn permutations(seed: u64) -> Perms {
    use rand::seq::SliceRandom;
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x005E_ED0F_D1CE);
    let mut first = rolls36();
    let mut second = rolls36();
    first.shuffle(&mut rng);
    second.shuffle(&mut rng);
    let mut opening = [first[0]; 30];
    for (slot, d) in opening
        .iter_mut()
        .zip(rolls36().into_iter().filter(|d| !d.is_double()))
    {
        *slot = d;
    }
    opening.shuffle(&mut rng);
    Perms {
        first,
        second,
        opening,
    }
}

pub(crate) struct Dicer {
    rng: Xoshiro256PlusPlus,
    fixed: [Option<Dice>; 2],
    opening: bool,
    turn: usize,
}

impl Dicer {
    pub fn new(s: &RolloutSettings, trial: u32, perms: &Perms, opening: bool) -> Dicer {
        let rng = Xoshiro256PlusPlus::seed_from_u64(
            s.seed.rotate_left(17) ^ u64::from(trial).wrapping_mul(0x9E37_79B9_7F4A_7C15),
        );
        let i = trial as usize;
        let fixed = match (s.quasi, opening) {
            (false, _) => [None, None],
            (true, false) => [Some(perms.first[i % 36]), Some(perms.second[(i / 36) % 36])],
            (true, true) => [
                Some(perms.opening[i % 30]),
                Some(perms.second[(i / 30) % 36]),
            ],
        };
        Dicer {
            rng,
            fixed,
            opening,
            turn: 0,
        }
    }

    pub fn roll(&mut self) -> Dice {
        let t = self.turn;
        self.turn += 1;
        if t < 2 {
            if let Some(d) = self.fixed[t] {
                return d;
            }
        }
        loop {
            let d = Dice::new(self.rng.gen_range(1..=6), self.rng.gen_range(1..=6)).expect("1..6");
            // An opening roll is rerolled on doubles, as at the table.
            if !(t == 0 && self.opening && d.is_double()) {
                return d;
            }
        }
    }
}

/// Plays per roll the luck pass keeps by pubeval's cheap linear score
/// (see [`LuckPass`]); with a pre-filter, it then values only that net's
/// best [`PREFILTER_KEEP`] of them. Where the list misses the play a
/// trial makes, the luck is measured along another game than the one
/// played, which adds to the noise; longer lists miss less and cost more.
/// On the rollout bench's 20 positions (shipped nets and yardstick, one
/// thread, 1,296 trials; 2026-12-05), seconds and mean per-trial standard
/// error: pubeval's 12 alone 96.6 s, 0.1152; pubeval's 5 alone 64.0 s,
/// 0.1305; the pre-filter's 5 of pubeval's 12 71.8 s, 0.1181 (time x SE^2
/// 1.31 times lower than pubeval's 12; of pubeval's 8 or 16, or of every
/// play, less so).
const LUCK_SHORTLIST: usize = 12;

/// The luck pass of one turn: the 0-ply value of the best play of each of
/// the 21 rolls, valued in one batch. Two economies keep it cheap, as
/// gnubg's pruning nets do for its own 0-ply:
/// - only a few plays of a roll are valued by the net: pubeval's best
///   [`LUCK_SHORTLIST`], and of those the evaluator's pre-filter's best
///   [`PREFILTER_KEEP`] in contact when it has one
///   ([`crate::evaluation::prefilter`]). Luck is then measured with a
///   slightly different yardstick, the best of the shortlist, used alike
///   for the roll thrown and the mean over rolls, so the adjustment stays
///   unbiased (a roll's luck has mean zero for any fixed way of valuing
///   it); the roll thrown still has every play valued, so the play chosen
///   at 0-ply is the net's own choice;
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
    scores: Vec<RankKey>,
    /// Scratch of the pre-filter's pass: a roll's plays it ranks and
    /// their scores.
    few: Vec<Candidate>,
    prefiltered: Vec<f32>,
    /// Per roll: the playing nets' shortlisted play (index into `after`)
    /// and its value for the mover by the yardstick ([`LuckPass::pick`]).
    picked: Vec<(usize, Probs)>,
    /// The picked boards the yardstick values, and per board of `boards`
    /// its index there.
    luck_boards: Vec<Position>,
    luck_values: Vec<Probs>,
    luck_index: Vec<Option<usize>>,
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
        // pubeval scores every roll's plays by what they change in `pos`.
        let ranker = pubeval::Before::new(pos);
        // The pre-filter values every roll's plays from `pos`, summed once.
        let prefilter = base
            .prefilter()
            .filter(|_| !race)
            .map(|p| (p, p.before(pos)));
        for r in Dice::all_21() {
            generate(pos, r, &mut self.list);
            let start = self.after.len();
            let cands = self.list.as_slice();
            let first = self.listed.len();
            self.listed.extend(std::iter::repeat_n(false, cands.len()));
            // Pubeval's best few, then the pre-filter's best of those.
            self.scores.clear();
            if cands.len() <= LUCK_SHORTLIST {
                self.scores
                    .extend((0..cands.len()).map(|i| RankKey::new(0.0, i)));
            } else {
                self.scores.extend(
                    cands
                        .iter()
                        .enumerate()
                        .map(|(i, c)| RankKey::new(ranker.score(&c.position), i)),
                );
                keep_best(&mut self.scores, LUCK_SHORTLIST);
            }
            if let Some((p, before)) = prefilter
                .as_ref()
                .filter(|_| self.scores.len() > PREFILTER_KEEP)
            {
                self.few.clear();
                self.few
                    .extend(self.scores.iter().map(|k| cands[k.index()]));
                p.scores_from(before, &self.few, &mut self.prefiltered);
                for (k, &v) in self.scores.iter_mut().zip(&self.prefiltered) {
                    *k = RankKey::new(v, k.index());
                }
                keep_best(&mut self.scores, PREFILTER_KEEP);
            }
            for k in &self.scores {
                self.listed[first + k.index()] = true;
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
        base.eval_batch_near(&pos.swapped(), &self.boards, &mut self.values);
    }

    /// Each roll's best shortlisted play by the playing nets, valued by
    /// `yardstick` when there is one (else by the playing nets): luck is
    /// then measured along the plays a trial makes, not along the
    /// yardstick's own choices (which would differ from them now and then,
    /// each difference adding to the noise), and keeps mean zero, the
    /// plays being fixed before the dice. The yardstick values at most one
    /// board per roll.
    fn pick(&mut self, yardstick: Option<&dyn Evaluator>, pos: &Position, valuation: &Valuation) {
        self.picked.clear();
        for k in 0..self.rolls.len() {
            let pick = self.best(k, true, valuation);
            self.picked.push(pick);
        }
        let Some(y) = yardstick else { return };
        self.luck_boards.clear();
        self.luck_index.clear();
        self.luck_index.resize(self.boards.len(), None);
        for &(i, _) in &self.picked {
            if let Some(Ok(j)) = self.slot[i] {
                if self.luck_index[j].is_none() {
                    self.luck_index[j] = Some(self.luck_boards.len());
                    self.luck_boards.push(self.boards[j]);
                }
            }
        }
        self.luck_values.clear();
        self.luck_values
            .resize(self.luck_boards.len(), Probs::default());
        y.eval_batch_near(&pos.swapped(), &self.luck_boards, &mut self.luck_values);
        for (i, v) in &mut self.picked {
            if let Some(Ok(j)) = self.slot[*i] {
                let at = self.luck_index[j].expect("every pick's board is valued");
                *v = self.luck_values[at].flipped();
            }
        }
    }

    /// The best valued play of roll `k` (index into `after`) by the
    /// mover's `valuation`, and its probabilities for the mover: among the
    /// shortlist, or among every play.
    fn best(&self, k: usize, shortlist: bool, valuation: &Valuation) -> (usize, Probs) {
        let (a, b) = self.rolls[k];
        let mut best: Option<(usize, Probs, f32)> = None;
        for i in a..b {
            if shortlist && !self.listed[i] {
                continue;
            }
            let v = match self.slot[i] {
                Some(Ok(j)) => self.values[j].flipped(),
                Some(Err(p)) => p,
                None => continue,
            };
            let x = valuation.value(&v, true);
            if best.is_none_or(|(_, _, bx)| x > bx) {
                best = Some((i, v, x));
            }
        }
        let (i, v, _) = best.expect("every roll has a valued play");
        (i, v)
    }
}

/// The value of `pos` for the player on roll as a cubeless money
/// rollout's luck pass measures it with `ev`: the mean over the 21 rolls of
/// the 0-ply value of each roll's play, the best of its shortlist by
/// `ev`'s nets, valued by `ev`'s luck yardstick in contact (else by its
/// nets). A luck yardstick whose
/// own value is this mean leaves nothing of the dice in a trial's result,
/// so yardsticks are fitted to it ([`Evaluator::luck_yardstick`]).
pub fn luck_pass_value<E: Evaluator + ?Sized>(ev: &E, pos: &Position) -> Probs {
    let mut pass = LuckPass::default();
    pass.fill(ev, pos, None);
    let yardstick = ev.luck_yardstick().filter(|_| pos.is_contact());
    pass.pick(yardstick, pos, &Valuation::Money);
    let mut mean = [0.0f64; 5];
    for (k, r) in Dice::all_21().enumerate() {
        let best = pass.picked[k].1;
        let w = f64::from(r.weight()) / 36.0;
        for (m, &b) in mean.iter_mut().zip(&best.0) {
            *m += w * f64::from(b);
        }
    }
    Probs(mean.map(|m| m as f32))
}

/// Plays trial `trial` from `root` (the root player on roll).
pub(crate) fn play_trial<E: Evaluator + ?Sized>(
    base: &E,
    exact: &(dyn Fn(&Position) -> Option<Probs> + Sync),
    root: &Position,
    s: &RolloutSettings,
    start: Start,
    trial: u32,
    perms: &Perms,
) -> Trial {
    let stakes = &s.stakes;
    let yardstick = base.luck_yardstick();
    let mut dicer = Dicer::new(s, trial, perms, start.opening);
    let mut list = MoveList::new();
    let mut scratch = LuckPass::default();
    let mut pos = *root;
    let mut mover_is_root = true;
    let mut luck = [0.0f64; 5];
    let mut cube_luck = 0.0f64;
    let mut cube = start.cube;
    let to_root = |p: Probs, mover_is_root: bool| if mover_is_root { p } else { p.flipped() };
    let mut plies = 0u32;
    // A cubeful match trial plays bear-offs out with the live cube, as
    // gnubg's do: priced by the match cube model instead, 7-point match
    // races came out 0.01 to 0.05 EMG below gnubg's cube rollouts, and
    // played out they agree. Money trials stop there (within 0.003 of
    // gnubg's either way).
    let stop_at_databases = !(s.cubeful && matches!(stakes, Stakes::Match(_)));
    let mut end = TrialEnd::Played;
    let (outcome, cubeful): (Probs, f64) = loop {
        // Value of the position for the mover, when the trial stops here.
        let known = if stop_at_databases { exact(&pos) } else { None };
        let stop_value = if let Some(p) = known {
            Some(p)
        } else if s.truncate.is_some_and(|t| plies >= t) {
            Some(base.eval(&pos))
        } else {
            None
        };
        if let Some(p) = stop_value {
            let cv = if s.cubeful {
                stakes.on_roll_value(&p, &pos, cube, mover_is_root)
            } else {
                0.0
            };
            break (to_root(p, mover_is_root), cv);
        }
        if s.cubeful && (plies > 0 || start.root_may_double) {
            let p = base.eval(&pos);
            match stakes.cube_move(&p, &pos, cube, mover_is_root) {
                CubeMove::Roll => {}
                CubeMove::DoubleTake => cube = cube.doubled(mover_is_root),
                CubeMove::DoublePass => {
                    // The game ends in a pass, not a cubeless win: the
                    // cubeless outcome is the position's value where it
                    // was passed, as at a truncation (and as gnubg
                    // records it).
                    let v = stakes.pass_value(cube, mover_is_root);
                    end = if mover_is_root {
                        TrialEnd::OpponentPassed
                    } else {
                        TrialEnd::RootPassed
                    };
                    break (to_root(p, mover_is_root), v);
                }
            }
        }
        let valuation = stakes.valuation(cube, mover_is_root);
        let dice = dicer.roll();
        // At 0-ply the luck pass below finds the play for the roll thrown.
        let mut played: Option<Position> = None;
        if s.luck {
            // The 0-ply value of each roll's best play, and of the roll
            // thrown, from the root's side.
            let mut mean = [0.0f64; 5];
            let mut mean_cube = 0.0f64;
            let mut thrown = [0.0f64; 5];
            let mut thrown_cube = 0.0f64;
            let thrown_roll = dice.high_first();
            // The playing nets pick each roll's play, and the yardstick,
            // when there is one, values it; in a race the yardstick is the
            // playing race net.
            let yardstick = yardstick.filter(|_| pos.is_contact());
            // Cubeful trials choose by the cube below, not from here.
            let choose_here = s.ply == 0 && !s.cubeful;
            scratch.fill(base, &pos, choose_here.then_some(thrown_roll));
            scratch.pick(yardstick, &pos, &valuation);
            for (k, r) in Dice::all_21().enumerate() {
                let (bi, best) = scratch.picked[k];
                if choose_here && r == thrown_roll {
                    played = Some(scratch.after[scratch.best(k, false, &valuation).0]);
                }
                let w = f64::from(r.weight()) / 36.0;
                let cv = if s.cubeful {
                    // After the play the opponent is on roll with the cube.
                    let after_pos = scratch.after[bi].swapped();
                    stakes.on_roll_value(&best.flipped(), &after_pos, cube, !mover_is_root)
                } else {
                    0.0
                };
                let rootwise = to_root(best, mover_is_root).0.map(f64::from);
                for (m, &b) in mean.iter_mut().zip(&rootwise) {
                    *m += w * b;
                }
                mean_cube += w * cv;
                if r == thrown_roll {
                    thrown = rootwise;
                    thrown_cube = cv;
                }
            }
            for k in 0..5 {
                luck[k] += thrown[k] - mean[k];
            }
            cube_luck += thrown_cube - mean_cube;
        }
        let after = match played {
            Some(a) => a,
            None if s.cubeful => stakes.cubeful_play(base, &pos, dice, cube, mover_is_root, s.ply),
            None => {
                generate(&pos, dice, &mut list);
                let mut chooser = Searcher::new(base, s.ply).with_valuation(valuation);
                let pick = chooser.choose(&pos, list.as_slice());
                list.as_slice()[pick].position
            }
        };
        plies += 1;
        if let Some(p) = final_result(&after) {
            break (
                to_root(p, mover_is_root),
                stakes.end_value(&p, cube, mover_is_root),
            );
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
        end,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_trial_s_end_flips_with_the_side_and_reads_back_from_its_byte() {
        let ends = [
            TrialEnd::Played,
            TrialEnd::OpponentPassed,
            TrialEnd::RootPassed,
        ];
        for e in ends {
            assert_eq!(TrialEnd::of_byte(e.byte()), Some(e));
            assert_eq!(e.flipped().flipped(), e);
        }
        assert_eq!(TrialEnd::OpponentPassed.flipped(), TrialEnd::RootPassed);
        assert_eq!(TrialEnd::Played.flipped(), TrialEnd::Played);
        assert_eq!(TrialEnd::of_byte(3), None);
    }

    /// With a pre-filter the luck pass values at most five plays of a
    /// contact roll (every play of the roll thrown), the best of
    /// pubeval's twelve by the pre-filter; without one, pubeval's twelve.
    #[test]
    fn the_pre_filter_picks_five_of_pubeval_s_twelve() {
        use crate::evaluation::evaluator::NetEvaluator;
        use crate::evaluation::inputs::Layout;
        use crate::evaluation::net::Net;
        use crate::evaluation::prefilter::{random_net, Prefilter};
        use std::sync::Arc;
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
        let prefilter = Arc::new(Prefilter::new(random_net(32, &mut rng)).unwrap());
        let plain = NetEvaluator {
            contact: Net::random(Layout::V3.inputs(), 32, &mut rng),
            race: Net::random(Layout::V3.inputs(), 32, &mut rng),
            blitz: None,
            back_game: None,
            bearoff: None,
            layout: Layout::V3,
            luck: None,
            prefilter: None,
        };
        let filtered = NetEvaluator {
            prefilter: Some(prefilter.clone()),
            ..plain.clone()
        };
        let pos = Position::start();
        let thrown = Dice::new(3, 1).unwrap();
        let mut list = MoveList::new();
        for (ev, keep) in [(&plain, LUCK_SHORTLIST), (&filtered, PREFILTER_KEEP)] {
            let mut pass = LuckPass::default();
            pass.fill(ev, &pos, Some(thrown));
            for (k, r) in Dice::all_21().enumerate() {
                let (a, b) = pass.rolls[k];
                let valued = (a..b).filter(|&i| pass.slot[i].is_some()).count();
                let listed = (a..b).filter(|&i| pass.listed[i]).count();
                generate(&pos, r, &mut list);
                assert_eq!(listed, list.as_slice().len().min(keep), "{r:?}");
                if r == thrown {
                    assert_eq!(valued, b - a);
                } else {
                    assert_eq!(valued, listed);
                }
            }
        }
        // The pre-filter's five are its best of pubeval's twelve.
        let r = Dice::new(2, 2).unwrap();
        generate(&pos, r, &mut list);
        let cands = list.as_slice();
        let mut by_pubeval: Vec<usize> = (0..cands.len()).collect();
        let ranker = pubeval::Before::new(&pos);
        let pubeval = |i: usize| ranker.score(&cands[i].position);
        by_pubeval.sort_by(|&a, &b| pubeval(b).total_cmp(&pubeval(a)).then(a.cmp(&b)));
        let twelve: Vec<usize> = by_pubeval[..LUCK_SHORTLIST].to_vec();
        let mut by_prefilter = twelve.clone();
        let score = |i: usize| prefilter.score(&cands[i].position);
        by_prefilter.sort_by(|&a, &b| score(b).total_cmp(&score(a)).then(a.cmp(&b)));
        let mut want = by_prefilter[..PREFILTER_KEEP].to_vec();
        want.sort_unstable();
        let mut pass = LuckPass::default();
        pass.fill(&filtered, &pos, None);
        let k = Dice::all_21().position(|d| d == r).unwrap();
        let (a, b) = pass.rolls[k];
        let got: Vec<usize> = (a..b).filter(|&i| pass.listed[i]).map(|i| i - a).collect();
        assert_eq!(got, want);
    }
}
