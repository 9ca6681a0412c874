//! Chouette: three or more players, one "in the box" against a team led by
//! a captain, as `docs/RULES.md` describes. This module holds the seats,
//! the stakes of one game (the team shares one cube; when the box doubles,
//! each member takes or drops for itself) and the settlement and rotation
//! after each game.
//!
//! Rotation: when the team loses, the box stays, the captain goes to the
//! end of the team line and the next member captains; when the team wins,
//! the captain takes the box, the old box goes to the end of the line and
//! the next member captains. If the captain drops a double, the first
//! member still playing moves the team's checkers for the rest of the game,
//! but the rotation follows the board's result as for the captain.
//!
//! [`play_game`] plays one game on a [`Session`] (the box as player 0, the
//! acting captain as player 1): the engine decides for its seats, and the
//! people's seats answer through [`Members`], so a front end only asks and
//! shows.

use crate::cube::met::MetError;
use crate::evaluation::evaluator::Evaluator;
use crate::play::agent::{Agent, CubeReply};
use crate::play::session::{Awaiting, PlayError, Session};
use crate::rules::dice::{Dice, Roller};
use crate::rules::match_state::Player;
use crate::rules::movegen::{Candidate, MoveList};
use crate::rules::scoring::Rules;

/// A seat's index among the players.
pub type Seat = usize;

/// The seats and the running totals of a chouette session.
#[derive(Clone, Debug, PartialEq)]
pub struct Chouette {
    names: Vec<String>,
    box_seat: Seat,
    /// The team in order: the captain first.
    team: Vec<Seat>,
    totals: Vec<i64>,
}

/// How a team member stands in the current game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemberState {
    /// Still playing at the game's stake.
    Playing,
    /// Dropped a double from the box, paying this much.
    Dropped(u64),
}

/// One game of a chouette: the team's shared cube and each member's state.
#[derive(Clone, Debug, PartialEq)]
pub struct ChouetteGame {
    /// Members in team order with their states.
    pub members: Vec<(Seat, MemberState)>,
    /// The stake of the members still playing (the cube's value).
    pub stake: u64,
    /// Who owns the cube: `None` centred, `Some(true)` the team, `Some(false)` the box.
    pub team_owns_cube: Option<bool>,
    /// Set when the game ended by a drop.
    pub ended: Option<GameEnd>,
}

/// How a chouette game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameEnd {
    /// The box dropped the team's double: the team wins the stake.
    BoxDropped,
    /// Every member dropped the box's double.
    TeamDropped,
    /// Played out (or resigned): who won on the board and the multiplier
    /// (1 single, 2 gammon, 3 backgammon, after the rules' options).
    Board {
        /// Whether the team won.
        team_won: bool,
        /// Points per unit of stake.
        multiplier: u64,
    },
}

/// What each player won (negative: paid) in one game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settlement {
    /// Per seat, summing to zero.
    pub amounts: Vec<i64>,
    /// Whether the team won the game (for the rotation).
    pub team_won: bool,
}

/// Why a chouette action is refused.
#[derive(Debug, PartialEq, thiserror::Error)]
pub enum ChouetteError {
    /// Fewer than three players.
    #[error("a chouette needs 3 or more players, got {0}")]
    TooFew(usize),
    /// The action does not fit the game's state.
    #[error("{0}")]
    NotNow(&'static str),
    /// The session refused an action.
    #[error("{0}")]
    Play(#[from] PlayError),
    /// The score is beyond the match equity table.
    #[error("match equity table: {0}")]
    Met(#[from] MetError),
}

impl Chouette {
    /// Seats the players by the opening ranking: each throws one die
    /// (`die` gives the throws), highest first, ties among themselves
    /// throwing again. The highest is in the box, the next captain, the
    /// rest follow in ranking order. Returns the chouette and every throw
    /// made as (seat, die).
    pub fn seat(
        names: Vec<String>,
        mut die: impl FnMut() -> u8,
    ) -> Result<(Chouette, Vec<(Seat, u8)>), ChouetteError> {
        let n = names.len();
        if n < 3 {
            return Err(ChouetteError::TooFew(n));
        }
        let mut log = Vec::new();
        let order = rank(&(0..n).collect::<Vec<_>>(), &mut die, &mut log);
        Ok((
            Chouette {
                names,
                box_seat: order[0],
                team: order[1..].to_vec(),
                totals: vec![0; n],
            },
            log,
        ))
    }

    /// [`Chouette::seat`] with the dice of `roller`: one die each, two
    /// dice per throw of the stream, used in order.
    pub fn seat_by(
        names: Vec<String>,
        roller: &mut dyn Roller,
    ) -> Result<(Chouette, Vec<(Seat, u8)>), ChouetteError> {
        let mut pending: Vec<u8> = Vec::new();
        Chouette::seat(names, || {
            if pending.is_empty() {
                let (a, b) = roller.throw();
                pending = vec![b, a];
            }
            pending.pop().expect("two dice")
        })
    }

    /// The players' names by seat.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// Who is in the box.
    pub fn box_seat(&self) -> Seat {
        self.box_seat
    }

    /// The team in order, captain first.
    pub fn team(&self) -> &[Seat] {
        &self.team
    }

    /// The captain.
    pub fn captain(&self) -> Seat {
        self.team[0]
    }

    /// Session totals by seat.
    pub fn totals(&self) -> &[i64] {
        &self.totals
    }

    /// A new game: every member plays at stake 1 (or the cube after
    /// automatic doubles), cube centred.
    pub fn new_game(&self, stake: u64) -> ChouetteGame {
        ChouetteGame {
            members: self
                .team
                .iter()
                .map(|&s| (s, MemberState::Playing))
                .collect(),
            stake,
            team_owns_cube: None,
            ended: None,
        }
    }

    /// Settles a finished game, adds it to the totals and rotates the seats.
    pub fn settle(&mut self, game: &ChouetteGame) -> Result<Settlement, ChouetteError> {
        let end = game
            .ended
            .ok_or(ChouetteError::NotNow("the game is not over"))?;
        let mut amounts = vec![0i64; self.names.len()];
        let (team_won, per_member) = match end {
            GameEnd::BoxDropped => (true, game.stake as i64),
            GameEnd::TeamDropped => (false, 0),
            GameEnd::Board {
                team_won,
                multiplier,
            } => {
                let v = (game.stake * multiplier) as i64;
                (team_won, if team_won { v } else { -v })
            }
        };
        for &(seat, state) in &game.members {
            let a = match state {
                MemberState::Dropped(paid) => -(paid as i64),
                MemberState::Playing => per_member,
            };
            amounts[seat] += a;
            amounts[self.box_seat] -= a;
        }
        for (t, a) in self.totals.iter_mut().zip(&amounts) {
            *t += a;
        }
        let captain = self.team.remove(0);
        if team_won {
            let old_box = self.box_seat;
            self.box_seat = captain;
            self.team.push(old_box);
        } else {
            self.team.push(captain);
        }
        Ok(Settlement { amounts, team_won })
    }
}

/// Orders `seats` by one die each, highest first; ties re-throw among
/// themselves.
fn rank(seats: &[Seat], die: &mut impl FnMut() -> u8, log: &mut Vec<(Seat, u8)>) -> Vec<Seat> {
    if seats.len() <= 1 {
        return seats.to_vec();
    }
    let throws: Vec<(Seat, u8)> = seats.iter().map(|&s| (s, die())).collect();
    log.extend(&throws);
    let mut out = Vec::new();
    for face in (1..=6).rev() {
        let tied: Vec<Seat> = throws.iter().filter(|t| t.1 == face).map(|t| t.0).collect();
        if tied.len() == seats.len() && seats.len() > 1 {
            // Everyone tied: throw again.
            return rank(seats, die, log);
        }
        out.extend(rank(&tied, die, log));
    }
    out
}

impl ChouetteGame {
    /// Members still playing, in team order.
    pub fn playing(&self) -> Vec<Seat> {
        self.members
            .iter()
            .filter(|m| m.1 == MemberState::Playing)
            .map(|m| m.0)
            .collect()
    }

    /// Who moves the team's checkers: the first member still playing.
    pub fn acting_captain(&self) -> Option<Seat> {
        self.playing().first().copied()
    }

    /// The box doubles; `takes[i]` is the answer of the i-th member still
    /// playing. Droppers pay the current stake and leave the game; takers
    /// play on at twice the stake and the team owns the cube. If every
    /// member drops, the game ends.
    pub fn box_doubles(&mut self, takes: &[bool]) -> Result<(), ChouetteError> {
        if self.ended.is_some() || self.team_owns_cube == Some(true) {
            return Err(ChouetteError::NotNow("the box may not double now"));
        }
        let playing = self.playing();
        if takes.len() != playing.len() {
            return Err(ChouetteError::NotNow(
                "every member still playing must answer",
            ));
        }
        let stake = self.stake;
        for (seat, &take) in playing.iter().zip(takes) {
            if !take {
                if let Some(m) = self.members.iter_mut().find(|m| m.0 == *seat) {
                    m.1 = MemberState::Dropped(stake);
                }
            }
        }
        if self.playing().is_empty() {
            self.ended = Some(GameEnd::TeamDropped);
        } else {
            self.stake *= 2;
            self.team_owns_cube = Some(true);
        }
        Ok(())
    }

    /// The team doubles (the caller has everyone's consent); the box takes
    /// (stake doubles, the box owns the cube) or drops (the game ends and
    /// the box pays every member still playing the current stake).
    pub fn team_doubles(&mut self, box_takes: bool) -> Result<(), ChouetteError> {
        if self.ended.is_some() || self.team_owns_cube == Some(false) {
            return Err(ChouetteError::NotNow("the team may not double now"));
        }
        if box_takes {
            self.stake *= 2;
            self.team_owns_cube = Some(false);
        } else {
            self.ended = Some(GameEnd::BoxDropped);
        }
        Ok(())
    }

    /// The game is over on the board.
    pub fn finish(&mut self, team_won: bool, multiplier: u64) {
        self.ended = Some(GameEnd::Board {
            team_won,
            multiplier,
        });
    }
}

/// A chouette's rules from the session's options: no beavers and no
/// Crawford rule (a chouette is money play between one and many).
pub fn rules(
    jacoby: bool,
    automatic_doubles: u8,
    backgammon_counts_two: bool,
    israeli_opening: bool,
) -> Rules {
    Rules {
        jacoby,
        beavers: false,
        automatic_doubles,
        backgammon_counts_two,
        israeli_opening,
        crawford: false,
    }
}

/// What happened at the table, for a front end to show.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TableEvent {
    /// The box doubles; each member answers for itself.
    BoxDoubles {
        /// The box.
        seat: Seat,
    },
    /// A member took or dropped the box's double.
    MemberAnswers {
        /// The member.
        seat: Seat,
        /// Whether it took.
        take: bool,
    },
    /// A member agreed or refused that the team double the box.
    MemberAgrees {
        /// The member.
        seat: Seat,
        /// Whether it agreed.
        agree: bool,
    },
    /// Every member agreed: the team doubles the box.
    TeamDoubles,
    /// The box took or dropped the team's double.
    BoxAnswers {
        /// The box.
        seat: Seat,
        /// Whether it took.
        take: bool,
    },
    /// A seat played its roll.
    Played {
        /// Who moved the checkers.
        seat: Seat,
        /// The roll.
        dice: Dice,
        /// The play.
        play: Candidate,
    },
}

/// The people at the table: their answers when the game asks a seat the
/// engine does not hold, and the events of the game. `None` from a
/// question means the person quit.
pub trait Members {
    /// Whether `seat`, on roll for its side (player `player` of the
    /// session), doubles.
    fn doubles(&mut self, seat: Seat, player: Player, session: &Session) -> Option<bool>;
    /// Whether `seat` takes a double; `advice` is the engine's answer when
    /// the front end should show it (the members' answers to the box).
    fn takes(&mut self, seat: Seat, advice: Option<CubeReply>) -> Option<bool>;
    /// Whether `seat` agrees that the team doubles the box.
    fn agrees(&mut self, seat: Seat) -> Option<bool>;
    /// `seat`'s play of `dice` for player `player` of the session.
    fn plays(
        &mut self,
        seat: Seat,
        player: Player,
        session: &Session,
        dice: Dice,
    ) -> Option<Candidate>;
    /// Something happened.
    fn event(&mut self, event: TableEvent);
}

/// Plays one chouette game on `session` (started: the box is player 0,
/// the acting captain player 1) to its end, keeping `game`'s stakes: the
/// engine at `agent`'s depth decides for the seats where `engine[seat]`,
/// `members` for the rest. `Ok(false)` when a person quit (the game is
/// then not settled).
pub fn play_game<E: Evaluator + ?Sized>(
    agent: &Agent<'_, E>,
    engine: &[bool],
    box_seat: Seat,
    session: &mut Session,
    game: &mut ChouetteGame,
    members: &mut dyn Members,
) -> Result<bool, ChouetteError> {
    loop {
        if game.ended.is_some() {
            return Ok(true);
        }
        // The seat that moves for each side now.
        let team_seat = game
            .acting_captain()
            .ok_or(ChouetteError::NotNow("nobody plays"))?;
        let seat_of = |p: Player| {
            if p == Player::Zero {
                box_seat
            } else {
                team_seat
            }
        };
        match session.awaiting() {
            Awaiting::Roll { player, may_double } => {
                let pos = *session.position();
                let state = *session.state();
                let seat = seat_of(player);
                let wants = if !may_double {
                    false
                } else if engine[seat] {
                    agent.should_double(&pos, &state)?
                } else {
                    let Some(b) = members.doubles(seat, player, session) else {
                        return Ok(false);
                    };
                    b
                };
                if wants && player == Player::Zero {
                    // The box doubles: every member answers for itself.
                    members.event(TableEvent::BoxDoubles { seat: box_seat });
                    session.double()?;
                    let advice = agent
                        .answer_double(&session.decision_position(), &session.decision_state())?;
                    let mut takes = Vec::new();
                    for m in game.playing() {
                        let take = if engine[m] {
                            advice != CubeReply::Drop
                        } else {
                            match members.takes(m, Some(advice)) {
                                None => return Ok(false),
                                Some(b) => b,
                            }
                        };
                        members.event(TableEvent::MemberAnswers { seat: m, take });
                        takes.push(take);
                    }
                    game.box_doubles(&takes)?;
                    if game.ended.is_some() {
                        // Every member dropped: the game's record ends
                        // in the drop, as at the table.
                        session.drop_double()?;
                        return Ok(true);
                    }
                    session.take()?;
                    continue;
                }
                if wants && player == Player::One {
                    // The team doubles only unanimously.
                    let mut all = true;
                    for m in game.playing() {
                        if m == team_seat {
                            continue;
                        }
                        let agree = if engine[m] {
                            agent.should_double(&pos, &state)?
                        } else {
                            match members.agrees(m) {
                                None => return Ok(false),
                                Some(b) => b,
                            }
                        };
                        members.event(TableEvent::MemberAgrees { seat: m, agree });
                        all &= agree;
                    }
                    if all {
                        members.event(TableEvent::TeamDoubles);
                        session.double()?;
                        let reply = agent.answer_double(
                            &session.decision_position(),
                            &session.decision_state(),
                        )?;
                        let take = if engine[box_seat] {
                            reply != CubeReply::Drop
                        } else {
                            match members.takes(box_seat, None) {
                                None => return Ok(false),
                                Some(b) => b,
                            }
                        };
                        members.event(TableEvent::BoxAnswers {
                            seat: box_seat,
                            take,
                        });
                        game.team_doubles(take)?;
                        if !take {
                            session.drop_double()?;
                            return Ok(true);
                        }
                        session.take()?;
                        continue;
                    }
                }
                session.roll()?;
            }
            Awaiting::Move { player, dice } => {
                let seat = seat_of(player);
                let legal = session.legal_plays();
                let play = if legal.len() == 1 || engine[seat] {
                    let mut list = MoveList::new();
                    agent
                        .best_play(session.position(), session.state(), dice, &mut list)?
                        .1
                } else {
                    match members.plays(seat, player, session, dice) {
                        None => return Ok(false),
                        Some(c) => c,
                    }
                };
                members.event(TableEvent::Played { seat, dice, play });
                if let Some(r) = session.play(&play)? {
                    // The session's cube always equals the game's stake.
                    game.finish(
                        r.winner == Player::One,
                        (r.points / game.stake.max(1)).max(1),
                    );
                    return Ok(true);
                }
            }
            _ => {
                return Err(ChouetteError::NotNow(
                    "a chouette game awaits a roll or a move",
                ))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names() -> Vec<String> {
        ["ann", "ben", "cy", "dov"].map(String::from).to_vec()
    }

    #[test]
    fn ranking_seats_box_captain_and_team_with_ties_rethrown() {
        // ann 4, ben 6, cy 4, dov 2; then ann and cy tie-break: 3, 5.
        let mut dice = vec![4, 6, 4, 2, 3, 5].into_iter();
        let (c, log) = Chouette::seat(names(), || dice.next().unwrap()).unwrap();
        assert_eq!(c.box_seat(), 1);
        assert_eq!(c.team(), &[2, 0, 3]);
        assert_eq!(c.captain(), 2);
        assert_eq!(log.len(), 6);
        assert!(Chouette::seat(names()[..2].to_vec(), || 1).is_err());
    }

    /// The two games worked by hand in the module's terms.
    #[test]
    fn hand_worked_session() {
        // ann 6, ben 5, cy 3, dov 1: box ann, captain ben, team ben cy dov.
        let mut dice = vec![6, 5, 3, 1].into_iter();
        let (mut c, _) = Chouette::seat(names(), || dice.next().unwrap()).unwrap();
        assert_eq!((c.box_seat(), c.team()), (0, &[1, 2, 3][..]));

        // Game 1: the box doubles; ben takes, cy drops (pays 1), dov takes.
        // The box then wins a gammon: ben and dov pay 2 x 2 each.
        let mut g = c.new_game(1);
        g.box_doubles(&[true, false, true]).unwrap();
        assert_eq!(g.stake, 2);
        assert_eq!(g.playing(), vec![1, 3]);
        assert!(
            g.box_doubles(&[true, true]).is_err(),
            "the team owns the cube"
        );
        g.finish(false, 2);
        let s = c.settle(&g).unwrap();
        assert_eq!(s.amounts, vec![9, -4, -1, -4]);
        assert!(!s.team_won);
        // Team lost: ann stays in the box, ben goes to the end.
        assert_eq!((c.box_seat(), c.team()), (0, &[2, 3, 1][..]));

        // Game 2: the team doubles, the box takes; the team wins a single.
        let mut g = c.new_game(1);
        g.team_doubles(true).unwrap();
        assert!(g.team_doubles(true).is_err(), "the box owns the cube");
        g.finish(true, 1);
        let s = c.settle(&g).unwrap();
        assert_eq!(s.amounts, vec![-6, 2, 2, 2]);
        // Team won: captain cy takes the box, ann goes to the end.
        assert_eq!((c.box_seat(), c.team()), (2, &[3, 1, 0][..]));
        assert_eq!(c.totals(), &[3, -2, 1, -2]);

        // Game 3: the team doubles and the box drops: each member wins 1.
        let mut g = c.new_game(1);
        g.team_doubles(false).unwrap();
        let s = c.settle(&g).unwrap();
        assert_eq!(s.amounts, vec![1, 1, -3, 1]);
        assert_eq!((c.box_seat(), c.team()), (3, &[1, 0, 2][..]));

        // Game 4: everyone drops the box's double: the box wins 1 from each.
        let mut g = c.new_game(1);
        g.box_doubles(&[false, false, false]).unwrap();
        assert_eq!(g.ended, Some(GameEnd::TeamDropped));
        let s = c.settle(&g).unwrap();
        assert_eq!(s.amounts, vec![-1, -1, -1, 3]);
        assert_eq!(c.totals().iter().sum::<i64>(), 0);
    }

    #[test]
    fn the_first_member_still_playing_moves_when_the_captain_drops() {
        let mut dice = vec![6, 5, 3, 1].into_iter();
        let (c, _) = Chouette::seat(names(), || dice.next().unwrap()).unwrap();
        let mut g = c.new_game(1);
        assert_eq!(g.acting_captain(), Some(1));
        g.box_doubles(&[false, true, true]).unwrap();
        assert_eq!(g.acting_captain(), Some(2));
    }

    /// People who always answer the same, playing pubeval's choice, and
    /// keep what they saw.
    struct Scripted {
        doubles: bool,
        takes: bool,
        agrees: bool,
        asked: Vec<&'static str>,
        events: Vec<TableEvent>,
    }

    impl Members for Scripted {
        fn doubles(&mut self, _: Seat, _: Player, _: &Session) -> Option<bool> {
            self.asked.push("double");
            Some(self.doubles)
        }

        fn takes(&mut self, _: Seat, advice: Option<CubeReply>) -> Option<bool> {
            self.asked.push(if advice.is_some() {
                "take (advised)"
            } else {
                "take"
            });
            Some(self.takes)
        }

        fn agrees(&mut self, _: Seat) -> Option<bool> {
            self.asked.push("agree");
            Some(self.agrees)
        }

        fn plays(&mut self, _: Seat, _: Player, session: &Session, _: Dice) -> Option<Candidate> {
            self.asked.push("play");
            let legal = session.legal_plays();
            Some(legal[crate::evaluation::pubeval::choose(session.position(), &legal)])
        }

        fn event(&mut self, event: TableEvent) {
            self.events.push(event);
        }
    }

    /// Dice from a seeded generator.
    struct Lcg(u64);

    impl Roller for Lcg {
        fn throw(&mut self) -> (u8, u8) {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (
                ((self.0 >> 33) % 6 + 1) as u8,
                ((self.0 >> 45) % 6 + 1) as u8,
            )
        }
    }

    /// Plays chouette games with people in `people` seats and the shipped
    /// net in the rest; returns the table, the settlements and the people.
    fn session(
        people: &[bool],
        games: usize,
        answers: (bool, bool, bool),
    ) -> (Chouette, Vec<Settlement>, Scripted) {
        let bytes = include_bytes!("../../../weights/sheshbesh.weights");
        let set = crate::evaluation::weights::decode(bytes).unwrap();
        let ev = crate::evaluation::evaluator::NetEvaluator::from_weights(&set).unwrap();
        let agent = Agent::new(&ev, 0);
        let mut roller = Lcg(11);
        let (mut table, _) = Chouette::seat_by(names(), &mut roller).unwrap();
        let engine: Vec<bool> = people.iter().map(|p| !p).collect();
        let mut members = Scripted {
            doubles: answers.0,
            takes: answers.1,
            agrees: answers.2,
            asked: Vec::new(),
            events: Vec::new(),
        };
        let mut settlements = Vec::new();
        for g in 0..games {
            let (box_seat, captain) = (table.box_seat(), table.captain());
            let names = [names()[box_seat].clone(), names()[captain].clone()];
            let mut s = Session::new(
                rules(false, 0, false, false),
                0,
                names,
                Box::new(Lcg(100 + g as u64)),
            );
            let o = s.start_game().unwrap();
            let mut game = table.new_game(o.cube.value());
            assert!(play_game(&agent, &engine, box_seat, &mut s, &mut game, &mut members).unwrap());
            // The game's record ends where the table's game did: a double
            // dropped is written as a drop, and the file tells a story the
            // rules allow.
            assert_eq!(s.awaiting(), Awaiting::BetweenGames, "game {g}");
            let text = s.mat_text();
            if let Err(e) = crate::formats::story::read(&text, false) {
                panic!("{e:?}\n{text}");
            }
            let settlement = table.settle(&game).unwrap();
            assert_eq!(
                settlement.amounts.iter().sum::<i64>(),
                0,
                "a settlement sums to zero"
            );
            settlements.push(settlement);
        }
        (table, settlements, members)
    }

    #[test]
    fn whole_games_with_the_engine_and_scripted_people_settle_and_rotate() {
        // Everyone a person who doubles, takes and agrees at every chance:
        // the cube turns, every double is answered by each member.
        let (table, settlements, people) = session(&[true; 4], 2, (true, true, true));
        assert!(people.asked.contains(&"double") && people.asked.contains(&"play"));
        let box_doubles = people
            .events
            .iter()
            .filter(|e| matches!(e, TableEvent::BoxDoubles { .. }))
            .count();
        let answers = people
            .events
            .iter()
            .filter(|e| matches!(e, TableEvent::MemberAnswers { .. }))
            .count();
        // Three members answer each of the box's doubles while all play.
        assert!(box_doubles > 0 && answers >= 3 * box_doubles.min(1));
        assert_eq!(
            people
                .asked
                .iter()
                .filter(|a| **a == "take (advised)")
                .count(),
            answers,
            "each member's answer to the box came with the engine's advice"
        );
        assert_eq!(table.totals().iter().sum::<i64>(), 0);
        assert_eq!(settlements.len(), 2);
        // The engine alone in every seat never asks anyone.
        let (_, _, nobody) = session(&[false; 4], 2, (false, false, false));
        assert!(nobody.asked.is_empty());
        assert!(nobody
            .events
            .iter()
            .any(|e| matches!(e, TableEvent::Played { .. })));
        // People who double at once and never take: every game ends in a
        // dropped double, which the record writes.
        let (_, _, droppers) = session(&[true; 4], 2, (true, false, true));
        assert!(droppers.events.iter().any(|e| matches!(
            e,
            TableEvent::MemberAnswers { take: false, .. }
        ) || matches!(
            e,
            TableEvent::BoxAnswers { take: false, .. }
        )));
        // People who never agree: the team never doubles the box.
        let (_, _, refusers) = session(&[false, true, true, true], 1, (true, true, false));
        assert!(!refusers.events.contains(&TableEvent::TeamDoubles));
    }
}
