//! Cube decisions in money play from cubeless probabilities, by Janowski's
//! interpolation between a dead and a fully live cube.
//!
//! With `W` the average points won when winning and `L` lost when losing
//! (gammons and backgammons included), a fully live cube gives the player
//! on roll, as a function of the win probability `p`:
//! - take point `TP = (L - 1/2) / (W + L + 1/2)`, cash point
//!   `CP = (L + 1) / (W + L + 1/2)`;
//! - the live value is piecewise linear from `-L` at `p = 0` to `W` at
//!   `p = 1`, through `-1` at `TP` when the opponent may double and `+1` at
//!   `CP` when the player may (outside those points a side is too good to
//!   double and plays on for the gammon).
//!
//! The cubeful equity is `x` times the live value plus `1 - x` times the
//! dead (cubeless) equity; `x`, the cube efficiency, depends on the kind
//! of position ([`efficiency`]). Equities are per unit of the current cube.

use serde::Serialize;

use crate::evaluation::probs::Probs;
use crate::rules::position::Position;

/// Who holds the cube, from the player on roll's side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Owner {
    /// In the middle: either side may double.
    Centred,
    /// The player on roll owns it.
    Me,
    /// The opponent owns it: the player on roll may not double.
    Opponent,
}

impl Owner {
    /// The same cube seen by the other player.
    pub fn flipped(self) -> Owner {
        match self {
            Owner::Centred => Owner::Centred,
            Owner::Me => Owner::Opponent,
            Owner::Opponent => Owner::Me,
        }
    }
}

/// Money-game cube settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MoneyCube {
    /// Who owns the cube.
    pub owner: Owner,
    /// Jacoby rule: gammons count only once the cube has been turned.
    pub jacoby: bool,
    /// Beavers allowed.
    pub beavers: bool,
}

impl Default for MoneyCube {
    fn default() -> Self {
        MoneyCube {
            owner: Owner::Centred,
            jacoby: false,
            beavers: false,
        }
    }
}

/// The cube action in gnubg's words.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum CubeAction {
    /// Keep the cube; the opponent would take.
    NoDoubleTake,
    /// Keep the cube; the opponent would beaver.
    NoDoubleBeaver,
    /// Double; the opponent should take.
    DoubleTake,
    /// Double; the opponent should beaver.
    DoubleBeaver,
    /// Double; the opponent should pass.
    DoublePass,
    /// Play on for a gammon; the opponent would pass a double.
    TooGoodPass,
    /// Play on for a gammon; the opponent would take a double.
    TooGoodTake,
    /// The player on roll may not double.
    NoCubeAccess,
    /// Match play: the cube already covers what the player needs, so a
    /// double gains nothing.
    DeadCube,
}

impl CubeAction {
    /// The action as gnubg says it (`redouble` when the doubler owns the
    /// cube already).
    pub fn words(self, redouble: bool) -> &'static str {
        use CubeAction::*;
        match (self, redouble) {
            (NoDoubleTake, false) => "No double, take",
            (NoDoubleTake, true) => "No redouble, take",
            (NoDoubleBeaver, false) => "No double, beaver",
            (NoDoubleBeaver, true) => "No redouble, beaver",
            (DoubleTake, false) => "Double, take",
            (DoubleTake, true) => "Redouble, take",
            (DoubleBeaver, false) => "Double, beaver",
            (DoubleBeaver, true) => "Redouble, beaver",
            (DoublePass, false) => "Double, pass",
            (DoublePass, true) => "Redouble, pass",
            (TooGoodPass, false) => "Too good to double, pass",
            (TooGoodPass, true) => "Too good to redouble, pass",
            (TooGoodTake, false) => "Too good to double, take",
            (TooGoodTake, true) => "Too good to redouble, take",
            (NoCubeAccess, _) => "No double (no access to the cube)",
            (DeadCube, false) => "No double, dead cube",
            (DeadCube, true) => "No redouble, dead cube",
        }
    }
}

/// A cube decision: the three equities and the action.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CubeDecision {
    /// Equity if the player on roll does not double.
    pub no_double: f32,
    /// Equity after a double that is taken.
    pub double_take: f32,
    /// Equity after a double that is passed.
    pub double_pass: f32,
    /// What to do.
    pub action: CubeAction,
    /// Win probability below which the player on roll should pass a double
    /// (its take point, live cube).
    pub take_point: f32,
    /// Win probability above which the opponent should pass (the player on
    /// roll's cash point, live cube).
    pub cash_point: f32,
}

/// The cube efficiency of a contact position: the share of the gap
/// between the dead-cube and the fully live-cube equity that a player
/// realises (gnubg's and the literature's usual value).
pub const CONTACT_EFFICIENCY: f32 = 0.68;

/// Cube efficiency by position kind: [`CONTACT_EFFICIENCY`] with contact; in a race it rises
/// with the pip count of the player on roll, `0.55 + 0.00125 * pips` within
/// 0.6..0.7 (longer races leave more time to use the cube).
pub fn efficiency(pos: &Position) -> f32 {
    if pos.is_contact() {
        CONTACT_EFFICIENCY
    } else {
        (0.55 + 0.00125 * pos.me.pips() as f32).clamp(0.6, 0.7)
    }
}

/// Average points won per win and lost per loss.
fn values(p: &Probs) -> (f32, f32) {
    let [w, wg, wbg, lg, lbg] = p.0;
    let win = if w > 1e-6 { 1.0 + (wg + wbg) / w } else { 1.0 };
    let lose = if w < 1.0 - 1e-6 {
        1.0 + (lg + lbg) / (1.0 - w)
    } else {
        1.0
    };
    (win, lose)
}

fn points(w: f32, l: f32) -> (f32, f32) {
    ((l - 0.5) / (w + l + 0.5), (l + 1.0) / (w + l + 0.5))
}

/// Cubeful equity for the player on roll with the cube at `owner`.
pub fn cubeful_equity(p: &Probs, owner: Owner, x: f32) -> f32 {
    let (w, l) = values(p);
    let pw = p.win();
    let dead = p.equity();
    let (tp, cp) = points(w, l);
    // The live value runs through (0, -L), the take point at -1 when the
    // opponent may double, the cash point at +1 when I may, and (1, W):
    // beyond a point the side is too good and plays on for the gammon.
    let (left, right) = match owner {
        Owner::Centred => ((tp, -1.0), (cp, 1.0)),
        Owner::Me => ((0.0, -l), (cp, 1.0)),
        Owner::Opponent => ((tp, -1.0), (1.0, w)),
    };
    let live = through(&[(0.0, -l), left, right, (1.0, w)], pw);
    x * live + (1.0 - x) * dead
}

/// The piecewise-linear function through `points` (sorted by x) at `x`.
pub(crate) fn through(points: &[(f32, f32)], x: f32) -> f32 {
    for w in points.windows(2) {
        let ((x0, y0), (x1, y1)) = (w[0], w[1]);
        if x <= x1 {
            return if x1 - x0 < 1e-9 {
                y1
            } else {
                y0 + (y1 - y0) * (x - x0).max(0.0) / (x1 - x0)
            };
        }
    }
    points.last().map_or(0.0, |p| p.1)
}

/// Equity differences below this are ties (rounding in sums over rolls).
const TIE: f32 = 1e-4;

/// The action the three equities call for, in money play.
pub fn action_of(
    no_double: f32,
    double_take: f32,
    double_pass: f32,
    cube: MoneyCube,
) -> CubeAction {
    if cube.owner == Owner::Opponent {
        CubeAction::NoCubeAccess
    } else if double_take >= double_pass {
        // The opponent should pass a double; playing on must gain strictly
        // (a deeper search that cashes next turn ties at exactly +1).
        if no_double > double_pass + TIE {
            CubeAction::TooGoodPass
        } else {
            CubeAction::DoublePass
        }
    } else {
        // The opponent should take (or beaver when taking wins it money).
        let beaver = cube.beavers && double_take < 0.0;
        match (
            no_double >= double_take,
            no_double > double_pass + TIE,
            beaver,
        ) {
            (true, true, _) => CubeAction::TooGoodTake,
            (true, false, true) => CubeAction::NoDoubleBeaver,
            (true, false, false) => CubeAction::NoDoubleTake,
            (false, _, true) => CubeAction::DoubleBeaver,
            (false, _, false) => CubeAction::DoubleTake,
        }
    }
}

/// The money cube decision for the player on roll.
pub fn money_decision(p: &Probs, cube: MoneyCube, x: f32) -> CubeDecision {
    // Under Jacoby a centred cube leaves gammons worth a single game.
    let nd_probs = if cube.jacoby && cube.owner == Owner::Centred {
        Probs([p.win(), 0.0, 0.0, 0.0, 0.0])
    } else {
        *p
    };
    let (w, l) = values(p);
    let (take_point, cash_point) = points(w, l);
    let no_double = cubeful_equity(&nd_probs, cube.owner, x);
    let double_take = 2.0 * cubeful_equity(p, Owner::Opponent, x);
    let double_pass = 1.0;
    let action = action_of(no_double, double_take, double_pass, cube);
    CubeDecision {
        no_double,
        double_take,
        double_pass,
        action,
        take_point,
        cash_point,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gammonless(w: f32) -> Probs {
        Probs([w, 0.0, 0.0, 0.0, 0.0])
    }

    #[test]
    fn gammonless_live_cube_points_are_the_textbook_ones() {
        let d = money_decision(&gammonless(0.5), MoneyCube::default(), 1.0);
        assert!((d.take_point - 0.2).abs() < 1e-6);
        assert!((d.cash_point - 0.8).abs() < 1e-6);
    }

    #[test]
    fn dead_cube_take_point_is_a_quarter() {
        // x = 0: double/take equals double/pass at p = 75%.
        let d = money_decision(&gammonless(0.75), MoneyCube::default(), 0.0);
        assert!((d.double_take - d.double_pass).abs() < 1e-5);
    }

    #[test]
    fn actions_follow_the_win_chance() {
        let m = MoneyCube::default();
        assert_eq!(
            money_decision(&gammonless(0.5), m, 0.68).action,
            CubeAction::NoDoubleTake
        );
        assert_eq!(
            money_decision(&gammonless(0.72), m, 0.68).action,
            CubeAction::DoubleTake
        );
        assert_eq!(
            money_decision(&gammonless(0.9), m, 0.68).action,
            CubeAction::DoublePass
        );
        let gammonish = Probs([0.9, 0.6, 0.0, 0.0, 0.0]);
        assert_eq!(
            money_decision(&gammonish, m, 0.68).action,
            CubeAction::TooGoodPass
        );
        let owned = MoneyCube {
            owner: Owner::Opponent,
            ..m
        };
        assert_eq!(
            money_decision(&gammonless(0.9), owned, 0.68).action,
            CubeAction::NoCubeAccess
        );
        assert_eq!(CubeAction::DoubleTake.words(true), "Redouble, take");
    }

    #[test]
    fn cubeful_equities_are_continuous_at_the_points() {
        let p = Probs([0.6, 0.2, 0.01, 0.1, 0.005]);
        for owner in [Owner::Centred, Owner::Me, Owner::Opponent] {
            let a = cubeful_equity(&p, owner, 1.0);
            let b = cubeful_equity(&Probs([0.6001, 0.2, 0.01, 0.1, 0.005]), owner, 1.0);
            assert!((a - b).abs() < 0.01);
        }
    }
}
