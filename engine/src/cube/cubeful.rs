//! Cubeful money equities searched `n` plies deep.
//!
//! At 0 ply the cubeful equity comes from the net's probabilities by
//! Janowski's formulas ([`crate::cube::money`]), the player on roll first taking the
//! right cube action. At `n` ply the player on roll (if it may double)
//! compares
//! - no double: the mean over the 21 rolls of the best play's value, each
//!   play's value being minus the opponent's cubeful equity `n - 1` plies
//!   deep with the cube where it is;
//! - double, take: twice the same with the cube the opponent's;
//! - double, pass: +1.
//!
//! Plays are chosen by cubeless 0-ply equity, as gnubg's move filters do at
//! the inner plies.

use crate::cube::money::{self, CubeDecision, MoneyCube, Owner};
use crate::evaluation::evaluator::{argmax_equity, candidate_values, final_result, Evaluator};
use crate::evaluation::probs::Probs;
use crate::rules::dice::Dice;
use crate::rules::movegen::{generate, MoveList};
use crate::rules::position::Position;

/// The three cube equities for the player on roll at `ply`, and the
/// action. At ply 0 this is [`money::money_decision`] on the net's
/// probabilities.
pub fn decision<E: Evaluator + ?Sized>(
    ev: &E,
    pos: &Position,
    cube: MoneyCube,
    ply: u32,
) -> CubeDecision {
    let p = ev.eval(pos);
    let x = money::efficiency(pos);
    let mut d = money::money_decision(&p, cube, x);
    if ply == 0 {
        return d;
    }
    d.no_double = no_double(ev, pos, cube, ply);
    d.double_take = double_take(ev, pos, cube, ply);
    d.action = money::action_of(d.no_double, d.double_take, d.double_pass, cube);
    d
}

/// Cubeful equity for the player on roll, after its best cube action.
fn value<E: Evaluator + ?Sized>(ev: &E, pos: &Position, cube: MoneyCube, ply: u32) -> f32 {
    if ply == 0 {
        let p = ev.eval(pos);
        return cube_value(&p, pos, cube);
    }
    let nd = no_double(ev, pos, cube, ply);
    if cube.owner == Owner::Opponent {
        return nd;
    }
    nd.max(double_take(ev, pos, cube, ply).min(1.0))
}

/// The equity after a double that is taken: twice the no-double equity with
/// the cube the opponent's.
fn double_take<E: Evaluator + ?Sized>(ev: &E, pos: &Position, cube: MoneyCube, ply: u32) -> f32 {
    let taken = MoneyCube {
        owner: Owner::Opponent,
        ..cube
    };
    2.0 * no_double(ev, pos, taken, ply)
}

fn cube_value(p: &Probs, pos: &Position, cube: MoneyCube) -> f32 {
    let d = money::money_decision(p, cube, money::efficiency(pos));
    if cube.owner == Owner::Opponent {
        d.no_double
    } else {
        d.no_double.max(d.double_take.min(d.double_pass))
    }
}

/// The no-double equity `ply` plies deep.
fn no_double<E: Evaluator + ?Sized>(ev: &E, pos: &Position, cube: MoneyCube, ply: u32) -> f32 {
    let mut list = MoveList::new();
    let mut values = Vec::new();
    let mut total = 0.0;
    // Once the cube has been turned, Jacoby no longer limits gammons.
    let after_cube = MoneyCube {
        owner: cube.owner.flipped(),
        jacoby: cube.jacoby && cube.owner == Owner::Centred,
        ..cube
    };
    for dice in Dice::all_21() {
        generate(pos, dice, &mut list);
        candidate_values(ev, list.as_slice(), &mut values);
        let best = argmax_equity(&values);
        let after = list.as_slice()[best].position;
        let v = match final_result(&after) {
            Some(p) => {
                // Jacoby: with the cube centred, gammons count single.
                let e = p.equity();
                if cube.jacoby && cube.owner == Owner::Centred {
                    e.signum()
                } else {
                    e
                }
            }
            None if ply == 1 => -cube_value(&values[best].flipped(), &after.swapped(), after_cube),
            None => -value(ev, &after.swapped(), after_cube, ply - 1),
        };
        total += v * dice.weight() as f32 / 36.0;
    }
    total
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
        let d = decision(&RACE, &pos, cube, 1);
        assert_eq!(d.double_pass, 1.0);
        assert!(d.no_double > -1.0 && d.no_double < 1.0);
        assert!(d.double_take > -2.0 && d.double_take < 2.0);
        // A big racing lead: the opponent should pass at 1 ply as at 0.
        let mut me = [0u8; 24];
        me[0] = 15;
        let mut opp = [0u8; 24];
        opp[11] = 15;
        let far = Position::from_sides(&me, 0, &opp, 0).unwrap();
        let d0 = decision(&RACE, &far, cube, 0);
        let d1 = decision(&RACE, &far, cube, 1);
        assert!(
            d0.double_take > 1.0 && d1.double_take > 1.0,
            "{d0:?} {d1:?}"
        );
    }
}
