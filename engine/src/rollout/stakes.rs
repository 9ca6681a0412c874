//! What a rollout's games are played for: money, or a match at a score.
//!
//! A trial's value is kept in one unit from start to end, whatever the cube
//! does: points per unit of the root's cube in money play, the root
//! player's match-winning chance (MWC) in a match. Cube decisions inside a
//! trial, the values at truncation and the luck of each roll all come from
//! here, so money and match rollouts share one trial loop. Cubeful trials
//! choose plays by their cubeful value with the cube of the moment
//! ([`Stakes::cubeful_play`], as hints rank them); cubeless ones by
//! [`Valuation`]: money equity, or EMG at the mover's score and cube.

use std::sync::Arc;

use crate::cube::cubeful::{self, CubeView};
use crate::cube::decision::{owner_of, score_of};
use crate::cube::match_cube::{match_decision, CubeLife};
use crate::cube::match_cubeful::{MatchCube, MatchView};
use crate::cube::met::{Met, MetError, Score};
use crate::cube::money::{self, CubeAction, CubeDecision, MoneyCube, Owner};
use crate::evaluation::evaluator::Evaluator;
use crate::evaluation::probs::Probs;
use crate::rules::dice::Dice;
use crate::rules::match_state::MatchState;
use crate::rules::position::Position;
use crate::search::ply::MoveFilter;
use crate::search::valuation::{MatchOutcomes, Valuation};

/// The game at the root of a rollout, seen from the player on roll there.
#[derive(Clone, Debug, PartialEq)]
pub enum Stakes {
    /// Money play under these cube rules.
    Money(MoneyCube),
    /// A match at a score.
    Match(MatchStakes),
}

/// Kazaross-XG2, shared by every match rollout that prices with it.
static KAZAROSS: std::sync::LazyLock<Arc<Met>> =
    std::sync::LazyLock::new(|| Arc::new(Met::kazaross_xg2().clone()));

impl Stakes {
    /// The stakes of the game in `state`, from the player on roll: money
    /// under its cube rules, or the match at its score and cube, priced by
    /// Kazaross-XG2 as every other match-aware answer is.
    pub fn for_state(state: &MatchState) -> Result<Stakes, MetError> {
        let owner = owner_of(state.cube, state.on_roll);
        if state.is_money() {
            return Ok(Stakes::Money(MoneyCube {
                owner,
                jacoby: state.jacoby,
                beavers: state.beavers,
            }));
        }
        let cube = u32::try_from(state.cube.value()).unwrap_or(u32::MAX);
        Ok(Stakes::Match(MatchStakes::new(
            KAZAROSS.clone(),
            score_of(state, state.on_roll),
            cube,
            owner,
        )?))
    }
}

impl Default for Stakes {
    fn default() -> Self {
        Stakes::Money(MoneyCube::default())
    }
}

/// A match score, cube and table: the stakes of a match rollout.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchStakes {
    met: Arc<Met>,
    score: Score,
    cube: u32,
    owner: Owner,
}

impl MatchStakes {
    /// The stakes at `score` (the root player's side) with a cube of value
    /// `cube` held by `owner`, priced by `met`; a score beyond the table is
    /// an error here, so every later lookup (which only comes nearer the
    /// end of the match) succeeds.
    pub fn new(met: Arc<Met>, score: Score, cube: u32, owner: Owner) -> Result<Self, MetError> {
        met.mwc(score)?;
        if score.me == 0 || score.opp == 0 {
            return Err(MetError::Format(format!(
                "score {}-away, {}-away: the match is over",
                score.me, score.opp
            )));
        }
        Ok(MatchStakes {
            met,
            score,
            cube: cube.max(1),
            owner,
        })
    }

    /// The root player's MWC after each outcome at the root's cube.
    pub fn outcomes(&self) -> MatchOutcomes {
        outcomes(&self.met, self.score, self.cube)
    }
}

/// The MWC of the player at `score` after each outcome at cube `c`.
fn outcomes(met: &Met, score: Score, c: u32) -> MatchOutcomes {
    crate::cube::decision::outcomes(met, score, c)
        .expect("scores in a trial are no farther from the end than the root's")
}

/// `met.after`, for scores no farther from the end than the root's, which
/// [`MatchStakes::new`] checked.
fn lookup(met: &Met, score: Score, points: i32) -> f32 {
    met.after(score, points)
        .expect("scores in a trial are no farther from the end than the root's")
}

/// The cube during a trial: its value in units of the root's cube, and
/// who owns it (`Some(true)`: the root player).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct TrialCube {
    pub value: f64,
    pub owner: Option<bool>,
}

impl TrialCube {
    /// The cube as the root has it.
    pub fn at_root(stakes: &Stakes) -> TrialCube {
        let owner = match stakes.root_owner() {
            Owner::Centred => None,
            Owner::Me => Some(true),
            Owner::Opponent => Some(false),
        };
        TrialCube { value: 1.0, owner }
    }

    /// After a double by the mover is taken.
    pub fn doubled(self, mover_is_root: bool) -> TrialCube {
        TrialCube {
            value: 2.0 * self.value,
            owner: Some(!mover_is_root),
        }
    }

    fn owner_for(self, mover_is_root: bool) -> Owner {
        match self.owner {
            None => Owner::Centred,
            Some(r) if r == mover_is_root => Owner::Me,
            Some(_) => Owner::Opponent,
        }
    }
}

/// What the player on roll does with the cube before rolling.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CubeMove {
    /// Rolls.
    Roll,
    /// Doubles and the opponent takes.
    DoubleTake,
    /// Doubles and the opponent passes.
    DoublePass,
}

impl Stakes {
    fn root_owner(&self) -> Owner {
        match self {
            Stakes::Money(m) => m.owner,
            Stakes::Match(m) => m.owner,
        }
    }

    /// The same stakes seen by the opponent of the player on roll.
    pub fn swapped(&self) -> Stakes {
        let flip = |o: Owner| match o {
            Owner::Centred => Owner::Centred,
            Owner::Me => Owner::Opponent,
            Owner::Opponent => Owner::Me,
        };
        match self {
            Stakes::Money(m) => Stakes::Money(MoneyCube {
                owner: flip(m.owner),
                ..*m
            }),
            Stakes::Match(m) => Stakes::Match(MatchStakes {
                met: m.met.clone(),
                score: Score {
                    me: m.score.opp,
                    opp: m.score.me,
                    post_crawford: m.score.post_crawford,
                },
                cube: m.cube,
                owner: flip(m.owner),
            }),
        }
    }

    /// A trial value seen by the other player (money: negated; match: one
    /// minus the MWC).
    pub(crate) fn flip_value(&self, v: f64) -> f64 {
        match self {
            Stakes::Money(_) => -v,
            Stakes::Match(_) => 1.0 - v,
        }
    }

    /// The score from the mover's side.
    fn mover_score(m: &MatchStakes, mover_is_root: bool) -> Score {
        if mover_is_root {
            m.score
        } else {
            Score {
                me: m.score.opp,
                opp: m.score.me,
                post_crawford: m.score.post_crawford,
            }
        }
    }

    /// The cube's value in points.
    fn points(m: &MatchStakes, cube: TrialCube) -> u32 {
        (f64::from(m.cube) * cube.value).round() as u32
    }

    /// How the mover compares plays with the cube where it is.
    pub(crate) fn valuation(&self, cube: TrialCube, mover_is_root: bool) -> Valuation {
        match self {
            Stakes::Money(_) => Valuation::Money,
            Stakes::Match(m) => Valuation::Match(outcomes(
                &m.met,
                Self::mover_score(m, mover_is_root),
                Self::points(m, cube),
            )),
        }
    }

    /// The mover's play of `dice` from `pos` (its side) in a cubeful
    /// trial: the best by its cubeful value `ply` deep with the cube where
    /// it is, the opponent free to double after it, ranked as hints rank
    /// plays ([`cubeful::rank_plays`]); so a trial plays safe where the
    /// cube makes safety pay, and for the gammon where the cube is dead.
    pub(crate) fn cubeful_play<E: Evaluator + ?Sized>(
        &self,
        ev: &E,
        pos: &Position,
        dice: Dice,
        cube: TrialCube,
        mover_is_root: bool,
        ply: u32,
    ) -> Position {
        fn best<E: Evaluator + ?Sized, C: CubeView>(
            ev: &E,
            pos: &Position,
            dice: Dice,
            view: C,
            ply: u32,
        ) -> Position {
            let ranked = cubeful::rank_plays(ev, pos, dice, view, ply, MoveFilter::ROOT);
            ranked[0].candidate.position
        }
        let owner = cube.owner_for(mover_is_root);
        match self {
            Stakes::Money(rules) => best(ev, pos, dice, MoneyCube { owner, ..*rules }, ply),
            Stakes::Match(m) => {
                let view = MatchCube {
                    score: Self::mover_score(m, mover_is_root),
                    cube: Self::points(m, cube),
                    owner,
                };
                best(ev, pos, dice, MatchView::new(&m.met, view), ply)
            }
        }
    }

    /// The mover's cube decision with probabilities `p` (its own) in
    /// `pos` (its side): money equity per unit of the current cube, or EMG
    /// at the current cube.
    fn decision(
        &self,
        p: &Probs,
        pos: &Position,
        cube: TrialCube,
        mover_is_root: bool,
    ) -> CubeDecision {
        let owner = cube.owner_for(mover_is_root);
        match self {
            Stakes::Money(rules) => {
                // Jacoby counts only with the cube centred, which
                // money_decision sees from the owner.
                money::money_decision(p, MoneyCube { owner, ..*rules }, money::efficiency(pos))
            }
            Stakes::Match(m) => match_decision(
                &m.met,
                Self::mover_score(m, mover_is_root),
                Self::points(m, cube),
                owner,
                p,
                CubeLife::of(pos),
            )
            .expect("scores in a trial are no farther from the end than the root's"),
        }
    }

    /// Whether the mover with probabilities `p` doubles, and whether the
    /// double is taken (the decision of the rollout's own cube model).
    pub(crate) fn cube_move(
        &self,
        p: &Probs,
        pos: &Position,
        cube: TrialCube,
        mover_is_root: bool,
    ) -> CubeMove {
        if cube.owner_for(mover_is_root) == Owner::Opponent {
            return CubeMove::Roll;
        }
        let d = self.decision(p, pos, cube, mover_is_root);
        match d.action {
            CubeAction::DoubleTake | CubeAction::DoubleBeaver => CubeMove::DoubleTake,
            CubeAction::DoublePass => CubeMove::DoublePass,
            _ => CubeMove::Roll,
        }
    }

    /// The value, in the trial's unit, of the mover on roll with
    /// probabilities `p`, after its best cube action.
    pub(crate) fn on_roll_value(
        &self,
        p: &Probs,
        pos: &Position,
        cube: TrialCube,
        mover_is_root: bool,
    ) -> f64 {
        let d = self.decision(p, pos, cube, mover_is_root);
        let may = !matches!(d.action, CubeAction::NoCubeAccess | CubeAction::DeadCube)
            && cube.owner_for(mover_is_root) != Owner::Opponent;
        let v = if may {
            d.no_double.max(d.double_take.min(d.double_pass))
        } else {
            d.no_double
        };
        self.in_trial_units(v, cube, mover_is_root)
    }

    /// Converts the mover's equity (money per current cube, or EMG at the
    /// current cube) into the trial's unit.
    fn in_trial_units(&self, v: f32, cube: TrialCube, mover_is_root: bool) -> f64 {
        let mover = match self {
            Stakes::Money(_) => f64::from(v) * cube.value,
            Stakes::Match(m) => {
                let o = outcomes(
                    &m.met,
                    Self::mover_score(m, mover_is_root),
                    Self::points(m, cube),
                );
                f64::from(o.mwc_of_emg(v))
            }
        };
        if mover_is_root {
            mover
        } else {
            self.flip_value(mover)
        }
    }

    /// The trial's value when the game ends with `p` (a certain result,
    /// the mover's side).
    pub(crate) fn end_value(&self, p: &Probs, cube: TrialCube, mover_is_root: bool) -> f64 {
        let k = p.equity().round() as i32;
        let mover = match self {
            Stakes::Money(rules) => {
                // Jacoby: gammons count single while the cube is centred.
                let k = if rules.jacoby && cube.owner.is_none() {
                    k.signum()
                } else {
                    k
                };
                f64::from(k) * cube.value
            }
            Stakes::Match(m) => {
                let pts = k * Self::points(m, cube) as i32;
                f64::from(lookup(&m.met, Self::mover_score(m, mover_is_root), pts))
            }
        };
        if mover_is_root {
            mover
        } else {
            self.flip_value(mover)
        }
    }

    /// The trial's value when the mover's double is passed.
    pub(crate) fn pass_value(&self, cube: TrialCube, mover_is_root: bool) -> f64 {
        self.end_value(&Probs::certain(1), cube, mover_is_root)
    }

    /// A trial value (the root's) in the root player's equity: money per
    /// unit of the root's cube, or EMG at the root's cube.
    pub(crate) fn root_equity(&self, v: f64) -> f64 {
        match self {
            Stakes::Money(_) => v,
            Stakes::Match(m) => {
                let o = m.outcomes().root;
                let (w1, l1) = (f64::from(o[0]), f64::from(o[3]));
                (2.0 * v - (w1 + l1)) / (w1 - l1).max(1e-9)
            }
        }
    }

    /// The cube action at the root given rolled-out equities (in root
    /// units: money per unit cube, or EMG).
    pub(crate) fn action(&self, no_double: f32, double_take: f32, double_pass: f32) -> CubeAction {
        match self {
            Stakes::Money(rules) => money::action_of(no_double, double_take, double_pass, *rules),
            Stakes::Match(m) => {
                let crawford = !m.score.post_crawford && (m.score.me == 1 || m.score.opp == 1);
                let access = m.owner != Owner::Opponent && !crawford;
                crate::cube::match_cube::match_action(
                    no_double,
                    double_take,
                    double_pass,
                    access,
                    access && m.cube < m.score.me,
                )
            }
        }
    }
}
