//! The engine in a seat of a [`Session`]: whatever the session awaits of
//! that seat (resign, double or roll, a play, an answer to a double or to
//! a resignation), decided by the rules of the game and the [`Agent`].
//!
//! Every front end that seats the engine (`play`, the chouette, the
//! protocols) asks here, so the engine plays its seat one way everywhere:
//! it offers to resign a hopeless game before it would double, never
//! offers again in a game where its offer was refused, answers a double
//! with a take where a beaver is not allowed, and at the beginner level
//! plays pubeval's choice.

use crate::cube::met::MetError;
use crate::evaluation::evaluator::Evaluator;
use crate::evaluation::pubeval;
use crate::play::agent::{Act, Agent, CubeReply};
use crate::play::session::{Awaiting, PlayError, Session};
use crate::rules::match_state::Player;
use crate::rules::movegen::MoveList;
use crate::rules::scoring::GameResult;

/// How strongly the engine plays a seat.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// pubeval's plays (a weak linear evaluator), 0-ply cube.
    Beginner,
    /// The net alone (0-ply).
    Intermediate,
    /// 1-ply search.
    Expert,
    /// 2-ply search.
    WorldClass,
}

impl Level {
    /// Every level, weakest first.
    pub const ALL: [Level; 4] = [
        Level::Beginner,
        Level::Intermediate,
        Level::Expert,
        Level::WorldClass,
    ];

    /// The search depth of the level's cube decisions (and plays, but at
    /// the beginner level).
    pub fn ply(self) -> u32 {
        match self {
            Level::Beginner | Level::Intermediate => 0,
            Level::Expert => 1,
            Level::WorldClass => 2,
        }
    }

    /// The level's name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Level::Beginner => "beginner",
            Level::Intermediate => "intermediate",
            Level::Expert => "expert",
            Level::WorldClass => "world-class",
        }
    }

    /// The level named `name`, if any.
    pub fn from_name(name: &str) -> Option<Level> {
        Level::ALL.into_iter().find(|l| l.name() == name)
    }
}

/// Why the engine could not act.
#[derive(Debug, thiserror::Error)]
pub enum SeatError {
    /// The score is beyond the match equity table.
    #[error("match equity table: {0}")]
    Met(#[from] MetError),
    /// The session refused the action.
    #[error("{0}")]
    Play(#[from] PlayError),
    /// The session awaits nothing of a player (between games, match over).
    #[error("the session awaits no player")]
    NothingAwaited,
}

/// The engine playing a seat at a level.
pub struct EngineSeat<'a, E: Evaluator + ?Sized> {
    agent: Agent<'a, E>,
    level: Level,
}

impl<'a, E: Evaluator + ?Sized> EngineSeat<'a, E> {
    /// The engine by `ev` at `level`.
    pub fn new(ev: &'a E, level: Level) -> Self {
        EngineSeat {
            agent: Agent::new(ev, level.ply()),
            level,
        }
    }

    /// The agent behind the seat (for advice to people at the table).
    pub fn agent(&self) -> &Agent<'a, E> {
        &self.agent
    }

    /// What the engine does now, as the player the session awaits.
    pub fn act(&self, session: &Session) -> Result<Act, SeatError> {
        match session.awaiting() {
            Awaiting::Roll { player, may_double } => {
                let pos = *session.position();
                if !session.resignation_refused(player) {
                    if let Some(kind) = self.agent.resignation(&pos) {
                        return Ok(Act::Resign(kind));
                    }
                }
                Ok(
                    if may_double && self.agent.should_double(&pos, session.state())? {
                        Act::Double
                    } else {
                        Act::Roll
                    },
                )
            }
            Awaiting::Move { dice, .. } => {
                let pos = *session.position();
                let legal = session.legal_plays();
                if legal.len() == 1 {
                    return Ok(Act::Play(legal[0]));
                }
                Ok(Act::Play(if self.level == Level::Beginner {
                    legal[pubeval::choose(&pos, &legal)]
                } else {
                    let mut list = MoveList::new();
                    self.agent
                        .best_play(&pos, session.state(), dice, &mut list)?
                        .1
                }))
            }
            Awaiting::AnswerDouble { may_beaver, .. } => {
                let reply = self
                    .agent
                    .answer_double(&session.decision_position(), &session.decision_state())?;
                Ok(Act::Reply(if reply == CubeReply::Beaver && !may_beaver {
                    CubeReply::Take
                } else {
                    reply
                }))
            }
            Awaiting::AnswerResignation { player, kind } => {
                let accept = self.agent.accepts_resignation(
                    &session.decision_position(),
                    &session.decision_state(),
                    player.other(),
                    kind,
                )?;
                Ok(if accept { Act::Accept } else { Act::Reject })
            }
            Awaiting::BetweenGames | Awaiting::MatchOver { .. } => Err(SeatError::NothingAwaited),
        }
    }
}

/// Carries out `act` for `player`, the player the session awaits; the
/// game's result when the act ends the game.
pub fn apply(
    session: &mut Session,
    player: Player,
    act: Act,
) -> Result<Option<GameResult>, PlayError> {
    Ok(match act {
        Act::Resign(kind) => {
            session.resign(player, kind)?;
            None
        }
        Act::Double => {
            session.double()?;
            None
        }
        Act::Roll => {
            session.roll()?;
            None
        }
        Act::Play(c) => session.play(&c)?,
        Act::Reply(CubeReply::Take) => {
            session.take()?;
            None
        }
        Act::Reply(CubeReply::Beaver) => {
            session.beaver()?;
            None
        }
        Act::Reply(CubeReply::Drop) => Some(session.drop_double()?),
        Act::Accept => Some(session.accept()?),
        Act::Reject => {
            session.reject()?;
            None
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evaluation::evaluator::testing::PipRace;
    use crate::evaluation::evaluator::NetEvaluator;
    use crate::evaluation::weights::decode;
    use crate::rules::dice::Roller;
    use crate::rules::scoring::{Rules, WinKind};

    /// Dice from a fixed list, then a seeded stream.
    struct Dice(Vec<(u8, u8)>, u64);

    impl Roller for Dice {
        fn throw(&mut self) -> (u8, u8) {
            if let Some(t) = self.0.pop() {
                return t;
            }
            // A small LCG: enough for varied, repeatable games.
            self.1 = self
                .1
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let a = (self.1 >> 33) % 6 + 1;
            let b = (self.1 >> 45) % 6 + 1;
            (a as u8, b as u8)
        }
    }

    /// The shipped net (the repository's weights file): a test double
    /// that knows only pips plays contact positions without end.
    fn shipped() -> NetEvaluator {
        let bytes = include_bytes!("../../../weights/sheshbesh.weights");
        NetEvaluator::from_weights(&decode(bytes).unwrap()).unwrap()
    }

    /// Plays a whole session with the engine in both seats, checking each
    /// act against the rules as it goes; returns the session.
    fn engine_match(length: u32, rules: Rules, level: Level, seed: u64) -> Session {
        let ev = shipped();
        let seat = EngineSeat::new(&ev, level);
        let mut s = Session::new(
            rules,
            length,
            ["a".into(), "b".into()],
            Box::new(Dice(Vec::new(), seed)),
        );
        let mut games = 0;
        for _ in 0..20_000 {
            match s.awaiting() {
                Awaiting::MatchOver { .. } => return s,
                Awaiting::BetweenGames => {
                    if length == 0 && games == 3 {
                        return s;
                    }
                    games += 1;
                    s.start_game().unwrap();
                }
                Awaiting::Roll { player, .. }
                | Awaiting::Move { player, .. }
                | Awaiting::AnswerDouble { player, .. }
                | Awaiting::AnswerResignation { player, .. } => {
                    let before = s.awaiting();
                    let act = seat.act(&s).unwrap();
                    if let (
                        Act::Reply(CubeReply::Beaver),
                        Awaiting::AnswerDouble { may_beaver, .. },
                    ) = (act, before)
                    {
                        assert!(may_beaver, "a beaver where none is allowed");
                    }
                    if let Act::Resign(_) = act {
                        assert!(
                            !s.resignation_refused(player),
                            "re-offered a refused resignation"
                        );
                    }
                    apply(&mut s, player, act).unwrap();
                }
            }
        }
        panic!("the session did not end");
    }

    #[test]
    fn the_engine_plays_whole_matches_and_money_sessions_in_both_seats() {
        for (length, seed, level) in [
            (5, 1, Level::Intermediate),
            (5, 2, Level::Beginner),
            (2, 3, Level::Expert),
        ] {
            let s = engine_match(length, Rules::default(), level, seed);
            let Awaiting::MatchOver { winner } = s.awaiting() else {
                panic!("not over");
            };
            assert!(s.state().score[winner.index()] >= length);
            // The record reads back as the games that were played.
            let back = crate::formats::story::read(&s.mat_text(), false).unwrap();
            assert_eq!(back.games.len(), s.results().len());
        }
        let money = Rules {
            beavers: true,
            jacoby: true,
            ..Rules::default()
        };
        let s = engine_match(0, money, Level::Intermediate, 4);
        assert_eq!(s.results().len(), 3);
    }

    #[test]
    fn a_refused_resignation_is_not_offered_again_that_game() {
        let ev = PipRace(12.0);
        let seat = EngineSeat::new(&ev, Level::Intermediate);
        let mut s = Session::new(
            Rules::default(),
            3,
            ["a".into(), "b".into()],
            Box::new(Dice(vec![(6, 1)], 9)),
        );
        s.start_game().unwrap();
        let Awaiting::Move { player, .. } = s.awaiting() else {
            panic!("the opening roll is played at once");
        };
        s.resign(player, WinKind::Single).unwrap();
        s.reject().unwrap();
        assert!(s.resignation_refused(player));
        assert!(!s.resignation_refused(player.other()));
        let act = seat.act(&s).unwrap();
        assert!(matches!(act, Act::Play(_)));
    }
}
