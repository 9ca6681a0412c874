//! eXtreme Gammon's XGID, read and written as gnubg maps it.
//!
//! `XGID=pos:cube:cubepos:turn:dice:score_bottom:score_top:crawford_or_rules:length:maxcube`.
//! The bottom player is gnubg's player 1, the top player 0. `pos` has the
//! top bar, points 1..24 from the bottom player's side (uppercase bottom,
//! lowercase top), then the bottom bar.

use crate::rules::dice::Dice;
use crate::rules::error::ParseError;
use crate::rules::match_state::{CubeState, MatchState, Player};
use crate::rules::position::{Checkers, Position};

/// A position and its match state as an XGID carries them.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Xgid {
    /// The board from the player on roll.
    pub position: Position,
    /// Cube, score, turn, dice.
    pub state: MatchState,
    /// XG's maximum cube as log2 (10 = 1024); 0 means cubeless to gnubg.
    pub max_cube_log2: u32,
}

const FIELD: &str = "XGID";

/// Reads an XGID, with or without the `XGID=` prefix.
pub fn decode(text: &str) -> Result<Xgid, ParseError> {
    let err = |reason: String| ParseError::new(FIELD, text, reason);
    let body = text.trim();
    let body = match body.rfind('=') {
        Some(i) => &body[i + 1..],
        None => body,
    };
    let fields: Vec<&str> = body.split(':').collect();
    if fields.len() != 10 && fields.len() != 9 {
        return Err(err(format!(
            "expected 10 fields separated by ':', got {}",
            fields.len()
        )));
    }
    let pos = fields[0];
    if pos.chars().count() != 26 {
        return Err(err(format!(
            "position field has {} characters, expected 26",
            pos.chars().count()
        )));
    }
    let mut bottom = [0u8; 24];
    let mut top = [0u8; 24];
    let (mut bottom_bar, mut top_bar) = (0u8, 0u8);
    for (i, c) in pos.chars().enumerate() {
        let (upper, n) = match c {
            '-' => continue,
            'A'..='P' => (true, c as u8 - b'A' + 1),
            'a'..='p' => (false, c as u8 - b'a' + 1),
            _ => {
                return Err(err(format!(
                    "position character {} '{c}' is not '-', A-P or a-p",
                    i + 1
                )))
            }
        };
        match i {
            0 if !upper => top_bar = n,
            25 if upper => bottom_bar = n,
            0 | 25 => {
                return Err(err(format!(
                    "position character {} '{c}': wrong player's checkers on a bar",
                    i + 1
                )))
            }
            _ if upper => bottom[i - 1] = n,
            _ => top[24 - i] = n,
        }
    }
    let int = |idx: usize, name: &str| -> Result<i64, ParseError> {
        fields[idx]
            .trim()
            .parse::<i64>()
            .map_err(|_| err(format!("{name} \"{}\" is not a number", fields[idx])))
    };
    let cube = int(1, "cube")?;
    if !(0..=15).contains(&cube) {
        return Err(err(format!("cube exponent {cube} is not 0..15")));
    }
    let owner = match int(2, "cube position")? {
        1 => Some(Player::One),
        0 => None,
        -1 => Some(Player::Zero),
        v => return Err(err(format!("cube position {v} is not 1, 0 or -1"))),
    };
    let on_roll = match int(3, "turn")? {
        1 => Player::One,
        -1 => Player::Zero,
        v => return Err(err(format!("turn {v} is not 1 or -1"))),
    };
    let (dice, doubled) = match fields[4].trim() {
        "00" => (None, false),
        "D" => (None, true),
        "B" | "R" => {
            return Err(err(
                "beaver/raccoon dice codes B and R are not supported (gnubg rejects them too)"
                    .into(),
            ))
        }
        d => (
            Some(d.parse::<Dice>().map_err(|e| err(e.to_string()))?),
            false,
        ),
    };
    let score_bottom = int(5, "bottom score")?;
    let score_top = int(6, "top score")?;
    let flags = int(7, "Crawford/rules")?;
    let length = int(8, "match length")?;
    let max_cube = if fields.len() == 10 {
        int(9, "max cube")?
    } else {
        10
    };
    if !(0..=i64::from(crate::formats::match_id::MAX_SCORE)).contains(&length) {
        return Err(err(format!("match length {length} out of range")));
    }
    for (s, who) in [(score_bottom, "bottom"), (score_top, "top")] {
        if s < 0
            || (length > 0 && s >= length)
            || s > i64::from(crate::formats::match_id::MAX_SCORE)
        {
            return Err(err(format!(
                "{who} score {s} does not fit a {length}-point match"
            )));
        }
    }
    if !(0..=3).contains(&flags) || (length > 0 && flags > 1) {
        return Err(err(format!(
            "Crawford/rules field {flags}: 0/1 in a match, 0..3 in money"
        )));
    }
    let (bt, tp) = (
        Checkers::from_points(&bottom, bottom_bar)
            .map_err(|e| err(format!("bottom player: {e}")))?,
        Checkers::from_points(&top, top_bar).map_err(|e| err(format!("top player: {e}")))?,
    );
    let position = if on_roll == Player::One {
        Position { me: bt, opp: tp }
    } else {
        Position { me: tp, opp: bt }
    };
    position.validate().map_err(|e| err(e.to_string()))?;
    let money = length == 0;
    let state = MatchState {
        length: length as u32,
        score: [score_top as u32, score_bottom as u32],
        crawford: !money && flags == 1,
        cube: CubeState {
            log2: cube as u8,
            owner,
        },
        on_roll,
        turn: if doubled { on_roll.other() } else { on_roll },
        doubled,
        resignation: 0,
        dice,
        game_state: crate::rules::match_state::GameState::Playing,
        jacoby: money && flags & 1 == 1,
        beavers: money && flags & 2 == 2,
    };
    if let Some(why) = state.impossibility_on(&position) {
        return Err(err(why.into()));
    }
    Ok(Xgid {
        position,
        state,
        max_cube_log2: max_cube.clamp(0, 63) as u32,
    })
}

/// Writes an XGID (with the `XGID=` prefix).
pub fn encode(position: &Position, state: &MatchState, max_cube_log2: u32) -> String {
    let (bottom, top) = if state.on_roll == Player::One {
        (&position.me, &position.opp)
    } else {
        (&position.opp, &position.me)
    };
    let mut pos = String::with_capacity(26);
    let letter = |n: u8, upper: bool| -> char {
        if n == 0 {
            '-'
        } else if upper {
            (b'A' + n - 1) as char
        } else {
            (b'a' + n - 1) as char
        }
    };
    pos.push(letter(top.bar(), false));
    for i in 1..=24 {
        let b = bottom.at(i);
        let t = top.at(25 - i);
        pos.push(if b > 0 {
            letter(b, true)
        } else {
            letter(t, false)
        });
    }
    pos.push(letter(bottom.bar(), true));
    let cubepos = match state.cube.owner {
        None => 0,
        Some(Player::One) => 1,
        Some(Player::Zero) => -1,
    };
    let turn = if state.on_roll == Player::One { 1 } else { -1 };
    let dice = if state.doubled {
        "D".to_string()
    } else {
        state.dice.map_or("00".to_string(), |d| d.to_string())
    };
    let flags = if state.length > 0 {
        u32::from(state.crawford)
    } else {
        u32::from(state.jacoby) | (u32::from(state.beavers) << 1)
    };
    format!(
        "XGID={pos}:{}:{cubepos}:{turn}:{dice}:{}:{}:{flags}:{}:{max_cube_log2}",
        state.cube.log2, state.score[1], state.score[0], state.length
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_round_trips() {
        let x = decode("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10").unwrap();
        assert_eq!(x.position, Position::start());
        assert_eq!(
            encode(&x.position, &x.state, x.max_cube_log2),
            "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"
        );
    }
}
