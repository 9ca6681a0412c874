//! Looking ahead: n-ply evaluation and move ranking with move filters.
//!
//! An `n`-ply evaluation of a position averages, over the 21 rolls, the
//! value of the best play, where plays are first ranked at 0-ply and only
//! the best few (a [`MoveFilter`], as in gnubg) are searched at `n - 1`
//! ply. [`Ply`] is itself an [`Evaluator`], so deeper searches and rollouts
//! wrap it like any other. Plays are compared by a [`Valuation`]: money
//! equity, or EMG at a match score, from the side of whoever is on roll
//! at each node.

use rayon::prelude::*;

use crate::evaluation::evaluator::{
    candidate_values, candidate_values_near, final_result, Evaluator, Near,
};
use crate::evaluation::probs::Probs;
use crate::rules::dice::Dice;
use crate::rules::movegen::{generate, Candidate, MoveList};
use crate::rules::position::Position;
use crate::search::valuation::Valuation;

/// Which plays survive to a deeper search: at most `keep`, and only those
/// within `margin` (cubeless equity) of the best.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MoveFilter {
    /// Most plays kept.
    pub keep: usize,
    /// Largest equity gap to the best play.
    pub margin: f32,
}

impl MoveFilter {
    /// Filter for the plays of the position being analysed (generous).
    pub const ROOT: MoveFilter = MoveFilter {
        keep: 8,
        margin: 0.16,
    };
    /// Filter for plays inside the search tree (tight, as gnubg's defaults).
    pub const TREE: MoveFilter = MoveFilter {
        keep: 2,
        margin: 0.04,
    };
}

/// The deepest search any command offers: each ply multiplies the work
/// by about 21 rolls times the plays the filters keep, so a deeper one
/// would not answer in a user's lifetime at the command line.
pub const MAX_PLY: u32 = 4;

/// `depth`-ply evaluation on top of a 0-ply evaluator. As an
/// [`Evaluator`] it values positions with the root player (the one its
/// [`Valuation`] was made for) on roll.
#[derive(Clone, Copy)]
pub struct Ply<'a, E: Evaluator + ?Sized> {
    base: &'a E,
    depth: u32,
    filter: MoveFilter,
    valuation: Valuation,
}

impl<'a, E: Evaluator + ?Sized> Ply<'a, E> {
    /// Looks `depth` plies ahead (0 is `base` itself), comparing plays by
    /// money equity.
    pub fn new(base: &'a E, depth: u32) -> Self {
        Ply {
            base,
            depth,
            filter: MoveFilter::TREE,
            valuation: Valuation::Money,
        }
    }

    /// Compares plays by `valuation` (EMG at a match score).
    pub fn with_valuation(mut self, valuation: Valuation) -> Self {
        self.valuation = valuation;
        self
    }

    /// The search depth.
    pub fn depth(&self) -> u32 {
        self.depth
    }

    /// The value of `pos` for its mover at `depth`; `root` says whether
    /// the mover is the root player.
    fn eval_at(&self, pos: &Position, depth: u32, root: bool) -> Probs {
        if depth == 0 {
            return self.base.eval(pos);
        }
        // Every roll's plays are valued from the position before them.
        let near = self.base.prepare_near(&pos.swapped());
        let per_roll = |dice: Dice| -> Probs {
            let mut list = MoveList::new();
            generate(pos, dice, &mut list);
            let (_, v) = self.best_play(list.as_slice(), Some(&near), depth - 1, self.filter, root);
            let mut acc = Probs::default();
            acc.add_scaled(&v, dice.weight() as f32 / 36.0);
            acc
        };
        let sum = |a: Probs, b: Probs| {
            let mut a = a;
            a.add_scaled(&b, 1.0);
            a
        };
        if depth >= 2 {
            Dice::all_21()
                .collect::<Vec<_>>()
                .into_par_iter()
                .map(per_roll)
                .reduce(Probs::default, sum)
        } else {
            Dice::all_21().map(per_roll).fold(Probs::default(), sum)
        }
    }

    /// The best play among `candidates` searched at `depth`, and its value
    /// for the mover (`root`: the root player or not); `near`, the
    /// position before them prepared from the other side, if at hand.
    fn best_play(
        &self,
        candidates: &[Candidate],
        near: Option<&Near<'_>>,
        depth: u32,
        filter: MoveFilter,
        root: bool,
    ) -> (usize, Probs) {
        let mut values = Vec::with_capacity(candidates.len());
        candidate_values_near(self.base, near, candidates, &mut values);
        let best0 = self.valuation.argmax(&values, root);
        if depth == 0 || candidates.len() == 1 {
            return (best0, values[best0]);
        }
        let deep = self.deepen(candidates, &values, depth, filter, false, root);
        let value = |p: &Probs| self.valuation.value(p, root);
        deep.iter()
            .filter(|d| d.2 == depth)
            .max_by(|a, b| value(&a.1).total_cmp(&value(&b.1)))
            .map(|d| (d.0, d.1))
            .expect("the filter keeps one play")
    }

    /// Searches plays step by step as gnubg's move filters do: the plays
    /// `first` keeps at 0-ply are searched at 1 ply, the best of those (by
    /// [`MoveFilter::TREE`]) at 2 ply, and so on up to `depth`. Returns
    /// (index, value, ply) of every play searched, at its deepest ply.
    fn deepen(
        &self,
        candidates: &[Candidate],
        values0: &[Probs],
        depth: u32,
        first: MoveFilter,
        parallel: bool,
        root: bool,
    ) -> Vec<(usize, Probs, u32)> {
        let mut found: Vec<(usize, Probs, u32)> = Vec::new();
        let score = |v: &Probs| self.valuation.value(v, root);
        let mut keep = shortlist_scores(&values0.iter().map(score).collect::<Vec<_>>(), first);
        for d in 1..=depth {
            let eval = |&i: &usize| (i, self.after_for(&candidates[i].position, d, root), d);
            let stage: Vec<(usize, Probs, u32)> = if parallel {
                keep.par_iter().map(eval).collect()
            } else {
                keep.iter().map(eval).collect()
            };
            for st in &stage {
                found.retain(|f| f.0 != st.0);
                found.push(*st);
            }
            if d < depth {
                let vals: Vec<f32> = stage.iter().map(|x| score(&x.1)).collect();
                keep = shortlist_scores(&vals, MoveFilter::TREE)
                    .into_iter()
                    .map(|k| stage[k].0)
                    .collect();
            }
        }
        found
    }

    /// Value for the mover (the root player) of a play's resulting board,
    /// searched at `depth`.
    pub fn after(&self, after: &Position, depth: u32) -> Probs {
        self.after_for(after, depth, true)
    }

    /// [`Ply::after`] for a mover who is the root player or not.
    fn after_for(&self, after: &Position, depth: u32, root: bool) -> Probs {
        match final_result(after) {
            Some(p) => p,
            None => self.eval_at(&after.swapped(), depth, !root).flipped(),
        }
    }
}

impl<E: Evaluator + ?Sized> Evaluator for Ply<'_, E> {
    fn eval_batch(&self, positions: &[Position], out: &mut [Probs]) {
        if self.depth == 0 {
            return self.base.eval_batch(positions, out);
        }
        for (p, o) in positions.iter().zip(out) {
            *o = self.eval_at(p, self.depth, true);
        }
    }

    fn eval_batch_near(&self, near: &Position, positions: &[Position], out: &mut [Probs]) {
        if self.depth == 0 {
            return self.base.eval_batch_near(near, positions, out);
        }
        self.eval_batch(positions, out);
    }
}

/// Indices of the plays a filter keeps by money equity, best first.
pub fn shortlist(values: &[Probs], filter: MoveFilter) -> Vec<usize> {
    let scores: Vec<f32> = values.iter().map(Probs::equity).collect();
    shortlist_scores(&scores, filter)
}

/// Indices of the plays a filter keeps by their scores, best first.
pub fn shortlist_scores(scores: &[f32], filter: MoveFilter) -> Vec<usize> {
    shortlist_tied(scores, &[], filter)
}

/// [`shortlist_scores`] with exact ties of `scores` going to the higher
/// entry of `ties` (when given, one per score): as gnubg's move comparison
/// breaks equal cubeful equities by cubeless ones. Plays that all leave
/// the opponent a cash are worth the same cubeful equity, and the one
/// least likely to lose is still the one to play.
pub fn shortlist_tied(scores: &[f32], ties: &[f32], filter: MoveFilter) -> Vec<usize> {
    let tie = |i: usize| ties.get(i).copied().unwrap_or(0.0);
    let mut order: Vec<usize> = (0..scores.len()).collect();
    order.sort_by(|&a, &b| {
        scores[b]
            .total_cmp(&scores[a])
            .then(tie(b).total_cmp(&tie(a)))
    });
    let top = scores[order[0]];
    order
        .into_iter()
        .take(filter.keep.max(1))
        .take_while(|&i| top - scores[i] <= filter.margin)
        .collect()
}

/// One ranked play of a roll.
#[derive(Clone, Copy, Debug)]
pub struct RankedMove {
    /// The play and its board.
    pub candidate: Candidate,
    /// Its outcome probabilities for the mover.
    pub probs: Probs,
    /// Its value for the mover by the ranking's [`Valuation`]: money
    /// equity, or EMG at a match score.
    pub equity: f32,
    /// The depth that value was computed at (plays the filter dropped stay
    /// at 0-ply).
    pub ply: u32,
}

/// All plays of `dice` from `pos`, best first by `valuation` (made for
/// the player on roll of `pos`): every play at 0-ply, those `root` keeps
/// at 1 ply, the best of those at 2 ply and so on up to `ply`
/// (deeper-searched plays rank ahead of the rest). Every ranking of a
/// roll's plays (hints, annotation, the engine's own play, the plays a
/// rollout compares) comes from here.
pub fn rank_moves<E: Evaluator + ?Sized>(
    base: &E,
    pos: &Position,
    dice: Dice,
    ply: u32,
    root: MoveFilter,
    valuation: Valuation,
) -> Vec<RankedMove> {
    let mut list = MoveList::new();
    generate(pos, dice, &mut list);
    let cands = list.as_slice();
    let mut values = Vec::new();
    candidate_values(base, cands, &mut values);
    let mut ranked: Vec<RankedMove> = cands
        .iter()
        .zip(&values)
        .map(|(c, v)| RankedMove {
            candidate: *c,
            probs: *v,
            equity: valuation.value(v, true),
            ply: 0,
        })
        .collect();
    if ply > 0 && cands.len() > 1 {
        let search = Ply::new(base, ply).with_valuation(valuation);
        for (i, v, d) in search.deepen(cands, &values, ply, root, true, true) {
            ranked[i].probs = v;
            ranked[i].equity = valuation.value(&v, true);
            ranked[i].ply = d;
        }
    }
    ranked.sort_by(|a, b| b.ply.cmp(&a.ply).then(b.equity.total_cmp(&a.equity)));
    ranked
}

/// A player that searches `depth` plies (0 is greedy on the base).
pub struct Searcher<'a, E: Evaluator + ?Sized> {
    ply: Ply<'a, E>,
    root: MoveFilter,
}

impl<'a, E: Evaluator + ?Sized> Searcher<'a, E> {
    /// Plays at `depth` ply on `base`, by money equity.
    pub fn new(base: &'a E, depth: u32) -> Self {
        Searcher {
            ply: Ply::new(base, depth),
            root: MoveFilter::ROOT,
        }
    }

    /// Plays by `valuation` (made for the player it plays for).
    pub fn with_valuation(mut self, valuation: Valuation) -> Self {
        self.ply = self.ply.with_valuation(valuation);
        self
    }
}

impl<E: Evaluator + ?Sized> crate::search::chooser::Chooser for Searcher<'_, E> {
    fn choose(&mut self, _before: &Position, candidates: &[Candidate]) -> usize {
        self.ply
            .best_play(candidates, None, self.ply.depth, self.root, true)
            .0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RACE: crate::evaluation::evaluator::testing::PipRace =
        crate::evaluation::evaluator::testing::PipRace(10.0);

    #[test]
    fn one_ply_is_the_average_of_the_best_replies() {
        let pos = Position::start();
        let one = Ply::new(&RACE, 1).eval(&pos);
        let mut want = 0.0;
        for d in Dice::all_21() {
            let mut list = MoveList::new();
            generate(&pos, d, &mut list);
            let mut vals = Vec::new();
            candidate_values(&RACE, list.as_slice(), &mut vals);
            let best = vals.iter().map(|v| v.win()).fold(f32::MIN, f32::max);
            want += best * d.weight() as f32 / 36.0;
        }
        assert!((one.win() - want).abs() < 1e-5);
    }

    #[test]
    fn ranking_puts_searched_plays_first_and_orders_them() {
        let ranked = rank_moves(
            &RACE,
            &Position::start(),
            Dice::new(3, 1).unwrap(),
            1,
            MoveFilter::ROOT,
            Valuation::Money,
        );
        assert_eq!(ranked.len(), 16);
        assert_eq!(ranked[0].ply, 1);
        for w in ranked.windows(2) {
            if w[0].ply == w[1].ply {
                assert!(w[0].probs.equity() >= w[1].probs.equity());
            }
        }
    }

    #[test]
    fn shortlist_honours_count_and_margin() {
        let v: Vec<Probs> = [0.5, 0.9, 0.88, 0.7, 0.89]
            .iter()
            .map(|&w| Probs([w, 0.0, 0.0, 0.0, 0.0]))
            .collect();
        let s = shortlist(
            &v,
            MoveFilter {
                keep: 2,
                margin: 1.0,
            },
        );
        assert_eq!(s, vec![1, 4]);
        let s = shortlist(
            &v,
            MoveFilter {
                keep: 8,
                margin: 0.05,
            },
        );
        assert_eq!(s, vec![1, 4, 2]);
    }

    #[test]
    fn exact_ties_go_to_the_better_second_score() {
        // Three plays that all leave the opponent a cash: equal cubeful
        // values, different cubeless ones.
        let scores = [-1.0, 0.2, -1.0, -1.0];
        let cubeless = [-0.7, 0.1, -0.6, -0.65];
        let all = MoveFilter {
            keep: 8,
            margin: 2.0,
        };
        assert_eq!(shortlist_tied(&scores, &cubeless, all), vec![1, 2, 3, 0]);
        // Without second scores, equal ones keep their order.
        assert_eq!(shortlist_scores(&scores, all), vec![1, 0, 2, 3]);
    }
}
