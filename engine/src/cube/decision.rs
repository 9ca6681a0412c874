//! The cube decision of a position in a match state, at a search depth,
//! and the match-aware equities every caller prices with: EMG (the
//! equity in points of the cube's value) from outcome probabilities, and
//! match-winning chance back from EMG. Money play gives money equities.
//! Annotation, the engine's seat, the protocols and the CLI all ask here.

use crate::cube::cubeful::{self, CubeView};
use crate::cube::match_cube::{cube_access, emg_of, match_action, match_decision, CubeLife};
use crate::cube::match_cubeful::{self, MatchCube, MatchView};
use crate::cube::met::{Met, MetError, Score};
use crate::cube::money::{self, CubeAction, MoneyCube, Owner};
use crate::evaluation::evaluator::Evaluator;
use crate::evaluation::probs::Probs;
use crate::rules::dice::Dice;
use crate::rules::match_state::{CubeState, MatchState, Player};
use crate::rules::position::Position;
use crate::search::ply::{rank_moves, MoveFilter, Ply, RankedMove};
use crate::search::valuation::{MatchOutcomes, Valuation};

/// The cube decision of the player on roll (`state.on_roll`, whose side
/// `pos` is seen from) at `ply`, equities in EMG, and the cubeless chances
/// of the one search that found them (its plays chosen at each cube's
/// score as the cubeful search chooses them).
pub fn cube_decision<E: Evaluator + ?Sized>(
    ev: &E,
    pos: &Position,
    state: &MatchState,
    ply: u32,
) -> Result<(Probs, money::CubeDecision), MetError> {
    let mc = match cube_view(state)? {
        View::Money(mc) => return Ok(cubeful::decision(ev, pos, mc, ply)),
        View::Match(mc) => mc,
    };
    let (met, score, life) = (Met::kazaross_xg2(), mc.score, CubeLife::of(pos));
    // The cube played inside the search, as in money play; the take and
    // cash points are the model's at the searched chances.
    let searched =
        (ply > 0).then(|| match_cubeful::no_double_and_double_take(ev, met, pos, mc, ply));
    let probs = searched.map_or_else(|| ev.eval(pos), |s| s.probs);
    let mut d = match_decision(met, score, mc.cube, mc.owner, &probs, life)?;
    if let Some(s) = searched {
        let dp = met.after(score, mc.cube as i32)?;
        let (access, may) = cube_access(score, mc.cube, mc.owner);
        d.no_double = emg_of(met, score, mc.cube, s.no_double);
        d.double_take = emg_of(met, score, mc.cube, s.double_take);
        d.action = match_action(s.no_double, s.double_take, dp, access, may);
    }
    if state.crawford {
        d.action = CubeAction::NoCubeAccess;
    }
    Ok((probs, d))
}

/// What plays are valued by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum PlayEquity {
    /// The cubeful equity: the cube's value and owner and the opponent's
    /// cube actions counted (money equity per unit of the cube, or EMG at
    /// a match score), as gnubg and XG rank plays.
    #[default]
    Cubeful,
    /// The cubeless equity: money equity, or at a match score the EMG of
    /// the outcomes with the cube dead.
    Cubeless,
}

impl PlayEquity {
    /// The word every output labels its equities with.
    pub fn word(self) -> &'static str {
        match self {
            PlayEquity::Cubeful => "cubeful",
            PlayEquity::Cubeless => "cubeless",
        }
    }
}

/// All plays of `dice` from `pos` for the player on roll of `state`, best
/// first by `equity` at `ply` (the move filters of
/// [`crate::search::ply::rank_moves`]); `equity` of each is EMG at a match
/// score and money equity per unit of the cube in money play. Every
/// ranking of a roll's plays a player sees (hints, annotation, the
/// engine's own play) comes from here.
pub fn rank_plays<E: Evaluator + ?Sized>(
    ev: &E,
    pos: &Position,
    dice: Dice,
    state: &MatchState,
    ply: u32,
    equity: PlayEquity,
) -> Result<Vec<RankedMove>, MetError> {
    let me = state.on_roll;
    let root = MoveFilter::ROOT;
    Ok(match (equity, cube_view(state)?) {
        (PlayEquity::Cubeless, _) => rank_moves(ev, pos, dice, ply, root, valuation(state, me)?),
        (_, View::Money(c)) => cubeful::rank_plays(ev, pos, dice, c, ply, root),
        (_, View::Match(c)) => {
            let c = MatchView::new(Met::kazaross_xg2(), c);
            cubeful::rank_plays(ev, pos, dice, c, ply, root)
        }
    })
}

/// The `equity` (as [`rank_plays`] gives it) to the player on roll of
/// `state` of a play that leaves `after` (seen from that player),
/// searched `ply` deep, and that player's cubeless chances of the line
/// searched.
pub fn play_equity<E: Evaluator + ?Sized>(
    ev: &E,
    after: &Position,
    state: &MatchState,
    ply: u32,
    equity: PlayEquity,
) -> Result<(f32, Probs), MetError> {
    Ok(match (equity, cube_view(state)?) {
        (PlayEquity::Cubeless, _) => {
            let v = valuation(state, state.on_roll)?;
            let p = Ply::new(ev, ply).with_valuation(v).after(after, ply);
            (v.value(&p, true), p)
        }
        (_, View::Money(c)) => {
            let (v, p) = cubeful::after_play(ev, after, c, ply);
            (c.equity(v), p)
        }
        (_, View::Match(c)) => {
            let c = MatchView::new(Met::kazaross_xg2(), c);
            let (v, p) = cubeful::after_play(ev, after, c, ply);
            (c.equity(v), p)
        }
    })
}

/// The cube of `state` from the player on roll's side, as the cubeful
/// search prices it (a match cube on Kazaross-XG2, whose score the table
/// covers).
enum View {
    Money(MoneyCube),
    Match(MatchCube),
}

fn cube_view(state: &MatchState) -> Result<View, MetError> {
    let me = state.on_roll;
    let owner = owner_of(state.cube, me);
    if state.is_money() {
        return Ok(View::Money(MoneyCube {
            owner,
            jacoby: state.jacoby,
            beavers: state.beavers,
        }));
    }
    let cube = MatchCube {
        score: score_of(state, me),
        cube: u32::try_from(state.cube.value()).unwrap_or(u32::MAX / 4),
        owner,
    };
    Met::kazaross_xg2().mwc(cube.score)?;
    Ok(View::Match(cube))
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
    fn cubeful_plays_match_cubeless_ones_where_the_cube_is_dead() {
        use crate::evaluation::evaluator::testing::PipRace;
        let ev = PipRace(12.0);
        let pos = Position::start();
        let dice = Dice::new(6, 2).unwrap();
        // The Crawford game: no cube, so cubeful is cubeless EMG (exactly
        // at 0 ply; at 1 ply the cubeful search's inner nodes value only
        // pubeval's shortlist of each roll's plays).
        let mut s = MatchState::new_match(5);
        s.score = [4, 2];
        s.crawford = true;
        for (ply, within) in [(0, 1e-6), (1, 0.01)] {
            let ful = rank_plays(&ev, &pos, dice, &s, ply, PlayEquity::Cubeful).unwrap();
            let less = rank_plays(&ev, &pos, dice, &s, ply, PlayEquity::Cubeless).unwrap();
            assert_eq!(ful.len(), less.len());
            assert_eq!(ful[0].candidate.position, less[0].candidate.position);
            for a in &ful {
                let b = less
                    .iter()
                    .find(|b| b.candidate.position == a.candidate.position);
                let b = b.unwrap();
                if a.ply == b.ply {
                    assert!((a.equity - b.equity).abs() < within, "{a:?} {b:?}");
                }
            }
        }
        // Money with a live cube in a race I lead: the centred cube is
        // worth more to me than to the opponent on roll.
        let (mut me, mut opp) = ([0u8; 24], [0u8; 24]);
        me[..6].copy_from_slice(&[3, 3, 3, 2, 2, 2]);
        opp[..6].copy_from_slice(&[2, 2, 3, 3, 2, 3]);
        let pos = Position::from_sides(&me, 0, &opp, 0).unwrap();
        let money = MatchState::default();
        let ful = rank_plays(&ev, &pos, dice, &money, 0, PlayEquity::Cubeful).unwrap();
        let less = rank_plays(&ev, &pos, dice, &money, 0, PlayEquity::Cubeless).unwrap();
        for a in &ful {
            let b = less
                .iter()
                .find(|b| b.candidate.position == a.candidate.position);
            assert!(a.equity > b.unwrap().equity + 1e-3, "{a:?} {b:?}");
        }
        // A play's equity alone is the one the ranking gave it.
        let after = ful[2].candidate.position;
        let (e, p) = play_equity(&ev, &after, &money, 0, PlayEquity::Cubeful).unwrap();
        assert!((e - ful[2].equity).abs() < 1e-5);
        assert_eq!(p, ful[2].probs);
    }

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
