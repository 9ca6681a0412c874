//! Cubeful values searched `n` plies deep, for money and match play alike,
//! and the plays of a roll ranked by them.
//!
//! A [`CubeView`] is a cube seen from the player on roll together with how
//! it prices a game: money ([`MoneyCube`], points per unit of the cube) or
//! a match score (`MatchView` beside it, match-winning chance). At 0 ply its model prices the cube from the net's
//! probabilities (Janowski's formulas, or the match cube model). At `n`
//! ply the player on roll, if it may double, compares
//! - no double: the mean over the 21 rolls of the best play's value, each
//!   play's value being the opponent's cubeful value `n - 1` plies deep
//!   with the cube where it is, seen from this side (so the opponent's own
//!   doubles, takes and passes are played inside the search);
//! - double, take: the same with the cube doubled and the opponent's;
//! - double, pass: what the cube's points are worth.
//!
//! Several cube states of one position are searched together: they share
//! each roll's plays and their evaluations, the costly part, so pricing
//! the doubled cube beside the current one costs little more than a
//! cubeless search. Plays inside the search are chosen by their cubeless
//! 0-ply value at each cube among pubeval's best [`INNER_SHORTLIST`] of
//! the roll, as gnubg's pruning nets and move filters do at its inner
//! plies; a node values the plays of all its rolls in one batch, each
//! distinct play once, and searches each distinct board its rolls' best
//! plays leave once.

use rayon::prelude::*;
use rustc_hash::FxHashMap;

use crate::cube::money::{self, CubeDecision, MoneyCube, Owner};
use crate::evaluation::evaluator::{
    candidate_values, candidate_values_near, final_result, Evaluator,
};
use crate::evaluation::probs::Probs;
use crate::evaluation::pubeval::{self, keep_best, RankKey};
use crate::rules::dice::Dice;
use crate::rules::movegen::{generate, Candidate, MoveList};
use crate::rules::position::Position;
use crate::search::ply::{shortlist_tied, MoveFilter, RankedMove};

/// A cube seen from the player on roll, and how a game is worth to it.
pub trait CubeView: Copy + PartialEq + Send + Sync {
    /// The same cube seen by the opponent.
    fn flipped(self) -> Self;
    /// The cube after the player on roll doubles and the opponent takes.
    fn taken(self) -> Self;
    /// Whether the player on roll may double and gains by it.
    fn may_double(self) -> bool;
    /// This cube priced for a value searched `ply` deep, at its root: a
    /// match cube's take and cash points depend on it
    /// ([`crate::cube::match_cube::CubePoints`]).
    fn at_depth(self, _ply: u32) -> Self {
        self
    }
    /// The cubeless value of outcome probabilities `p` to the player on
    /// roll: how plays inside the search are chosen.
    fn cubeless(&self, p: &Probs) -> f32;
    /// The value of a finished game with outcome `p`.
    fn finished(&self, p: &Probs) -> f32 {
        self.cubeless(p)
    }
    /// The value after the best cube action, from 0-ply probabilities.
    fn leaf(&self, p: &Probs, pos: &Position) -> f32;
    /// [`CubeView::leaf`] of each of `cubes` at one position: a match
    /// cube's model shares its work among them.
    fn leaves(cubes: &[Self], p: &Probs, pos: &Position) -> Vec<f32> {
        cubes.iter().map(|c| c.leaf(p, pos)).collect()
    }
    /// The value to the doubler of a double passed.
    fn pass(self) -> f32;
    /// This side's value of a game the opponent values at `theirs`.
    fn mine(self, theirs: f32) -> f32;
    /// This cube's value of a game worth `v` under [`CubeView::taken`].
    fn of_taken(self, v: f32) -> f32;
    /// A value as equity (money, per unit of the cube) or EMG (match).
    fn equity(self, v: f32) -> f32;
}

impl CubeView for MoneyCube {
    fn flipped(self) -> Self {
        MoneyCube {
            owner: self.owner.flipped(),
            ..self
        }
    }
    fn taken(self) -> Self {
        MoneyCube {
            owner: Owner::Opponent,
            ..self
        }
    }
    fn may_double(self) -> bool {
        self.owner != Owner::Opponent
    }
    fn cubeless(&self, p: &Probs) -> f32 {
        p.equity()
    }
    fn finished(&self, p: &Probs) -> f32 {
        // Jacoby: with the cube centred, gammons count single.
        let e = p.equity();
        if self.jacoby && self.owner == Owner::Centred {
            e.signum()
        } else {
            e
        }
    }
    fn leaf(&self, p: &Probs, pos: &Position) -> f32 {
        let d = money::money_decision(p, *self, money::efficiency(pos));
        if self.may_double() {
            d.no_double.max(d.double_take.min(d.double_pass))
        } else {
            d.no_double
        }
    }
    fn pass(self) -> f32 {
        1.0
    }
    fn mine(self, theirs: f32) -> f32 {
        -theirs
    }
    fn of_taken(self, v: f32) -> f32 {
        2.0 * v
    }
    fn equity(self, v: f32) -> f32 {
        v
    }
}

/// The three money cube equities for the player on roll at `ply`, the
/// action, and the cubeless chances of the search. At ply 0 this is
/// [`money::money_decision`] on the net's probabilities; deeper, the take
/// and cash points are the model's at the searched chances.
pub fn decision<E: Evaluator + ?Sized>(
    ev: &E,
    pos: &Position,
    cube: MoneyCube,
    ply: u32,
) -> (Probs, CubeDecision) {
    let x = money::efficiency(pos);
    if ply == 0 {
        let p = ev.eval(pos);
        return (p, money::money_decision(&p, cube, x));
    }
    let searched = no_double_and_double_take(ev, pos, cube, ply);
    let mut d = money::money_decision(&searched.probs, cube, x);
    d.no_double = searched.no_double;
    d.double_take = searched.double_take;
    d.action = money::action_of(d.no_double, d.double_take, d.double_pass, cube);
    (searched.probs, d)
}

/// What a cubeful search of a cube decision finds.
#[derive(Clone, Copy, Debug)]
pub struct Searched {
    /// The no-double value, in the cube's unit.
    pub no_double: f32,
    /// The double/take value, in the cube's unit.
    pub double_take: f32,
    /// The cubeless chances of the no-double line searched.
    pub probs: Probs,
}

/// No double and double/take values of the player on roll, `ply` plies
/// deep (`ply` at least 1), in `cube`'s unit, and the chances searched.
pub fn no_double_and_double_take<E: Evaluator + ?Sized, C: CubeView>(
    ev: &E,
    pos: &Position,
    cube: C,
    ply: u32,
) -> Searched {
    debug_assert!(ply >= 1);
    let cube = cube.at_depth(ply);
    let (nd, probs) = no_double(ev, pos, &[cube, cube.taken()], ply);
    Searched {
        no_double: nd[0],
        double_take: cube.of_taken(nd[1]),
        probs,
    }
}

/// The player on roll's value after its best cube action, `ply` plies
/// deep, and the cubeless probabilities of the line searched.
pub fn value<E: Evaluator + ?Sized, C: CubeView>(
    ev: &E,
    pos: &Position,
    cube: C,
    ply: u32,
) -> (f32, Probs) {
    let (v, p) = values(ev, pos, &[cube.at_depth(ply)], ply);
    (v[0], p)
}

/// [`value`] for each of `cubes` at once; the probabilities are of the
/// line searched for the first.
fn values<E: Evaluator + ?Sized, C: CubeView>(
    ev: &E,
    pos: &Position,
    cubes: &[C],
    ply: u32,
) -> (Vec<f32>, Probs) {
    if ply == 0 {
        let p = ev.eval(pos);
        return (C::leaves(cubes, &p, pos), p);
    }
    // The no-double values wanted: each cube, and the doubled cube of each
    // that may double.
    let mut need: Vec<C> = cubes.to_vec();
    for c in cubes {
        if c.may_double() && !need.contains(&c.taken()) {
            need.push(c.taken());
        }
    }
    let (nd, probs) = no_double(ev, pos, &need, ply);
    let at = |c: C| need.iter().position(|&n| n == c).expect("pushed above");
    let v = cubes
        .iter()
        .map(|&c| {
            let stay = nd[at(c)];
            if c.may_double() {
                stay.max(c.of_taken(nd[at(c.taken())]).min(c.pass()))
            } else {
                stay
            }
        })
        .collect();
    (v, probs)
}

/// Plays per roll an inner node of the search values with the net: the
/// best few by pubeval's linear score, as gnubg's pruning nets keep few at
/// its inner plies. The net's time is most of a search's. Against valuing
/// every play, on positions from real matches: 2-ply hints chose the same
/// play on 499 of 500 at 12 (289 of 300 at 8) and ran 2.9 times faster,
/// 3-ply hints on 100 of 100.
pub const INNER_SHORTLIST: usize = 12;

/// The plays of a roll an inner node values: every one when there are at
/// most [`INNER_SHORTLIST`], else the best by pubeval (the first of equal
/// scores), in their order of generation.
fn shortlist(cands: &[Candidate], race: bool) -> Vec<Candidate> {
    if cands.len() <= INNER_SHORTLIST {
        return cands.to_vec();
    }
    let mut scored: Vec<RankKey> = cands
        .iter()
        .enumerate()
        .map(|(i, c)| RankKey::new(pubeval::score(&c.position, race), i))
        .collect();
    keep_best(&mut scored, INNER_SHORTLIST);
    let mut keep: Vec<usize> = scored.iter().map(|k| k.index()).collect();
    keep.sort_unstable();
    keep.into_iter().map(|i| cands[i]).collect()
}

/// Each roll's [`shortlist`] of plays from `pos`, roll after roll.
fn rolls_shortlists(pos: &Position, race: bool) -> Vec<Vec<Candidate>> {
    Dice::all_21()
        .map(|dice| {
            let mut list = MoveList::new();
            generate(pos, dice, &mut list);
            shortlist(list.as_slice(), race)
        })
        .collect()
}

/// The no-double value `ply` plies deep for each of `cubes`: the mean over
/// the rolls of the best play's value to the player on roll; and the
/// probabilities of the line searched for the first cube.
///
/// Each distinct board the rolls' best plays leave is searched once, for
/// every cube that plays to it: rolls with the same pips often pick the
/// same play (one checker run five pips with 41 and with 32), an eighth of
/// a 3-ply search's inner nodes' best plays. The rolls are summed in their
/// order, so the value does not depend on how threads share the work.
fn no_double<E: Evaluator + ?Sized, C: CubeView>(
    ev: &E,
    pos: &Position,
    cubes: &[C],
    ply: u32,
) -> (Vec<f32>, Probs) {
    let rolls: Vec<Dice> = Dice::all_21().collect();
    let shortlists = rolls_shortlists(pos, !pos.is_contact());
    let valued = rolls_values(ev, pos, &shortlists);
    let (picks, replies) = pick_replies(cubes, &shortlists, &valued);
    // The opponent's cubeful values of each reply, for its cubes in order
    // (so the first cube's line is the one a reply's search returns).
    let search = |reply: &Reply| -> (Vec<f32>, Probs) {
        let theirs: Vec<C> = reply.cubes.iter().map(|&j| cubes[j].flipped()).collect();
        if ply == 1 {
            (C::leaves(&theirs, &reply.line, &reply.child), reply.line)
        } else {
            values(ev, &reply.child, &theirs, ply - 1)
        }
    };
    let searched: Vec<(Vec<f32>, Probs)> = if ply >= 2 {
        replies.par_iter().map(search).collect()
    } else {
        replies.iter().map(search).collect()
    };
    let (mut total, mut probs) = (vec![0.0; cubes.len()], Probs::default());
    for (r, roll_picks) in picks.chunks(cubes.len()).enumerate() {
        let w = rolls[r].weight() as f32 / 36.0;
        for (j, pick) in roll_picks.iter().enumerate() {
            let (v, line) = match *pick {
                Pick::Over(p) => (cubes[j].finished(&p), p),
                Pick::Reply(at) => {
                    let (theirs, line) = &searched[at];
                    let k = replies[at].cubes.binary_search(&j);
                    let k = k.expect("each pick's cube is its reply's");
                    (cubes[j].mine(theirs[k]), line.flipped())
                }
            };
            total[j] += w * v;
            if j == 0 {
                probs.add_scaled(&line, w);
            }
        }
    }
    (total, probs)
}

/// Each roll's best play for each of `cubes` (by that cube's cubeless
/// value of `valued`, the first of equal ones), roll after roll, cube
/// after cube; and the distinct boards they leave the opponent, each with
/// the cubes that play to it in ascending order.
fn pick_replies<C: CubeView>(
    cubes: &[C],
    shortlists: &[Vec<Candidate>],
    valued: &[Vec<Probs>],
) -> (Vec<Pick>, Vec<Reply>) {
    let mut replies: Vec<Reply> = Vec::new();
    let mut picks: Vec<Pick> = Vec::with_capacity(shortlists.len() * cubes.len());
    for (kept, played) in shortlists.iter().zip(valued) {
        for (j, c) in cubes.iter().enumerate() {
            let (mut best, mut top) = (0, c.cubeless(&played[0]));
            for (i, p) in played.iter().enumerate().skip(1) {
                let v = c.cubeless(p);
                if v > top {
                    (best, top) = (i, v);
                }
            }
            let after = kept[best].position;
            picks.push(match final_result(&after) {
                Some(p) => Pick::Over(p),
                None => {
                    let child = after.swapped();
                    let at = match replies.iter().position(|r| r.child == child) {
                        Some(at) => at,
                        None => {
                            replies.push(Reply {
                                child,
                                cubes: Vec::new(),
                                line: played[best].flipped(),
                            });
                            replies.len() - 1
                        }
                    };
                    // Cubes come in order within a roll, not across rolls.
                    let theirs = &mut replies[at].cubes;
                    if let Err(k) = theirs.binary_search(&j) {
                        theirs.insert(k, j);
                    }
                    Pick::Reply(at)
                }
            });
        }
    }
    (picks, replies)
}

/// Where a roll's best play for one cube of a node leads.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Pick {
    /// The game ends, with these chances for the mover.
    Over(Probs),
    /// The opponent replies from the node's reply at this index.
    Reply(usize),
}

/// A board an inner node's best plays leave, to be searched from the
/// opponent's side.
struct Reply {
    /// The board, the opponent on roll.
    child: Position,
    /// The node's cubes (indices) whose best play leaves it, ascending.
    cubes: Vec<usize>,
    /// Its 0-ply chances for the opponent: a 1-ply node's line.
    line: Probs,
}

/// The 0-ply values of every roll's `shortlists` of plays from `pos`, in
/// one batch valued from the position before them: a play that several
/// rolls reach (4-1 and 3-2 both move a checker five pips) is valued once,
/// a tenth of an inner node's plays, and the batch fills the evaluator's
/// groups where one roll's plays would not.
fn rolls_values<E: Evaluator + ?Sized>(
    ev: &E,
    pos: &Position,
    shortlists: &[Vec<Candidate>],
) -> Vec<Vec<Probs>> {
    let plays = shortlists.iter().map(Vec::len).sum();
    let mut at: FxHashMap<Position, usize> =
        FxHashMap::with_capacity_and_hasher(plays, Default::default());
    let mut unique: Vec<Candidate> = Vec::with_capacity(plays);
    let slots: Vec<Vec<usize>> = shortlists
        .iter()
        .map(|kept| {
            kept.iter()
                .map(|c| {
                    *at.entry(c.position).or_insert_with(|| {
                        unique.push(*c);
                        unique.len() - 1
                    })
                })
                .collect()
        })
        .collect();
    let mut values = Vec::new();
    candidate_values_near(
        ev,
        Some(&ev.prepare_near(&pos.swapped())),
        &unique,
        &mut values,
    );
    slots
        .iter()
        .map(|s| s.iter().map(|&i| values[i]).collect())
        .collect()
}

/// The value to the mover, whose cube is `cube`, of a play that leaves
/// `after` (seen from the mover): the opponent's cubeful value `depth`
/// plies deep, on roll and free to double, seen from the mover's side;
/// and the mover's cubeless chances of the line searched.
pub fn after_play<E: Evaluator + ?Sized, C: CubeView>(
    ev: &E,
    after: &Position,
    cube: C,
    depth: u32,
) -> (f32, Probs) {
    if let Some(p) = final_result(after) {
        return (cube.finished(&p), p);
    }
    let (v, p) = value(ev, &after.swapped(), cube.flipped(), depth);
    (cube.mine(v), p.flipped())
}

/// All plays of `dice` from `pos`, best first by their cubeful value to
/// the player on roll with `cube`: every play at 0 ply, those `root` keeps
/// at 1 ply, the best of those (by [`MoveFilter::TREE`]) at 2 ply and so
/// on up to `ply`, deeper-searched plays ahead of the rest. A play's value
/// is the opponent's cubeful value after it, seen from this side, the
/// opponent on roll and free to double; `equity` is that value as equity
/// (EMG at a match score) and `probs` the cubeless chances of the line
/// searched.
pub fn rank_plays<E: Evaluator + ?Sized, C: CubeView>(
    ev: &E,
    pos: &Position,
    dice: Dice,
    cube: C,
    ply: u32,
    root: MoveFilter,
) -> Vec<RankedMove> {
    let mut list = MoveList::new();
    generate(pos, dice, &mut list);
    let cands = list.as_slice();
    let mut probs = Vec::new();
    candidate_values(ev, cands, &mut probs);
    let after = |i: usize, depth: u32| -> (f32, Probs) {
        let pos = cands[i].position;
        match final_result(&pos) {
            Some(p) => (cube.finished(&p), p),
            None if depth == 0 => {
                let p = probs[i].flipped();
                let theirs = cube.flipped().at_depth(0);
                (cube.mine(theirs.leaf(&p, &pos.swapped())), probs[i])
            }
            None => after_play(ev, &pos, cube, depth),
        }
    };
    let mut ranked: Vec<RankedMove> = (0..cands.len())
        .map(|i| {
            let (v, p) = after(i, 0);
            RankedMove {
                candidate: cands[i],
                probs: p,
                equity: cube.equity(v),
                ply: 0,
            }
        })
        .collect();
    // Equal cubeful values (every play leaving the opponent a cash) are
    // ranked by cubeless value.
    let tie = |r: &RankedMove| cube.cubeless(&r.probs);
    if cands.len() > 1 {
        let scores: Vec<f32> = ranked.iter().map(|r| r.equity).collect();
        let ties: Vec<f32> = ranked.iter().map(tie).collect();
        let mut keep = shortlist_tied(&scores, &ties, root);
        for depth in 1..=ply {
            let stage: Vec<(usize, f32, Probs)> = keep
                .par_iter()
                .map(|&i| {
                    let (v, p) = after(i, depth);
                    (i, cube.equity(v), p)
                })
                .collect();
            for &(i, e, p) in &stage {
                ranked[i].equity = e;
                ranked[i].probs = p;
                ranked[i].ply = depth;
            }
            let scores: Vec<f32> = stage.iter().map(|s| s.1).collect();
            let ties: Vec<f32> = stage.iter().map(|s| cube.cubeless(&s.2)).collect();
            keep = shortlist_tied(&scores, &ties, MoveFilter::TREE)
                .into_iter()
                .map(|k| stage[k].0)
                .collect();
        }
    }
    ranked.sort_by(|a, b| {
        b.ply
            .cmp(&a.ply)
            .then(b.equity.total_cmp(&a.equity))
            .then(tie(b).total_cmp(&tie(a)))
    });
    ranked
}

#[cfg(test)]
mod tests {
    use super::*;

    const RACE: crate::evaluation::evaluator::testing::PipRace =
        crate::evaluation::evaluator::testing::PipRace(12.0);

    #[test]
    fn one_ply_cube_equities_are_consistent() {
        let pos = Position::start();
        let cube = MoneyCube::default();
        let (_, d) = decision(&RACE, &pos, cube, 1);
        assert_eq!(d.double_pass, 1.0);
        assert!(d.no_double > -1.0 && d.no_double < 1.0);
        assert!(d.double_take > -2.0 && d.double_take < 2.0);
        // A big racing lead: the opponent should pass at 1 ply as at 0.
        let mut me = [0u8; 24];
        me[0] = 15;
        let mut opp = [0u8; 24];
        opp[11] = 15;
        let far = Position::from_sides(&me, 0, &opp, 0).unwrap();
        let (_, d0) = decision(&RACE, &far, cube, 0);
        let (p1, d1) = decision(&RACE, &far, cube, 1);
        // The chances are the search's: 1 ply is the cubeless 1-ply.
        let want = crate::search::ply::Ply::new(&RACE, 1).eval(&far);
        assert!((p1.win() - want.win()).abs() < 1e-6, "{p1:?} {want:?}");
        assert!(
            d0.double_take > 1.0 && d1.double_take > 1.0,
            "{d0:?} {d1:?}"
        );
    }

    /// The money value of a node searched with one cube at a time, each
    /// cube action priced by its own separate search: what [`values`]
    /// must equal when it shares one search among several cubes.
    fn separately(pos: &Position, cube: MoneyCube, ply: u32) -> f32 {
        if ply == 0 {
            return cube.leaf(&RACE.eval(pos), pos);
        }
        let nd = |c: MoneyCube| -> f32 {
            let mut list = MoveList::new();
            let mut vals = Vec::new();
            let mut total = 0.0;
            for dice in Dice::all_21() {
                generate(pos, dice, &mut list);
                candidate_values(&RACE, list.as_slice(), &mut vals);
                let best = crate::evaluation::evaluator::argmax_equity(&vals);
                let after = list.as_slice()[best].position;
                let v = match final_result(&after) {
                    Some(p) => c.finished(&p),
                    None => -separately(&after.swapped(), c.flipped(), ply - 1),
                };
                total += v * dice.weight() as f32 / 36.0;
            }
            total
        };
        let stay = nd(cube);
        if cube.may_double() {
            stay.max((2.0 * nd(cube.taken())).min(1.0))
        } else {
            stay
        }
    }

    #[test]
    fn a_shared_search_equals_one_search_per_cube() {
        let pos = both_bearing_off();
        // Also where rolls share their best plays' boards.
        for pos in [pos, one_checker_left()] {
            shared_equals_separate(&pos);
        }
    }

    fn shared_equals_separate(pos: &Position) {
        let pos = *pos;
        for owner in [Owner::Centred, Owner::Me, Owner::Opponent] {
            let cube = MoneyCube {
                owner,
                ..MoneyCube::default()
            };
            for ply in 0..=2 {
                let (shared, _) = value(&RACE, &pos, cube, ply);
                let want = separately(&pos, cube, ply);
                assert!(
                    (shared - want).abs() < 1e-5,
                    "{owner:?} ply {ply}: {shared} against {want}"
                );
            }
        }
    }

    /// A race with both sides bearing off from their home boards, 15
    /// checkers each.
    fn both_bearing_off() -> Position {
        let mut me = [0u8; 24];
        me[..6].copy_from_slice(&[3, 3, 3, 2, 2, 2]);
        let mut opp = [0u8; 24];
        opp[..6].copy_from_slice(&[2, 2, 3, 3, 2, 3]);
        Position::from_sides(&me, 0, &opp, 0).unwrap()
    }

    /// A race with one checker left, on the 14 point: rolls of the same
    /// pips (41 and 32, 51 and 42, ...) run it to the same point.
    fn one_checker_left() -> Position {
        let mut me = [0u8; 24];
        me[13] = 1;
        let mut opp = [0u8; 24];
        opp[..6].copy_from_slice(&[2, 2, 3, 3, 2, 3]);
        Position::from_sides(&me, 0, &opp, 0).unwrap()
    }

    #[test]
    fn each_board_the_best_plays_leave_is_searched_once() {
        let pos = one_checker_left();
        let shortlists = rolls_shortlists(&pos, true);
        let valued = rolls_values(&RACE, &pos, &shortlists);
        let centred = MoneyCube::default();
        let cubes = [centred, centred.taken()];
        let (picks, replies) = pick_replies(&cubes, &shortlists, &valued);
        assert_eq!(picks.len(), 21 * cubes.len());
        let boards: std::collections::HashSet<Position> = replies.iter().map(|r| r.child).collect();
        assert_eq!(boards.len(), replies.len(), "each board once");
        let searched = picks.iter().filter(|p| matches!(p, Pick::Reply(_))).count();
        assert!(
            replies.len() * 2 < searched,
            "{} of {searched}",
            replies.len()
        );
        for (r, kept) in shortlists.iter().enumerate() {
            let best = crate::evaluation::evaluator::argmax_equity(&valued[r]);
            let after = kept[best].position;
            for (j, pick) in picks[r * cubes.len()..][..cubes.len()].iter().enumerate() {
                match *pick {
                    Pick::Over(p) => assert_eq!(Some(p), final_result(&after)),
                    Pick::Reply(at) => {
                        assert_eq!(replies[at].child, after.swapped());
                        assert!(replies[at].cubes.contains(&j));
                        assert_eq!(replies[at].line, valued[r][best].flipped());
                    }
                }
            }
        }
        assert!(replies
            .iter()
            .all(|r| r.cubes.windows(2).all(|w| w[0] < w[1])));
    }

    #[test]
    fn a_search_s_value_does_not_depend_on_the_threads() {
        let pos = both_bearing_off();
        let on = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let (v, p) = pool.install(|| value(&RACE, &pos, MoneyCube::default(), 2));
            (v.to_bits(), p.0.map(f32::to_bits))
        };
        let one = on(1);
        for threads in [2, 3] {
            assert_eq!(on(threads), one, "{threads} threads");
        }
    }

    #[test]
    fn inner_nodes_keep_pubeval_s_best_plays_in_order() {
        let pos = Position::start();
        let mut list = MoveList::new();
        generate(&pos, Dice::new(2, 2).unwrap(), &mut list);
        let all = list.as_slice();
        assert!(all.len() > INNER_SHORTLIST);
        let kept = shortlist(all, false);
        assert_eq!(kept.len(), INNER_SHORTLIST);
        let score = |c: &Candidate| pubeval::score(&c.position, false);
        let worst_kept = kept.iter().map(score).fold(f32::INFINITY, f32::min);
        let left: Vec<&Candidate> = all.iter().filter(|c| !kept.contains(c)).collect();
        assert!(left.iter().all(|c| score(c) <= worst_kept));
        // In the order they were generated.
        let at = |c: &Candidate| all.iter().position(|a| a == c).unwrap();
        assert!(kept.windows(2).all(|w| at(&w[0]) < at(&w[1])));
        // A roll with few plays keeps them all.
        generate(&pos, Dice::new(5, 4).unwrap(), &mut list);
        let few = list.as_slice().to_vec();
        assert!(few.len() <= INNER_SHORTLIST);
        assert_eq!(shortlist(&few, false), few);
    }

    /// Counts the positions it is asked to value (a test double around
    /// [`RACE`]).
    struct Counting(std::sync::Mutex<Vec<Position>>);

    impl Evaluator for Counting {
        fn eval_batch(&self, positions: &[Position], out: &mut [Probs]) {
            self.0.lock().unwrap().extend_from_slice(positions);
            RACE.eval_batch(positions, out);
        }
    }

    #[test]
    fn a_node_values_each_distinct_play_of_its_rolls_once() {
        let pos = Position::start();
        let shortlists = rolls_shortlists(&pos, false);
        let counting = Counting(Default::default());
        let got = rolls_values(&counting, &pos, &shortlists);
        let asked = counting.0.into_inner().unwrap();
        let plays: usize = shortlists.iter().map(Vec::len).sum();
        let distinct: std::collections::HashSet<Position> =
            shortlists.iter().flatten().map(|c| c.position).collect();
        assert_eq!(asked.len(), distinct.len());
        assert!(distinct.len() < plays, "{} of {plays}", distinct.len());
        // Each roll's values are those of valuing its plays alone.
        let near = RACE.prepare_near(&pos.swapped());
        for (kept, values) in shortlists.iter().zip(&got) {
            let mut alone = Vec::new();
            candidate_values_near(&RACE, Some(&near), kept, &mut alone);
            assert_eq!(values, &alone);
        }
    }

    #[test]
    fn cubeful_ranking_prices_each_play_from_the_opponent_s_side() {
        let pos = both_bearing_off();
        let dice = Dice::new(6, 5).unwrap();
        let cube = MoneyCube::default();
        for ply in 0..=1 {
            let ranked = rank_plays(&RACE, &pos, dice, cube, ply, MoveFilter::ROOT);
            let top = &ranked[0];
            assert_eq!(top.ply, ply);
            let child = top.candidate.position.swapped();
            let (theirs, _) = value(&RACE, &child, cube.flipped(), ply);
            assert!((top.equity + theirs).abs() < 1e-6, "{top:?} {theirs}");
            for w in ranked.windows(2) {
                if w[0].ply == w[1].ply {
                    assert!(w[0].equity >= w[1].equity);
                }
            }
        }
    }
}
