//! Cubeful match-winning chances searched `n` plies deep: the match-play
//! [`CubeView`] of the cubeful search in [`crate::cube::cubeful`].
//!
//! At 0 ply the match cube model ([`crate::cube::match_cube`]) prices the
//! cube from the net's probabilities; inside the search the opponent's own
//! doubles, takes and passes are played at the score; a double passed is
//! worth the MWC after winning the cube's points. The score does not
//! change within a game, only the cube, so a node is a position and a
//! [`MatchCube`]. Plays are chosen by their cubeless MWC at 0 ply. A
//! search of one ply or more prices its leaves with the live cube's take
//! and cash points, a 0-ply value with the realised ones
//! ([`CubePoints`]).

use crate::cube::cubeful::{self, CubeView, Searched};
use crate::cube::match_cube::{
    cube_access, emg_of, CubeLife, CubeMwc, CubePoints, Equities, Shares, Solver,
};
use crate::cube::met::{Met, Score};
use crate::cube::money::Owner;
use crate::evaluation::evaluator::Evaluator;
use crate::evaluation::probs::Probs;
use crate::rules::position::Position;
use crate::search::valuation::MatchOutcomes;

/// The cube and score of a match game, from the player on roll's side.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MatchCube {
    /// Away counts from the player on roll's side.
    pub score: Score,
    /// The cube's value.
    pub cube: u32,
    /// Who owns it.
    pub owner: Owner,
}

impl MatchCube {
    /// The same game seen by the opponent.
    fn flipped(self) -> MatchCube {
        MatchCube {
            score: Score {
                me: self.score.opp,
                opp: self.score.me,
                post_crawford: self.score.post_crawford,
            },
            cube: self.cube,
            owner: self.owner.flipped(),
        }
    }

    /// The cube after the player on roll doubles and the opponent takes.
    fn taken(self) -> MatchCube {
        MatchCube {
            cube: 2 * self.cube,
            owner: Owner::Opponent,
            ..self
        }
    }

    /// Whether a double by the player on roll is allowed and gains it
    /// anything.
    fn may_double(self) -> bool {
        cube_access(self.score, self.cube, self.owner).1
    }

    /// The value after the best cube action of the player on roll.
    fn best(self, m: CubeMwc) -> f32 {
        if self.may_double() {
            m.no_double.max(m.double_take.min(m.double_pass))
        } else {
            m.no_double
        }
    }

    /// The player on roll's MWC after each outcome at this cube.
    fn outcomes(self, met: &Met) -> MatchOutcomes {
        let c = self.cube as i32;
        let after = |k: i32| Equities::after(met, self.score, k * c);
        MatchOutcomes {
            root: [
                after(1),
                after(2),
                after(3),
                after(-1),
                after(-2),
                after(-3),
            ],
        }
    }
}

/// A match cube with the table that prices it: the [`CubeView`] a
/// cubeful search of a match game uses. Values are match-winning chances.
#[derive(Clone, Copy, Debug)]
pub struct MatchView<'a> {
    met: &'a Met,
    cube: MatchCube,
    outcomes: MatchOutcomes,
    points: CubePoints,
}

impl<'a> MatchView<'a> {
    /// `cube` priced by `met` (at 0 ply until a search sets its depth).
    pub fn new(met: &'a Met, cube: MatchCube) -> Self {
        MatchView {
            met,
            cube,
            outcomes: cube.outcomes(met),
            points: CubePoints::Realised,
        }
    }

    fn with(self, cube: MatchCube) -> Self {
        MatchView {
            cube,
            outcomes: cube.outcomes(self.met),
            ..self
        }
    }

    fn solver(&self, p: &Probs, pos: &Position) -> Solver<'a, Met> {
        Solver::new(self.met, Shares::of(p), CubeLife::of(pos)).with_points(self.points)
    }
}

impl PartialEq for MatchView<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.cube == other.cube && self.points == other.points && std::ptr::eq(self.met, other.met)
    }
}

impl CubeView for MatchView<'_> {
    fn flipped(self) -> Self {
        self.with(self.cube.flipped())
    }
    fn taken(self) -> Self {
        self.with(self.cube.taken())
    }
    fn may_double(self) -> bool {
        self.cube.may_double()
    }
    fn at_depth(self, ply: u32) -> Self {
        MatchView {
            points: CubePoints::at_ply(ply),
            ..self
        }
    }
    fn cubeless(&self, p: &Probs) -> f32 {
        self.outcomes.mwc(p, true)
    }
    fn leaf(&self, p: &Probs, pos: &Position) -> f32 {
        let mc = self.cube;
        mc.best(
            self.solver(p, pos)
                .cube_mwc(mc.score, mc.cube, mc.owner, p.win()),
        )
    }
    fn leaves(cubes: &[Self], p: &Probs, pos: &Position) -> Vec<f32> {
        let Some(first) = cubes.first() else {
            return Vec::new();
        };
        // One solver prices one table's cubes (a search has one table and
        // one depth).
        if cubes
            .iter()
            .any(|v| !std::ptr::eq(v.met, first.met) || v.points != first.points)
        {
            return cubes.iter().map(|v| v.leaf(p, pos)).collect();
        }
        let mut solver = first.solver(p, pos);
        cubes
            .iter()
            .map(|v| {
                let mc = v.cube;
                mc.best(solver.cube_mwc(mc.score, mc.cube, mc.owner, p.win()))
            })
            .collect()
    }
    fn pass(self) -> f32 {
        Equities::after(self.met, self.cube.score, self.cube.cube as i32)
    }
    fn mine(self, theirs: f32) -> f32 {
        1.0 - theirs
    }
    fn of_taken(self, v: f32) -> f32 {
        v
    }
    fn equity(self, v: f32) -> f32 {
        emg_of(self.met, self.cube.score, self.cube.cube, v)
    }
}

/// No double and double/take MWCs of the player on roll, `ply` plies deep
/// (`ply` at least 1), and the chances searched.
pub fn no_double_and_double_take<E: Evaluator + ?Sized>(
    ev: &E,
    met: &Met,
    pos: &Position,
    mc: MatchCube,
    ply: u32,
) -> Searched {
    cubeful::no_double_and_double_take(ev, pos, MatchView::new(met, mc), ply)
}

/// The player on roll's MWC after its best cube action, `ply` plies deep.
pub fn value<E: Evaluator + ?Sized>(
    ev: &E,
    met: &Met,
    pos: &Position,
    mc: MatchCube,
    ply: u32,
) -> f32 {
    cubeful::value(ev, pos, MatchView::new(met, mc), ply).0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cube::match_cube::{emg_of, match_decision};
    use crate::search::ply::Ply;

    const RACE: crate::evaluation::evaluator::testing::PipRace =
        crate::evaluation::evaluator::testing::PipRace(12.0);

    fn race(me_pips: u8, opp_pips: u8) -> Position {
        // Every checker on one point: 15 checkers, pips chosen by point.
        let (mut me, mut opp) = ([0u8; 24], [0u8; 24]);
        me[usize::from(me_pips) - 1] = 15;
        opp[usize::from(opp_pips) - 1] = 15;
        Position::from_sides(&me, 0, &opp, 0).unwrap()
    }

    fn cube(me: u32, opp: u32, cube: u32, owner: Owner) -> MatchCube {
        MatchCube {
            score: Score::pre(me, opp),
            cube,
            owner,
        }
    }

    #[test]
    fn one_ply_cube_mwcs_are_consistent_with_the_model() {
        let met = Met::kazaross_xg2();
        let pos = race(5, 5);
        let mc = cube(4, 4, 1, Owner::Centred);
        let Searched {
            no_double: nd,
            double_take: dt,
            ..
        } = no_double_and_double_take(&RACE, met, &pos, mc, 1);
        assert!((0.0..=1.0).contains(&nd) && (0.0..=1.0).contains(&dt));
        // Near the model on the 1-ply cubeless probabilities (the test
        // double's 0-ply chances are not its 1-ply ones).
        let p1 = Ply::new(&RACE, 1).eval(&pos);
        let d0 = match_decision(met, mc.score, 1, Owner::Centred, &p1, CubeLife::CONTACT).unwrap();
        let emg = |m| emg_of(met, mc.score, 1, m);
        assert!(
            (emg(nd) - d0.no_double).abs() < 0.1,
            "{} {}",
            emg(nd),
            d0.no_double
        );
        assert!(
            (emg(dt) - d0.double_take).abs() < 0.1,
            "{} {}",
            emg(dt),
            d0.double_take
        );
        // The value is the best cube action's.
        let dp = Equities::after(met, mc.score, 1);
        let v = value(&RACE, met, &pos, mc, 1);
        assert!((v - nd.max(dt.min(dp))).abs() < 1e-6);
    }

    #[test]
    fn one_solver_prices_each_cube_as_its_own_would() {
        let met = Met::kazaross_xg2();
        let pos = race(5, 8);
        for ply in [0, 2] {
            let mut views = Vec::new();
            for (me, opp) in [(7, 7), (2, 4), (4, 2), (3, 5), (1, 6)] {
                for c in [1, 2, 4] {
                    for owner in [Owner::Centred, Owner::Me, Owner::Opponent] {
                        if c == 1 || owner != Owner::Centred {
                            views.push(MatchView::new(met, cube(me, opp, c, owner)).at_depth(ply));
                        }
                    }
                }
            }
            for w in [0.1, 0.45, 0.7, 0.93] {
                let p = Probs([w, 0.3 * w, 0.02 * w, 0.2 * (1.0 - w), 0.01]);
                let together = MatchView::leaves(&views, &p, &pos);
                let alone: Vec<f32> = views.iter().map(|v| v.leaf(&p, &pos)).collect();
                let bits = |xs: &[f32]| xs.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&together), bits(&alone), "ply {ply}, win {w}");
            }
        }
    }

    #[test]
    fn a_play_searched_no_deeper_shows_its_0_ply_value_in_a_deeper_ranking() {
        use crate::rules::dice::Dice;
        use crate::search::ply::MoveFilter;
        // A play the filter leaves at 0 ply is priced with the realised
        // points however deep the ranking goes, as a 0-ply ranking prices
        // it; the deeper ones with live points in their leaves.
        let met = Met::kazaross_xg2();
        let (mut me, mut opp) = ([0u8; 24], [0u8; 24]);
        for (i, n) in [(0, 2), (5, 3), (7, 3), (9, 2), (11, 3), (16, 2)] {
            me[i] = n;
        }
        for (i, n) in [(1, 2), (4, 3), (6, 3), (10, 2), (11, 3), (15, 2)] {
            opp[i] = n;
        }
        let pos = Position::from_sides(&me, 0, &opp, 0).unwrap();
        let view = MatchView::new(met, cube(7, 5, 1, Owner::Centred));
        let dice = Dice::new(4, 2).unwrap();
        let shallow = cubeful::rank_plays(&RACE, &pos, dice, view, 0, MoveFilter::ROOT);
        // Whatever depth the view was last priced at.
        let deep = cubeful::rank_plays(&RACE, &pos, dice, view.at_depth(2), 2, MoveFilter::ROOT);
        assert!(deep.iter().any(|r| r.ply == 2) && deep.iter().any(|r| r.ply == 0));
        for r in deep.iter().filter(|r| r.ply == 0) {
            let same = shallow
                .iter()
                .find(|s| s.candidate.position == r.candidate.position)
                .unwrap();
            assert_eq!(r.equity.to_bits(), same.equity.to_bits());
        }
    }

    #[test]
    fn a_dead_cube_is_not_turned_and_the_crawford_game_has_none() {
        let met = Met::kazaross_xg2();
        let pos = race(5, 5);
        // 2-away holding a 2-cube: dead for it.
        let dead = cube(2, 5, 2, Owner::Me);
        assert!(!dead.may_double());
        let nd = no_double_and_double_take(&RACE, met, &pos, dead, 1).no_double;
        assert_eq!(value(&RACE, met, &pos, dead, 1), nd);
        let crawford = cube(1, 4, 1, Owner::Centred);
        assert!(!crawford.may_double());
        // Post-Crawford the trailer may double.
        let post = MatchCube {
            score: Score {
                me: 4,
                opp: 1,
                post_crawford: true,
            },
            ..crawford
        };
        assert!(post.may_double());
        assert_eq!(post.flipped().flipped(), post);
    }

    #[test]
    fn the_taker_of_a_covering_cube_redoubles_inside_the_search() {
        // 2-away 4-away: the 4-away taker of a 2-cube redoubles at once,
        // so the 2-away side's double/take is about its winning chance,
        // one ply deep as in the model.
        let met = Met::kazaross_xg2();
        let pos = race(5, 5);
        let mc = cube(2, 4, 1, Owner::Centred);
        let dt = no_double_and_double_take(&RACE, met, &pos, mc, 1).double_take;
        let p = Ply::new(&RACE, 1).eval(&pos).win();
        assert!(
            (dt - p).abs() < 0.05,
            "double/take {dt}, winning chance {p}"
        );
    }
}
