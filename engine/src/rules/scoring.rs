//! Rule options and game scoring: single, gammon (mars), backgammon
//! (Turkish mars), the cube, Jacoby, beavers, automatic doubles,
//! backgammon-counts-two, the Israeli opening, Crawford.

use crate::rules::dice::Dice;
use crate::rules::match_state::{CubeState, MatchState, Player};
use crate::rules::position::{Checkers, Position};

/// How a game was won, before the cube.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum WinKind {
    /// The loser bore off at least one checker.
    Single,
    /// Gammon ("mars"): the loser bore off none.
    Gammon,
    /// Backgammon ("Turkish mars"): a gammon with a loser's checker on the
    /// bar or in the winner's home board.
    Backgammon,
}

impl WinKind {
    /// The kind worth `points` before the cube (1 or less: single, 2:
    /// gammon, 3 or more: backgammon), as a resignation offers it.
    pub fn of_points(points: u8) -> WinKind {
        match points {
            0 | 1 => WinKind::Single,
            2 => WinKind::Gammon,
            _ => WinKind::Backgammon,
        }
    }

    /// 1, 2 or 3 (2 for a backgammon when it counts as a gammon).
    pub fn multiplier(self, rules: &Rules) -> u64 {
        match self {
            WinKind::Single => 1,
            WinKind::Gammon => 2,
            WinKind::Backgammon if rules.backgammon_counts_two => 2,
            WinKind::Backgammon => 3,
        }
    }

    /// The multiplier actually scored: under Jacoby an unturned cube makes
    /// every win single.
    pub fn scored(self, rules: &Rules, cube_turned: bool) -> u64 {
        if rules.jacoby && !cube_turned {
            1
        } else {
            self.multiplier(rules)
        }
    }
}

/// The rule options of a session.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Rules {
    /// Gammons count single unless the cube was turned (money only).
    pub jacoby: bool,
    /// The taker may redouble at once, keeping the cube (money only).
    pub beavers: bool,
    /// Ties in the opening roll double the centred cube, at most this many
    /// times per game (money only; 0 = off).
    pub automatic_doubles: u8,
    /// A backgammon scores like a gammon.
    pub backgammon_counts_two: bool,
    /// The starter re-rolls both dice for the first move (doubles possible).
    pub israeli_opening: bool,
    /// The Crawford rule (match only).
    pub crawford: bool,
}

impl Default for Rules {
    /// International rules: no options, Crawford on.
    fn default() -> Self {
        Rules {
            jacoby: false,
            beavers: false,
            automatic_doubles: 0,
            backgammon_counts_two: false,
            israeli_opening: false,
            crawford: true,
        }
    }
}

impl Rules {
    /// The options that apply in this match state: Jacoby, beavers and
    /// automatic doubles never apply in match play.
    pub fn effective(&self, state: &MatchState) -> Rules {
        if state.is_money() {
            *self
        } else {
            Rules {
                jacoby: false,
                beavers: false,
                automatic_doubles: 0,
                ..*self
            }
        }
    }
}

/// How a loser with `loser` checkers fares against a finished winner.
pub fn win_kind(loser: &Checkers) -> WinKind {
    if loser.off() > 0 {
        WinKind::Single
    } else if loser.bar() > 0 || loser.occupied() & (0b11_1111 << 19) != 0 {
        // Own points 19..24 are the winner's home board.
        WinKind::Backgammon
    } else {
        WinKind::Gammon
    }
}

/// The result of a finished game.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct GameResult {
    /// Who won.
    pub winner: Player,
    /// Single, gammon or backgammon as on the board.
    pub kind: WinKind,
    /// Points scored: cube value times the multiplier the rules allow.
    pub points: u64,
}

/// Scores a game that ended by bearing off. `position` is seen from
/// `mover`, who just moved; `cube_turned` tells whether anyone doubled this
/// game (for Jacoby; automatic doubles do not count as turned).
pub fn score_bear_off(
    position: &Position,
    mover: Player,
    cube: CubeState,
    cube_turned: bool,
    rules: &Rules,
) -> Option<GameResult> {
    let (winner, loser) = if position.me.off() == 15 {
        (mover, &position.opp)
    } else if position.opp.off() == 15 {
        (mover.other(), &position.me)
    } else {
        return None;
    };
    let kind = win_kind(loser);
    Some(GameResult {
        winner,
        kind,
        points: cube.value() * kind.scored(rules, cube_turned),
    })
}

/// A dropped double: the doubler wins the cube value before the double.
pub fn score_drop(doubler: Player, cube: CubeState) -> GameResult {
    GameResult {
        winner: doubler,
        kind: WinKind::Single,
        points: cube.value(),
    }
}

/// A resignation of `kind` offered by `resigner` and accepted.
pub fn score_resignation(
    resigner: Player,
    kind: WinKind,
    cube: CubeState,
    cube_turned: bool,
    rules: &Rules,
) -> GameResult {
    GameResult {
        winner: resigner.other(),
        kind,
        points: cube.value() * kind.scored(rules, cube_turned),
    }
}

/// Adds a finished game to the match score and moves the Crawford state
/// on: the game after a player first reaches length-1 is the Crawford game.
pub fn record_game(state: &mut MatchState, result: &GameResult, rules: &Rules) {
    let before_away = state.away();
    let was_crawford = state.crawford;
    state.score[result.winner.index()] += result.points as u32;
    state.cube = CubeState::default();
    state.dice = None;
    state.doubled = false;
    state.resignation = 0;
    if state.is_money() {
        return;
    }
    let away = state.away();
    // Crawford: someone has just reached 1-away for the first time.
    let newly_one_away = away
        .iter()
        .zip(before_away.iter())
        .any(|(&a, &b)| a == 1 && b > 1);
    let someone_was_one_away = before_away.contains(&1);
    state.crawford = rules.crawford
        && newly_one_away
        && !someone_was_one_away
        && !was_crawford
        && !away.contains(&0);
}

/// The outcome of the opening roll-off.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Opening {
    /// Who moves first.
    pub starter: Player,
    /// The roll the starter plays.
    pub dice: Dice,
    /// The cube after automatic doubles.
    pub cube: CubeState,
}

/// Runs the opening: each player throws one die (`throws` yields
/// (player 0's die, player 1's die) pairs); ties re-throw and, with
/// automatic doubles in money play, double the cube up to the limit. With
/// the Israeli rule the starter then throws both dice afresh from `reroll`.
pub fn opening(
    rules: &Rules,
    money: bool,
    mut throws: impl FnMut() -> (u8, u8),
    reroll: impl FnOnce() -> Dice,
) -> Opening {
    let mut cube = CubeState::default();
    let auto_limit = if money { rules.automatic_doubles } else { 0 };
    let mut autos = 0;
    loop {
        let (a, b) = throws();
        if a == b {
            if autos < auto_limit {
                autos += 1;
                cube.log2 += 1;
            }
            continue;
        }
        let starter = if a > b { Player::Zero } else { Player::One };
        let dice = if rules.israeli_opening {
            reroll()
        } else {
            Dice::new(a.max(b), a.min(b)).expect("dice 1..6")
        };
        return Opening {
            starter,
            dice,
            cube,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finished(loser_off: u8, loser_bar: u8, loser_in_home: u8) -> Position {
        let mut opp = [0u8; 24];
        opp[12] = 15 - loser_off - loser_bar - loser_in_home;
        opp[20] = loser_in_home;
        Position::from_sides(&[0; 24], 0, &opp, loser_bar).unwrap()
    }

    #[test]
    fn scoring_kinds_and_options() {
        let cube = CubeState {
            log2: 1,
            owner: None,
        };
        let r = Rules::default();
        let s = |p: &Position, r: &Rules, turned| {
            score_bear_off(p, Player::One, cube, turned, r).unwrap()
        };
        assert_eq!(s(&finished(1, 0, 0), &r, true).points, 2);
        assert_eq!(s(&finished(0, 0, 0), &r, true).points, 4);
        assert_eq!(s(&finished(0, 1, 0), &r, true).kind, WinKind::Backgammon);
        assert_eq!(s(&finished(0, 0, 2), &r, true).points, 6);
        let bg2 = Rules {
            backgammon_counts_two: true,
            ..r
        };
        assert_eq!(s(&finished(0, 0, 2), &bg2, true).points, 4);
        let jac = Rules { jacoby: true, ..r };
        assert_eq!(s(&finished(0, 0, 2), &jac, false).points, 2);
        assert_eq!(s(&finished(0, 0, 2), &jac, true).points, 6);
        assert_eq!(score_drop(Player::Zero, cube).points, 2);
    }

    #[test]
    fn crawford_then_post_crawford() {
        let r = Rules::default();
        let mut m = MatchState::new_match(5);
        let win = |p: Player, pts| GameResult {
            winner: p,
            kind: WinKind::Single,
            points: pts,
        };
        record_game(&mut m, &win(Player::Zero, 4), &r);
        assert!(m.crawford, "4-0 in a 5-pointer: next game is Crawford");
        assert!(!m.may_double(Player::One));
        record_game(&mut m, &win(Player::One, 1), &r);
        assert!(!m.crawford);
        assert!(m.is_post_crawford());
        record_game(&mut m, &win(Player::One, 2), &r);
        assert!(!m.crawford && m.is_post_crawford());
    }

    #[test]
    fn opening_ties_and_options() {
        let mut seq = vec![(3u8, 3u8), (2, 2), (6, 1)].into_iter();
        let money_auto = Rules {
            automatic_doubles: 1,
            ..Rules::default()
        };
        let o = opening(
            &money_auto,
            true,
            || seq.next().unwrap(),
            || Dice::new(5, 5).unwrap(),
        );
        assert_eq!(o.cube.value(), 2, "limit of one automatic double");
        assert_eq!(o.starter, Player::Zero);
        assert_eq!(o.dice, Dice::new(6, 1).unwrap());
        let mut seq = vec![(1u8, 4u8)].into_iter();
        let isr = Rules {
            israeli_opening: true,
            ..Rules::default()
        };
        let o = opening(
            &isr,
            false,
            || seq.next().unwrap(),
            || Dice::new(5, 5).unwrap(),
        );
        assert_eq!(o.starter, Player::One);
        assert!(o.dice.is_double());
    }
}
