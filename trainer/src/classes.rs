//! Classes of positions: the kinds of position a calibration rolls out or
//! an expert round labels (back games, blitzes, holding games), where the
//! net is weakest and self-play seldom goes.

use serde::{Deserialize, Serialize};
use sheshbesh_engine::evaluation::evaluator::{is_back_game, is_blitz};
use sheshbesh_engine::rules::position::Checkers;
use sheshbesh_engine::Position;

/// A kind of position, for spending labels where the net is weakest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum PositionClass {
    /// Every one of the phase.
    All,
    /// Back games ([`is_back_game`]: one side holds two or more points in
    /// the other's home board and trails the race by 30 pips or more), the
    /// positions a back-game net values.
    /// The net misjudges them most (it rates the side facing the back game
    /// about 0.09 too likely to win where its own rollouts agree with
    /// gnubg's), and self-play seldom reaches them.
    BackGame,
    /// Blitzes ([`is_blitz`]: one side on the bar against four or more
    /// closed points of the other's home board, or with two or more on the
    /// bar against three or more), the positions a blitz net values. The
    /// net's gammon chances decide their cube actions (a post-Crawford
    /// blitz cost the most of the held-out cube decisions).
    Blitz,
    /// Holding games: one side holds two or more points in the other's
    /// home board, whatever the race (back games are the deep end). Where
    /// real matches reach them, our checker play loses over twice what
    /// gnubg 0-ply's does, and self-play seldom goes there.
    TwoAnchors,
}

impl PositionClass {
    /// Whether `pos` is of this class.
    pub fn holds(self, pos: &Position) -> bool {
        // Points 19..24 of a side are the other side's home board.
        let anchors = |me: &Checkers| (me.made() & (0x3F << 19)).count_ones();
        match self {
            PositionClass::All => true,
            PositionClass::BackGame => is_back_game(pos),
            PositionClass::Blitz => is_blitz(pos),
            PositionClass::TwoAnchors => {
                pos.is_contact() && (anchors(&pos.me) >= 2 || anchors(&pos.opp) >= 2)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn back_games_are_told_from_either_side() {
        use sheshbesh_engine::formats::position_id::decode;
        // A real 5-point match position: the side not on roll holds the
        // 3 and 5 points of the mover's home board, 102 pips behind.
        let deep = decode("2C0A8Bwz2w0GAA").unwrap();
        assert!(PositionClass::BackGame.holds(&deep));
        assert!(PositionClass::BackGame.holds(&deep.swapped()));
        // The opening has one anchor a side and an even race.
        assert!(!PositionClass::BackGame.holds(&Position::start()));
        assert!(PositionClass::All.holds(&Position::start()));
    }

    #[test]
    fn blitzes_are_told_from_either_side() {
        use sheshbesh_engine::formats::position_id::decode;
        // The held-out post-Crawford blitz: the side on roll has closed
        // four home points and the other has a checker on the bar.
        let blitz = decode("sNsNEETjdkMADA").unwrap();
        assert!(PositionClass::Blitz.holds(&blitz));
        assert!(PositionClass::Blitz.holds(&blitz.swapped()));
        assert!(!PositionClass::Blitz.holds(&Position::start()));
        // The deep back game has no one on the bar.
        let deep = decode("2C0A8Bwz2w0GAA").unwrap();
        assert!(!PositionClass::Blitz.holds(&deep));
    }

    #[test]
    fn holding_games_are_told_from_either_side_whatever_the_race() {
        // The mover holds its 21 and 24 points (the other's 4 and 1
        // points) in an even race: a holding game, not a back game.
        let mut me = [0u8; 24];
        (me[23], me[20], me[12], me[7], me[5]) = (2, 2, 4, 3, 4);
        let mut opp = [0u8; 24];
        (opp[23], opp[12], opp[7], opp[5], opp[4]) = (2, 5, 3, 3, 2);
        let holding = Position::from_sides(&me, 0, &opp, 0).unwrap();
        let (mine, theirs) = holding.pips();
        assert!(mine.abs_diff(theirs) < sheshbesh_engine::evaluation::evaluator::BACK_GAME_DEFICIT);
        assert!(PositionClass::TwoAnchors.holds(&holding));
        assert!(PositionClass::TwoAnchors.holds(&holding.swapped()));
        assert!(!PositionClass::BackGame.holds(&holding));
        // Every back game holds two anchors; the opening holds one a side.
        let deep = sheshbesh_engine::formats::position_id::decode("2C0A8Bwz2w0GAA").unwrap();
        assert!(PositionClass::TwoAnchors.holds(&deep));
        assert!(!PositionClass::TwoAnchors.holds(&Position::start()));
    }
}
