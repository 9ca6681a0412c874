//! The cube decision of a position in a match state, at a search depth,
//! and the match-aware equities every caller prices with: EMG (the
//! equity in points of the cube's value) from outcome probabilities, and
//! match-winning chance back from EMG. Money play gives money equities.
//! Annotation, the engine's seat, the protocols and the CLI all ask here.

use crate::cube::cubeful;
use crate::cube::match_cube::{cube_access, emg_of, match_action, match_decision};
use crate::cube::match_cubeful::{self, MatchCube};
use crate::cube::met::{Met, MetError, Score};
use crate::cube::money::{self, CubeAction, MoneyCube, Owner};
use crate::evaluation::evaluator::Evaluator;
use crate::evaluation::probs::Probs;
use crate::rules::match_state::{CubeState, MatchState, Player};
use crate::rules::position::Position;
use crate::search::ply::Ply;
use crate::search::valuation::{MatchOutcomes, Valuation};

/// The cube decision of the player on roll (`state.on_roll`, whose side
/// `pos` is seen from) at `ply`, equities in EMG.
pub fn cube_decision<E: Evaluator + ?Sized>(
    ev: &E,
    pos: &Position,
    state: &MatchState,
    ply: u32,
) -> Result<(Probs, money::CubeDecision), MetError> {
    let probs = Ply::new(ev, ply)
        .with_valuation(valuation(state, state.on_roll)?)
        .eval(pos);
    let owner = owner_of(state.cube, state.on_roll);
    let decision = if state.is_money() {
        let mc = MoneyCube {
            owner,
            jacoby: state.jacoby,
            beavers: state.beavers,
        };
        cubeful::decision(ev, pos, mc, ply)
    } else {
        let x = money::efficiency(pos);
        let cube_value = u32::try_from(state.cube.value()).unwrap_or(u32::MAX);
        let (met, score) = (Met::kazaross_xg2(), score_of(state, state.on_roll));
        let mut d = match_decision(met, score, cube_value, owner, &probs, x)?;
        if ply > 0 {
            // The cube played inside the search, as in money play; the
            // take and cash points stay the model's at the searched
            // probabilities.
            let mc = MatchCube {
                score,
                cube: cube_value,
                owner,
            };
            let (nd, dt) = match_cubeful::no_double_and_double_take(ev, met, pos, mc, ply);
            let dp = met.after(score, mc.cube as i32)?;
            let (access, may) = cube_access(score, mc.cube, owner);
            d.no_double = emg_of(met, score, mc.cube, nd);
            d.double_take = emg_of(met, score, mc.cube, dt);
            d.action = match_action(nd, dt, dp, access, may);
        }
        if state.crawford {
            d.action = CubeAction::NoCubeAccess;
        }
        d
    };
    Ok((probs, decision))
}

/// The cube as seen by `me`.
pub fn owner_of(cube: CubeState, me: Player) -> Owner {
    match cube.owner {
        None => Owner::Centred,
        Some(p) if p == me => Owner::Me,
        Some(_) => Owner::Opponent,
    }
}

/// The match score from `me`'s side.
pub fn score_of(state: &MatchState, me: Player) -> Score {
    let away = state.away();
    let i = me.index();
    Score {
        me: away[i],
        opp: away[1 - i],
        post_crawford: state.is_post_crawford(),
    }
}

/// How `me` compares plays and outcomes at the state's score and cube:
/// money equity in money play, else EMG through the match equity table
/// (the match-winning chance after each outcome at the current cube).
/// Every match-aware ranking and equity in the engine comes from here.
pub fn valuation(state: &MatchState, me: Player) -> Result<Valuation, MetError> {
    if state.is_money() {
        return Ok(Valuation::Money);
    }
    let c = u32::try_from(state.cube.value()).unwrap_or(u32::MAX / 4);
    Ok(Valuation::Match(outcomes(
        Met::kazaross_xg2(),
        score_of(state, me),
        c,
    )?))
}

/// The MWC of the player at `score` after each outcome of the game at
/// cube `cube`, from `met`.
pub fn outcomes(met: &Met, score: Score, cube: u32) -> Result<MatchOutcomes, MetError> {
    let c = i32::try_from(cube).unwrap_or(i32::MAX / 4);
    let after = |k: i32| met.after(score, k.saturating_mul(c));
    Ok(MatchOutcomes {
        root: [
            after(1)?,
            after(2)?,
            after(3)?,
            after(-1)?,
            after(-2)?,
            after(-3)?,
        ],
    })
}

/// Converts cubeless outcome probabilities (for `me`) into EMG at the
/// state's score and cube; money play gives the cubeless equity.
pub fn emg(p: &Probs, state: &MatchState, me: Player) -> Result<f32, MetError> {
    Ok(valuation(state, me)?.value(p, true))
}

/// Match-winning chance of `me` worth `emg` at the state's score and cube
/// (the inverse of [`emg`]'s scaling); money play gives `emg` back.
pub fn mwc_of_emg(emg: f32, state: &MatchState, me: Player) -> Result<f32, MetError> {
    Ok(match valuation(state, me)? {
        Valuation::Money => emg,
        Valuation::Match(m) => m.mwc_of_emg(emg),
    })
}

/// The cubeful equity (EMG) of the player on roll before rolling: the
/// better of no double and the opponent's best answer to a double when the
/// rules let them double, else no double.
pub fn cubeful_equity<E: Evaluator + ?Sized>(
    ev: &E,
    pos: &Position,
    state: &MatchState,
    ply: u32,
) -> Result<f32, MetError> {
    let (_, d) = cube_decision(ev, pos, state, ply)?;
    Ok(if state.may_double(state.on_roll) {
        d.no_double.max(d.double_take.min(d.double_pass))
    } else {
        d.no_double
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emg_is_plus_minus_one_for_single_games() {
        let mut s = MatchState::new_match(5);
        s.score = [1, 2];
        let me = Player::Zero;
        let win = emg(&Probs::certain(1), &s, me).unwrap();
        let lose = emg(&Probs::certain(-1), &s, me).unwrap();
        assert!((win - 1.0).abs() < 1e-5 && (lose + 1.0).abs() < 1e-5);
        // A gammon is worth more than a single game at this score.
        assert!(emg(&Probs::certain(2), &s, me).unwrap() > 1.2);
        // Money: the cubeless equity.
        let money = MatchState::default();
        assert_eq!(emg(&Probs::certain(2), &money, me).unwrap(), 2.0);
        // And back: a single win's EMG is the MWC after winning one point.
        let mwc = mwc_of_emg(win, &s, me).unwrap();
        let met = Met::kazaross_xg2();
        let after = met.after(score_of(&s, me), 1).unwrap();
        assert!((mwc - after).abs() < 1e-5, "{mwc} {after}");
        assert_eq!(mwc_of_emg(0.25, &money, me).unwrap(), 0.25);
    }
}
