//! Match and cube state: everything about a game besides the board.
//!
//! Players are numbered as gnubg numbers them: [`Player::Zero`] is "O", the
//! top of the board, the first name of a `.mat` score line; [`Player::One`]
//! is "X", the bottom.

use crate::rules::dice::Dice;
use crate::rules::position::Position;

/// One of the two players, in gnubg's numbering.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Player {
    /// gnubg's player 0 ("O", top).
    Zero,
    /// gnubg's player 1 ("X", bottom).
    One,
}

impl Player {
    /// The other player.
    pub fn other(self) -> Player {
        match self {
            Player::Zero => Player::One,
            Player::One => Player::Zero,
        }
    }

    /// 0 or 1.
    pub fn index(self) -> usize {
        match self {
            Player::Zero => 0,
            Player::One => 1,
        }
    }

    /// From 0 or 1 (any non-zero is player 1).
    pub fn from_bit(bit: u32) -> Player {
        if bit == 0 {
            Player::Zero
        } else {
            Player::One
        }
    }
}

/// The doubling cube: value as a power of two and who owns it (the
/// default is the centred 1-cube).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct CubeState {
    /// log2 of the cube value (0 = the centred 1-cube).
    pub log2: u8,
    /// `None` while centred.
    pub owner: Option<Player>,
}

impl CubeState {
    /// log2 of the largest cube: 4096, gnubg's limit. A cube that is
    /// doubled without end (two sides that double and take at every
    /// turn) stops there instead of outgrowing the files' numbers.
    pub const MAX_LOG2: u8 = 12;

    /// The cube's value.
    pub fn value(self) -> u64 {
        1u64 << self.log2
    }

    /// Whether `player` holds the right to double (centred or owned) and
    /// the cube is below [`CubeState::MAX_LOG2`].
    pub fn may_double(self, player: Player) -> bool {
        self.log2 < Self::MAX_LOG2 && self.owner.is_none_or(|o| o == player)
    }

    /// The cube after `doubler`'s double is taken: value doubles and the
    /// taker owns it.
    pub fn after_take(self, doubler: Player) -> CubeState {
        CubeState {
            log2: self.log2 + 1,
            owner: Some(doubler.other()),
        }
    }

    /// The cube after a beaver by `beaverer` (who took): it doubles again and
    /// the beaverer keeps it.
    pub fn after_beaver(self, beaverer: Player) -> CubeState {
        CubeState {
            log2: self.log2 + 1,
            owner: Some(beaverer),
        }
    }
}

/// Where a game stands, as gnubg's Match ID records it.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub enum GameState {
    /// No game started.
    NoGame,
    /// In play.
    #[default]
    Playing,
    /// Finished by bearing off.
    Over,
    /// Finished by a resignation.
    Resigned,
    /// Finished by a dropped double.
    Dropped,
}

impl GameState {
    pub(crate) fn code(self) -> u32 {
        match self {
            GameState::NoGame => 0,
            GameState::Playing => 1,
            GameState::Over => 2,
            GameState::Resigned => 3,
            GameState::Dropped => 4,
        }
    }

    pub(crate) fn from_code(c: u32) -> Option<GameState> {
        Some(match c {
            0 => GameState::NoGame,
            1 => GameState::Playing,
            2 => GameState::Over,
            3 => GameState::Resigned,
            4 => GameState::Dropped,
            _ => return None,
        })
    }
}

/// Everything gnubg's Match ID and XG's XGID say besides the board.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct MatchState {
    /// Match length in points; 0 for a money session.
    pub length: u32,
    /// Scores of player 0 and player 1.
    pub score: [u32; 2],
    /// Whether this game is the Crawford game (no cube).
    pub crawford: bool,
    /// The cube.
    pub cube: CubeState,
    /// The player on roll (gnubg's `fMove`); the board is seen from them.
    pub on_roll: Player,
    /// The player who must act now (differs from `on_roll` while a double
    /// or resignation is pending).
    pub turn: Player,
    /// A double is pending.
    pub doubled: bool,
    /// Resignation on offer: 0 none, 1 single, 2 gammon, 3 backgammon.
    pub resignation: u8,
    /// The dice rolled, if any.
    pub dice: Option<Dice>,
    /// Game state.
    pub game_state: GameState,
    /// Jacoby rule in force (money only).
    pub jacoby: bool,
    /// Beavers allowed (money only; not in the Match ID).
    pub beavers: bool,
}

impl Default for MatchState {
    /// A money session, centred cube, player 1 on roll, no dice, Jacoby on
    /// (gnubg's defaults for a new session).
    fn default() -> Self {
        MatchState {
            length: 0,
            score: [0, 0],
            crawford: false,
            cube: CubeState::default(),
            on_roll: Player::One,
            turn: Player::One,
            doubled: false,
            resignation: 0,
            dice: None,
            game_state: GameState::Playing,
            jacoby: true,
            beavers: false,
        }
    }
}

impl MatchState {
    /// A new match to `length` points at 0-0 (Jacoby never applies).
    pub fn new_match(length: u32) -> MatchState {
        MatchState {
            length,
            jacoby: false,
            ..MatchState::default()
        }
    }

    /// Whether this is money play.
    pub fn is_money(&self) -> bool {
        self.length == 0
    }

    /// Points each player still needs (match play).
    pub fn away(&self) -> [u32; 2] {
        [
            self.length.saturating_sub(self.score[0]),
            self.length.saturating_sub(self.score[1]),
        ]
    }

    /// Whether the game is after the Crawford game: someone is 1-away and
    /// this is not the Crawford game.
    pub fn is_post_crawford(&self) -> bool {
        !self.is_money() && !self.crawford && self.away().contains(&1)
    }

    /// What makes this state one no game in play can reach, if anything:
    /// a match already won, a Crawford game unless exactly one player is
    /// one point away, a cube turned or offered in the Crawford game, a
    /// double offered after the dice were rolled or by a player who does
    /// not hold the cube.
    pub fn impossibility(&self) -> Option<&'static str> {
        let away = self.away();
        if self.length > 0 && self.score.iter().any(|&s| s >= self.length) {
            return Some("the match is over: a player has reached the match length");
        }
        if self.crawford && !(self.length > 0 && (away[0] == 1) != (away[1] == 1)) {
            return Some("a Crawford game needs exactly one player one point away");
        }
        if self.crawford && (self.cube.value() > 1 || self.cube.owner.is_some() || self.doubled) {
            return Some("no cube is turned or offered in the Crawford game");
        }
        if self.doubled && self.dice.is_some() {
            return Some("a double is offered before the dice are rolled, not after");
        }
        if self.doubled && self.cube.owner.is_some_and(|o| o != self.on_roll) {
            return Some("a double offered by the player who does not hold the cube");
        }
        None
    }

    /// [`MatchState::impossibility`], or a board no game in play has: a
    /// side that has borne off every checker has already won.
    pub fn impossibility_on(&self, position: &Position) -> Option<&'static str> {
        if position.me.off() == 15 || position.opp.off() == 15 {
            return Some("a side has borne off every checker: the game is over");
        }
        self.impossibility()
    }

    /// Whether a double by `player` can change anything: in match play the
    /// cube is dead for a player whose current stake already wins the match
    /// (as many points away as the cube's value or fewer), as gnubg's
    /// analysis treats it. Always live in money play.
    pub fn cube_is_live_for(&self, player: Player) -> bool {
        self.is_money() || u64::from(self.away()[player.index()]) > self.cube.value()
    }

    /// Why `player` has no cube to turn in this game, if they have none:
    /// the Crawford game, a cube the other side owns, or a cube at its
    /// limit. (Whether it is the moment to double is the turn's business.)
    pub fn why_no_cube(&self, player: Player) -> Option<&'static str> {
        if self.crawford {
            Some("the Crawford game has no cube")
        } else if self.cube.owner.is_some_and(|o| o != player) {
            Some("the opponent owns the cube")
        } else if !self.cube.may_double(player) {
            Some("the cube is at its limit, 4096")
        } else {
            None
        }
    }

    /// Whether `player` may offer a double now (before rolling): the cube
    /// is available to them, it is not the Crawford game, and in match play
    /// doubling can still matter (a player needing one point gains nothing,
    /// but gnubg allows the double, so it is allowed here too).
    pub fn may_double(&self, player: Player) -> bool {
        !self.crawford
            && self.dice.is_none()
            && !self.doubled
            && self.cube.may_double(player)
            && self.game_state == GameState::Playing
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_side_without_a_cube_is_told_why() {
        let mut s = MatchState::new_match(5);
        assert_eq!(s.why_no_cube(Player::Zero), None);
        s.cube = s.cube.after_take(Player::Zero);
        assert_eq!(s.why_no_cube(Player::One), None, "the taker owns it");
        assert_eq!(
            s.why_no_cube(Player::Zero),
            Some("the opponent owns the cube")
        );
        s.cube.log2 = CubeState::MAX_LOG2;
        assert_eq!(
            s.why_no_cube(Player::One),
            Some("the cube is at its limit, 4096")
        );
        let mut c = MatchState::new_match(5);
        c.crawford = true;
        assert_eq!(
            c.why_no_cube(Player::One),
            Some("the Crawford game has no cube")
        );
    }

    #[test]
    fn the_cube_stops_at_4096() {
        let mut c = CubeState::default();
        let mut doubler = Player::Zero;
        while c.may_double(doubler) {
            c = c.after_take(doubler);
            doubler = doubler.other();
        }
        assert_eq!(c.value(), 4096);
    }

    #[test]
    fn the_cube_is_dead_for_a_player_whose_stake_wins_the_match() {
        let mut s = MatchState::new_match(5);
        s.game_state = GameState::Playing;
        s.score = [4, 4];
        // Double match point: both 1-away with the cube at 1.
        assert!(!s.cube_is_live_for(Player::Zero));
        assert!(
            s.may_double(Player::Zero),
            "the rules still let them double"
        );
        s.score = [3, 1];
        assert!(s.cube_is_live_for(Player::Zero) && s.cube_is_live_for(Player::One));
        // 2-away owning a 2-cube: winning the stake wins the match.
        s.cube = CubeState {
            log2: 1,
            owner: Some(Player::Zero),
        };
        assert!(!s.cube_is_live_for(Player::Zero));
        assert!(MatchState::default().cube_is_live_for(Player::One), "money");
    }

    #[test]
    fn a_crawford_game_needs_exactly_one_player_one_away() {
        let mut s = MatchState::new_match(5);
        s.crawford = true;
        assert!(s.impossibility().is_some(), "0-0");
        s.score = [4, 4];
        assert!(s.impossibility().is_some(), "both 1-away");
        s.score = [4, 2];
        assert_eq!(s.impossibility(), None);
        // No cube in it.
        s.cube.log2 = 1;
        assert!(s.impossibility().is_some(), "a 2-cube");
        s.cube.log2 = 0;
        s.doubled = true;
        assert!(s.impossibility().is_some(), "a double");
    }

    #[test]
    fn states_no_game_in_play_reaches_are_named() {
        let mut s = MatchState::new_match(5);
        s.score = [5, 0];
        assert!(s.impossibility().unwrap().contains("over"));
        s.score = [3, 0];
        assert_eq!(s.impossibility(), None);
        // A double after the roll, and one by the player without the cube.
        s.doubled = true;
        s.dice = Dice::new(3, 1);
        assert!(s.impossibility().unwrap().contains("after"));
        s.dice = None;
        assert_eq!(s.impossibility(), None);
        s.cube = CubeState {
            log2: 1,
            owner: Some(s.on_roll.other()),
        };
        assert!(s.impossibility().unwrap().contains("does not hold"));
        s.cube.owner = Some(s.on_roll);
        assert_eq!(s.impossibility(), None);
    }
}
