//! gnubg's Position ID: 80-bit position key, Base64 without padding.
//!
//! Bits run over the opponent's points 1..24 and bar, then the on-roll
//! player's: each point writes one `1` per checker and a closing `0`. The
//! bit stream is packed little-endian by bit into 10 bytes.

use base64::Engine;

use crate::formats::base64::{decode_key, GNUBG_B64};
use crate::rules::error::ParseError;
use crate::rules::position::{Checkers, Position};

/// The 80-bit key, bit k of the stream in bit k of the integer.
pub fn key(pos: &Position) -> u128 {
    pos.key()
}

/// The 14-character Position ID of `pos` (player on roll as gnubg's side 1).
pub fn encode(pos: &Position) -> String {
    let bytes = key(pos).to_le_bytes();
    GNUBG_B64.encode(&bytes[..10])
}

/// Reads a Position ID and validates the board as gnubg does.
pub fn decode(id: &str) -> Result<Position, ParseError> {
    const FIELD: &str = "Position ID";
    let err = |reason: String| ParseError::new(FIELD, id, reason);
    let key = decode_key(FIELD, id, 14, 10)?;
    from_key(key).map_err(err)
}

/// Builds a position from an 80-bit key.
pub fn from_key(key: u128) -> Result<Position, String> {
    let mut sides = [[0u8; 25]; 2];
    let mut side = 0usize;
    let mut point = 0usize;
    let mut totals = [0u32; 2];
    for bit in 0..80 {
        if side == 2 {
            if key >> bit != 0 {
                return Err("checkers after the last point".to_string());
            }
            break;
        }
        if key >> bit & 1 == 1 {
            totals[side] += 1;
            if totals[side] > 15 {
                let who = if side == 0 {
                    "opponent"
                } else {
                    "player on roll"
                };
                return Err(format!("more than 15 checkers for the {who}"));
            }
            sides[side][point] += 1;
        } else {
            point += 1;
            if point == 25 {
                point = 0;
                side += 1;
            }
        }
    }
    if side < 2 {
        return Err("the key ends before both sides are complete".to_string());
    }
    let split = |s: &[u8; 25]| -> ([u8; 24], u8) {
        let mut p = [0u8; 24];
        p.copy_from_slice(&s[..24]);
        (p, s[24])
    };
    let (opp_pts, opp_bar) = split(&sides[0]);
    let (me_pts, me_bar) = split(&sides[1]);
    let pos = Position {
        me: Checkers::from_points(&me_pts, me_bar).map_err(|e| e.to_string())?,
        opp: Checkers::from_points(&opp_pts, opp_bar).map_err(|e| e.to_string())?,
    };
    pos.validate().map_err(|e| e.to_string())?;
    Ok(pos)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opening_id() {
        assert_eq!(encode(&Position::start()), "4HPwATDgc/ABMA");
        assert_eq!(decode("4HPwATDgc/ABMA").unwrap(), Position::start());
    }

    #[test]
    fn bad_ids_name_the_field() {
        for bad in [
            "4HPw",
            "4HPwATDgc/ABMAA",
            "4HPwATDgc/AB!A",
            "//////////////",
            "",
            "ééééééééééééé",
        ] {
            let e = decode(bad).unwrap_err();
            assert_eq!(e.field, "Position ID", "{bad}");
        }
    }
}
