//! The engine as a player: the decisions a game asks of it (double or
//! roll, take, drop or beaver, which play, whether to accept a
//! resignation), each from the evaluator at a chosen depth.
//!
//! Every protocol and front end (`play`, UBGI, gnubg's external player,
//! chouette advice) asks these same questions, so they are answered in one
//! place.

use crate::cube::decision::{cube_decision, emg, rank_plays, valuation, PlayEquity};
use crate::cube::met::MetError;
use crate::cube::money::CubeAction;
use crate::evaluation::evaluator::Evaluator;
use crate::evaluation::probs::Probs;
use crate::rules::dice::Dice;
use crate::rules::match_state::{MatchState, Player};
use crate::rules::movegen::{generate, Candidate, MoveList};
use crate::rules::position::Position;
use crate::rules::scoring::WinKind;
use crate::search::ply::Ply;

/// An answer to a double.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CubeReply {
    /// Accept at twice the stake and own the cube.
    Take,
    /// Concede the game at the stake before the double.
    Drop,
    /// Take and redouble at once, keeping the cube (money, beavers on).
    Beaver,
}

/// What the engine does when asked to act in a position.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Act {
    /// Play this (the pass when nothing is legal).
    Play(Candidate),
    /// Offer a double.
    Double,
    /// Roll without doubling.
    Roll,
    /// Answer a pending double.
    Reply(CubeReply),
    /// Accept the resignation on offer.
    Accept,
    /// Refuse the resignation on offer.
    Reject,
    /// Offer to resign a game of this kind.
    Resign(WinKind),
}

/// The engine at one search depth.
pub struct Agent<'a, E: Evaluator + ?Sized> {
    ev: &'a E,
    ply: u32,
    equity: PlayEquity,
}

impl<'a, E: Evaluator + ?Sized> Agent<'a, E> {
    /// Plays and decides at `ply` (0 is the net alone), choosing plays by
    /// their cubeful equity.
    pub fn new(ev: &'a E, ply: u32) -> Self {
        Agent {
            ev,
            ply,
            equity: PlayEquity::Cubeful,
        }
    }

    /// Chooses plays by `equity` instead.
    pub fn with_equity(mut self, equity: PlayEquity) -> Self {
        self.equity = equity;
        self
    }

    /// The search depth.
    pub fn ply(&self) -> u32 {
        self.ply
    }

    /// Whether the player on roll of `pos` (`state.on_roll`) should double
    /// now. False whenever the rules do not let them.
    pub fn should_double(&self, pos: &Position, state: &MatchState) -> Result<bool, MetError> {
        if !state.may_double(state.on_roll) {
            return Ok(false);
        }
        let (_, d) = cube_decision(self.ev, pos, state, self.ply)?;
        Ok(matches!(
            d.action,
            CubeAction::DoubleTake | CubeAction::DoublePass | CubeAction::DoubleBeaver
        ))
    }

    /// The answer to a double offered by the player on roll of `pos`
    /// (`state.on_roll` is the doubler, `state.cube` the cube before the
    /// double). A beaver is only answered when `state.beavers` allows it in
    /// money play.
    pub fn answer_double(&self, pos: &Position, state: &MatchState) -> Result<CubeReply, MetError> {
        let mut before = *state;
        before.doubled = false;
        before.dice = None;
        // The doubler had the cube's access, whatever the record says.
        if before.cube.owner.is_some() {
            before.cube.owner = Some(state.on_roll);
        }
        let (_, d) = cube_decision(self.ev, pos, &before, self.ply)?;
        Ok(if d.double_take >= d.double_pass {
            CubeReply::Drop
        } else if state.is_money() && state.beavers && d.double_take < 0.0 {
            CubeReply::Beaver
        } else {
            CubeReply::Take
        })
    }

    /// The best play of `dice` from `pos` for the player on roll of
    /// `state` (by the agent's [`PlayEquity`]), and its index among the
    /// legal plays in `list` (which the call fills; the pass is the one
    /// play when nothing is legal).
    pub fn best_play(
        &self,
        pos: &Position,
        state: &MatchState,
        dice: Dice,
        list: &mut MoveList,
    ) -> Result<(usize, Candidate), MetError> {
        generate(pos, dice, list);
        let best = rank_plays(self.ev, pos, dice, state, self.ply, self.equity)?[0].candidate;
        let i = list
            .as_slice()
            .iter()
            .position(|c| c.position == best.position)
            .expect("the ranking lists the legal plays");
        Ok((i, list.as_slice()[i]))
    }

    /// The action due from `state.turn` in `pos` (seen from
    /// `state.on_roll`): an answer to a pending double or resignation, the
    /// cube decision before rolling, or the play of the dice.
    pub fn act(&self, pos: &Position, state: &MatchState) -> Result<Act, MetError> {
        if state.doubled {
            return Ok(Act::Reply(self.answer_double(pos, state)?));
        }
        if state.resignation > 0 {
            let kind = WinKind::of_points(state.resignation);
            // The player to answer is `state.turn`; the resigner the other.
            let accept = self.accepts_resignation(pos, state, state.turn.other(), kind)?;
            return Ok(if accept { Act::Accept } else { Act::Reject });
        }
        match state.dice {
            None if self.should_double(pos, state)? => Ok(Act::Double),
            None => Ok(Act::Roll),
            Some(dice) => {
                let mut list = MoveList::new();
                Ok(Act::Play(self.best_play(pos, state, dice, &mut list)?.1))
            }
        }
    }

    /// The outcome probabilities of `pos` for the player on roll of
    /// `state`, at this depth (its plays chosen by EMG at a match score).
    pub fn probs(&self, pos: &Position, state: &MatchState) -> Result<Probs, MetError> {
        Ok(Ply::new(self.ev, self.ply)
            .with_valuation(valuation(state, state.on_roll)?)
            .eval(pos))
    }

    /// Whether the opponent of `resigner` should accept a resignation of
    /// `kind` in `pos` (seen from `state.on_roll`). Accepts when the points
    /// on offer are worth at least playing on, cubeless, in money equity
    /// or match-winning chances.
    pub fn accepts_resignation(
        &self,
        pos: &Position,
        state: &MatchState,
        resigner: Player,
        kind: WinKind,
    ) -> Result<bool, MetError> {
        let acceptor = resigner.other();
        let on_roll = self.probs(pos, state)?;
        let mut play_on = if acceptor == state.on_roll {
            on_roll
        } else {
            on_roll.flipped()
        };
        let gammons_count = !(state.is_money() && state.jacoby && state.cube.owner.is_none());
        let mut points = match kind {
            WinKind::Single => 1,
            WinKind::Gammon => 2,
            WinKind::Backgammon => 3,
        };
        if !gammons_count {
            play_on = Probs([play_on.win(), 0.0, 0.0, 0.0, 0.0]);
            points = 1;
        }
        let offered = emg(&Probs::certain(points), state, acceptor)?;
        let keep = emg(&play_on, state, acceptor)?;
        Ok(offered >= keep - 1e-6)
    }

    /// The resignation the player on roll of `pos` should offer, if any: the
    /// largest kind it loses with certainty at 0 ply (a race or bear-off
    /// with no chance left), so hopeless games end without being played out.
    pub fn resignation(&self, pos: &Position) -> Option<WinKind> {
        if pos.is_contact() {
            return None;
        }
        let p = self.ev.eval(pos);
        if p.win() > 0.0 {
            return None;
        }
        Some(if p.lose_backgammon() >= 1.0 {
            WinKind::Backgammon
        } else if p.lose_gammon() >= 1.0 {
            WinKind::Gammon
        } else {
            WinKind::Single
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evaluation::evaluator::testing::PipRace;
    use crate::rules::match_state::CubeState;

    fn race(me: &[(usize, u8)], opp: &[(usize, u8)]) -> Position {
        let mut a = [0u8; 24];
        let mut b = [0u8; 24];
        for &(p, n) in me {
            a[p - 1] = n;
        }
        for &(p, n) in opp {
            b[p - 1] = n;
        }
        let off_a: u8 = 15 - a.iter().sum::<u8>();
        let off_b: u8 = 15 - b.iter().sum::<u8>();
        assert!(off_a <= 15 && off_b <= 15);
        Position::from_sides(&a, 0, &b, 0).unwrap()
    }

    #[test]
    fn a_big_race_lead_doubles_and_a_hopeless_one_drops() {
        let ev = PipRace(30.0);
        let agent = Agent::new(&ev, 0);
        let money = MatchState::default();
        // 30 pips against 90: an overwhelming lead.
        let lead = race(&[(6, 5)], &[(6, 15)]);
        let even = Position::start();
        assert!(!agent.should_double(&even, &money).unwrap());
        assert!(agent.should_double(&lead, &money).unwrap());
        let doubled = MatchState {
            doubled: true,
            ..money
        };
        assert_eq!(
            agent.answer_double(&lead, &doubled).unwrap(),
            CubeReply::Drop
        );
        assert_eq!(
            agent.answer_double(&even, &doubled).unwrap(),
            CubeReply::Take
        );
        let owned_by_opp = MatchState {
            cube: CubeState {
                log2: 1,
                owner: Some(Player::Zero),
            },
            ..money
        };
        assert!(!agent.should_double(&lead, &owned_by_opp).unwrap());
    }

    #[test]
    fn resignations_are_weighed_against_playing_on() {
        let ev = PipRace(8.0);
        let agent = Agent::new(&ev, 0);
        let state = MatchState {
            jacoby: false,
            ..MatchState::default()
        };
        // The resigner (on roll) is far behind: a single is not enough.
        let lost = race(&[(6, 15)], &[(1, 1)]);
        assert!(agent
            .accepts_resignation(&lost, &state, state.on_roll, WinKind::Backgammon)
            .unwrap());
        // The resigner is far ahead: anything is worth taking.
        let won = race(&[(1, 1)], &[(6, 15)]);
        assert!(agent
            .accepts_resignation(&won, &state, state.on_roll, WinKind::Single)
            .unwrap());
        // The resigner (on roll) loses a gammon half the time: a single is
        // refused, a gammon accepted; under Jacoby with a centred cube the
        // single is enough.
        let gammonish = Fixed(Probs([0.0, 0.0, 0.0, 0.5, 0.0]));
        let agent = Agent::new(&gammonish, 0);
        let pos = Position::start();
        assert!(!agent
            .accepts_resignation(&pos, &state, state.on_roll, WinKind::Single)
            .unwrap());
        assert!(agent
            .accepts_resignation(&pos, &state, state.on_roll, WinKind::Gammon)
            .unwrap());
        let jacoby = MatchState {
            jacoby: true,
            ..state
        };
        assert!(agent
            .accepts_resignation(&pos, &jacoby, state.on_roll, WinKind::Single)
            .unwrap());
    }

    /// The same probabilities for every position.
    struct Fixed(Probs);

    impl Evaluator for Fixed {
        fn eval_batch(&self, positions: &[Position], out: &mut [Probs]) {
            for o in out.iter_mut().take(positions.len()) {
                *o = self.0;
            }
        }
    }
}
