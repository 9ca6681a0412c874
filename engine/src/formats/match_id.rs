//! gnubg's Match ID: 72 bits (67 used) of cube, score and turn, Base64.
//!
//! Field layout (bit offset, width): cube log2 (0,4), owner (4,2; 3 =
//! centred), on roll (6,1), Crawford (7,1), game state (8,3), turn (11,1),
//! doubled (12,1), resignation (13,2), dice (15,3)+(18,3), length (21,15),
//! scores (36,15)+(51,15), not-Jacoby (66,1). gnubg writes the larger die
//! first.

use base64::Engine;

use crate::formats::base64::{decode_key, GNUBG_B64};
use crate::rules::dice::Dice;
use crate::rules::error::ParseError;
use crate::rules::match_state::{CubeState, GameState, MatchState, Player};

/// The largest match length or score gnubg stores (15 bits; gnubg itself
/// caps at 64).
pub const MAX_SCORE: u32 = (1 << 15) - 1;

fn put(key: &mut u128, at: u32, width: u32, value: u32) {
    let v = u128::from(value) & ((1u128 << width) - 1);
    *key |= v << at;
}

fn get(key: u128, at: u32, width: u32) -> u32 {
    ((key >> at) & ((1u128 << width) - 1)) as u32
}

/// The 12-character Match ID.
pub fn encode(m: &MatchState) -> String {
    let mut k: u128 = 0;
    put(&mut k, 0, 4, u32::from(m.cube.log2));
    put(
        &mut k,
        4,
        2,
        match m.cube.owner {
            None => 3,
            Some(p) => p.index() as u32,
        },
    );
    put(&mut k, 6, 1, m.on_roll.index() as u32);
    put(&mut k, 7, 1, u32::from(m.crawford));
    put(&mut k, 8, 3, m.game_state.code());
    put(&mut k, 11, 1, m.turn.index() as u32);
    put(&mut k, 12, 1, u32::from(m.doubled));
    put(&mut k, 13, 2, u32::from(m.resignation));
    if let Some(d) = m.dice {
        let d = d.high_first();
        put(&mut k, 15, 3, u32::from(d.first()));
        put(&mut k, 18, 3, u32::from(d.second()));
    }
    put(&mut k, 21, 15, m.length);
    put(&mut k, 36, 15, m.score[0]);
    put(&mut k, 51, 15, m.score[1]);
    put(&mut k, 66, 1, u32::from(!m.jacoby || m.length > 0));
    GNUBG_B64.encode(&k.to_le_bytes()[..9])
}

/// Reads a Match ID, with gnubg's checks.
pub fn decode(id: &str) -> Result<MatchState, ParseError> {
    const FIELD: &str = "Match ID";
    let err = |reason: String| ParseError::new(FIELD, id, reason);
    let k = decode_key(FIELD, id, 12, 9)?;

    let owner = match get(k, 4, 2) {
        0 => Some(Player::Zero),
        1 => Some(Player::One),
        3 => None,
        _ => return Err(err("cube owner field is 2 (must be 0, 1 or 3)".into())),
    };
    let game_state = GameState::from_code(get(k, 8, 3))
        .ok_or_else(|| err(format!("game state {} is not 0..4", get(k, 8, 3))))?;
    let (d1, d2) = (get(k, 15, 3), get(k, 18, 3));
    let dice = match (d1, d2) {
        (0, 0) => None,
        (a, b) => Some(
            Dice::new(a as u8, b as u8)
                .ok_or_else(|| err(format!("dice {a} and {b}: each must be 1 to 6")))?,
        ),
    };
    let length = get(k, 21, 15);
    let score = [get(k, 36, 15), get(k, 51, 15)];
    let crawford = get(k, 7, 1) == 1;
    if length > 0 && (score[0] >= length || score[1] >= length) && game_state == GameState::Playing
    {
        return Err(err(format!(
            "score {}-{} has reached the match length {length}",
            score[0], score[1]
        )));
    }
    if length > 0 && (score[0] > length || score[1] > length) {
        return Err(err(format!(
            "score {}-{} exceeds the match length {length}",
            score[0], score[1]
        )));
    }
    if length == 0 && crawford {
        return Err(err("Crawford flag set in money play".into()));
    }
    let state = MatchState {
        length,
        score,
        crawford,
        cube: CubeState {
            log2: get(k, 0, 4) as u8,
            owner,
        },
        on_roll: Player::from_bit(get(k, 6, 1)),
        turn: Player::from_bit(get(k, 11, 1)),
        doubled: get(k, 12, 1) == 1,
        resignation: get(k, 13, 2) as u8,
        dice,
        game_state,
        jacoby: length == 0 && get(k, 66, 1) == 0,
        beavers: false,
    };
    // What the bits allow but no game reaches (a double after the roll, a
    // cube turned in the Crawford game, a match already won) is refused
    // here, so no reader of IDs can take it in.
    match state.impossibility() {
        Some(why) => Err(err(why.into())),
        None => Ok(state),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manual_example() {
        let m = decode("QYkqASAAIAAE").unwrap();
        assert_eq!(m.cube.value(), 2);
        assert_eq!(m.cube.owner, Some(Player::Zero));
        assert_eq!(m.on_roll, Player::One);
        assert_eq!(m.length, 9);
        assert_eq!(m.score, [2, 4]);
        assert_eq!(m.dice, Dice::new(5, 2));
        assert_eq!(encode(&m), "QYkqASAAIAAE");
    }
}
