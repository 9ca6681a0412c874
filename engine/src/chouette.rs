//! Chouette: three or more players, one "in the box" against a team led by
//! a captain, as `shared/RULES.md` describes. This module holds the seats,
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
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ChouetteError {
    /// Fewer than three players.
    #[error("a chouette needs 3 or more players, got {0}")]
    TooFew(usize),
    /// The action does not fit the game's state.
    #[error("{0}")]
    NotNow(&'static str),
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
}
