//! FIBS `board:` strings (CLIP boardstyle 3), in gnubg's dialect.
//!
//! 53 colon-separated tokens: `board`, two names, then 50 integers. "You"
//! (the first name) is gnubg's player 1. Reading accepts either colour and
//! direction; writing uses gnubg's choice (colour 1, direction -1, home 0,
//! bar 25, and the last two fields reused as post-Crawford and
//! non-Crawford flags).

use crate::rules::dice::Dice;
use crate::rules::error::ParseError;
use crate::rules::match_state::{CubeState, GameState, MatchState, Player};
use crate::rules::position::{Checkers, Position};

/// A FIBS board with its names.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct FibsBoard {
    /// "You", gnubg's player 1.
    pub name: String,
    /// The opponent, player 0.
    pub opp_name: String,
    /// The board from the player on roll (see `state.on_roll`).
    pub position: Position,
    /// Cube, score, turn, dice; player 1 is "You".
    pub state: MatchState,
}

const FIELD: &str = "FIBS board";

/// Reads a FIBS board string.
pub fn decode(text: &str) -> Result<FibsBoard, ParseError> {
    let err = |reason: String| ParseError::new(FIELD, text, reason);
    let t: Vec<&str> = text.trim().split(':').collect();
    if t.len() != 53 {
        return Err(err(format!(
            "expected 53 ':'-separated fields, got {}",
            t.len()
        )));
    }
    if t[0] != "board" {
        return Err(err("must start with \"board:\"".into()));
    }
    let mut v = [0i64; 50];
    for (i, s) in t[3..].iter().enumerate() {
        v[i] = s
            .trim()
            .parse()
            .map_err(|_| err(format!("field {} \"{s}\" is not an integer", i + 4)))?;
    }
    let board = &v[3..29];
    // Bounded before any sign is flipped: i64::MIN negated wraps to
    // itself, which read the opponent's checkers as none.
    if let Some((i, x)) = board
        .iter()
        .enumerate()
        .find(|(_, x)| x.unsigned_abs() > 15)
    {
        return Err(err(format!(
            "field {} \"{x}\": at most 15 checkers on a point",
            i + 7
        )));
    }
    let [turn, d1, d2, od1, od2, cube, may_double, opp_may_double, was_doubled, color, direction] = [
        v[29], v[30], v[31], v[32], v[33], v[34], v[35], v[36], v[37], v[38], v[39],
    ];
    let (post_crawford, non_crawford) = (v[48], v[49]);
    if !(-1..=1).contains(&turn) {
        return Err(err(format!(
            "turn {turn} is not 1 or -1 (a colour), or 0 (no one's)"
        )));
    }
    if color != 1 && color != -1 {
        return Err(err(format!("colour {color} is not 1 or -1")));
    }
    if direction != 1 && direction != -1 {
        return Err(err(format!("direction {direction} is not 1 or -1")));
    }
    // Index of own point p (1..24) and own bar for You and the opponent.
    let you_idx = |p: usize| if direction == -1 { p } else { 25 - p };
    let opp_idx = |p: usize| if direction == -1 { 25 - p } else { p };
    let (you_bar_idx, opp_bar_idx) = if direction == -1 { (25, 0) } else { (0, 25) };
    let mut you = [0u8; 24];
    let mut opp = [0u8; 24];
    let count = |x: i64, mine: bool| -> Result<u8, ParseError> {
        let n = if mine { x * color } else { -x * color };
        if n < 0 {
            return Ok(0);
        }
        u8::try_from(n).map_err(|_| err(format!("{x} checkers on one point")))
    };
    for p in 1..=24 {
        let (a, b) = (board[you_idx(p)], board[opp_idx(p)]);
        you[p - 1] = count(a, true)?;
        opp[p - 1] = count(b, false)?;
    }
    // Bars: gnubg writes them signed by owner; FIBS proper by position.
    let bar = |x: i64, whose: &str| {
        u8::try_from(x.unsigned_abs()).map_err(|_| err(format!("{x} checkers on {whose} bar")))
    };
    let you_bar = bar(board[you_bar_idx], "You's")?;
    let opp_bar = bar(board[opp_bar_idx], "the opponent's")?;
    let you_c = Checkers::from_points(&you, you_bar).map_err(|e| err(format!("You: {e}")))?;
    let opp_c = Checkers::from_points(&opp, opp_bar).map_err(|e| err(format!("opponent: {e}")))?;
    let on_roll = if turn == color {
        Player::One
    } else {
        Player::Zero
    };
    let position = if on_roll == Player::One {
        Position {
            me: you_c,
            opp: opp_c,
        }
    } else {
        Position {
            me: opp_c,
            opp: you_c,
        }
    };
    position.validate().map_err(|e| err(e.to_string()))?;
    let (a, b) = if on_roll == Player::One {
        (d1, d2)
    } else {
        (od1, od2)
    };
    let dice = match (a, b) {
        (0, 0) => None,
        (a, b) => Some(
            u8::try_from(a)
                .ok()
                .zip(u8::try_from(b).ok())
                .and_then(|(a, b)| Dice::new(a, b))
                .ok_or_else(|| err(format!("dice {a} {b}: each must be 1 to 6")))?,
        ),
    };
    if cube < 1 || cube.count_ones() != 1 {
        return Err(err(format!("cube {cube} is not a power of two")));
    }
    let owner = match (may_double != 0, opp_may_double != 0) {
        (true, false) => Some(Player::One),
        (false, true) => Some(Player::Zero),
        _ => None,
    };
    let length = if v[0] == 9999 { 0 } else { v[0] };
    if !(0..=i64::from(crate::formats::match_id::MAX_SCORE)).contains(&length)
        || v[1] < 0
        || v[2] < 0
    {
        return Err(err(format!("match length {} or scores out of range", v[0])));
    }
    if length > 0 && (v[1] >= length || v[2] >= length) {
        return Err(err(format!(
            "score {}-{} has reached the match length {length}",
            v[1], v[2]
        )));
    }
    let doubled = was_doubled != 0;
    let crawford = length > 0 && non_crawford == 0 && post_crawford == 0 && {
        let away = [length - v[2], length - v[1]];
        away.contains(&1)
    };
    let state = MatchState {
        length: length as u32,
        score: [v[2] as u32, v[1] as u32],
        crawford,
        cube: CubeState {
            log2: cube.trailing_zeros() as u8,
            owner,
        },
        on_roll,
        turn: if doubled { on_roll.other() } else { on_roll },
        doubled,
        resignation: 0,
        dice,
        game_state: if turn == 0 {
            GameState::Over
        } else {
            GameState::Playing
        },
        jacoby: false,
        beavers: false,
    };
    if let Some(why) = state.impossibility_on(&position) {
        return Err(err(why.into()));
    }
    Ok(FibsBoard {
        name: t[1].to_string(),
        opp_name: t[2].to_string(),
        position,
        state,
    })
}

/// Writes gnubg's FIBS board for a position and match state.
pub fn encode(name: &str, opp_name: &str, position: &Position, state: &MatchState) -> String {
    let (you, opp) = if state.on_roll == Player::One {
        (&position.me, &position.opp)
    } else {
        (&position.opp, &position.me)
    };
    let mut f: Vec<i64> = Vec::with_capacity(50);
    f.push(i64::from(state.length));
    f.push(i64::from(state.score[1]));
    f.push(i64::from(state.score[0]));
    f.push(-i64::from(opp.bar()));
    for i in 1..=24 {
        let y = i64::from(you.at(i));
        f.push(if y > 0 { y } else { -i64::from(opp.at(25 - i)) });
    }
    f.push(i64::from(you.bar()));
    f.push(if state.on_roll == Player::One { 1 } else { -1 });
    let (a, b) = state
        .dice
        .map_or((0, 0), |d| (i64::from(d.first()), i64::from(d.second())));
    f.extend([a, b, a, b]);
    f.push(state.cube.value() as i64);
    f.push(i64::from(state.cube.owner != Some(Player::Zero)));
    f.push(i64::from(state.cube.owner != Some(Player::One)));
    f.push(if !state.doubled {
        0
    } else if state.on_roll == Player::One {
        1
    } else {
        -1
    });
    f.extend([1, -1, 0, 25]);
    f.push(i64::from(you.off()));
    f.push(i64::from(opp.off()));
    f.extend([0, 0, 0, 0]);
    f.push(i64::from(state.is_post_crawford()));
    f.push(i64::from(!state.crawford));
    let nums: Vec<String> = f.iter().map(|x| x.to_string()).collect();
    format!("board:{name}:{opp_name}:{}", nums.join(":"))
}
