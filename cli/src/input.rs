//! Reading the POSITION and DICE words of the command line (see CLI.md).

use sheshbesh_engine::{
    formats::match_id, formats::position_id, formats::xgid, Dice, MatchState, ParseError, Position,
};

/// A position to work on, with its match context.
#[derive(Clone, Copy, Debug)]
pub struct Input {
    /// The board, seen from the player on roll.
    pub position: Position,
    /// Cube, score, dice: the defaults of a money game when not given.
    pub state: MatchState,
}

/// Reads `start`, a Position ID, `PositionID:MatchID` or an XGID.
pub fn parse_position(text: &str) -> Result<Input, ParseError> {
    let t = text.trim();
    if t.eq_ignore_ascii_case("start") {
        return Ok(Input {
            position: Position::start(),
            state: MatchState::default(),
        });
    }
    if t.starts_with("XGID=") || t.matches(':').count() >= 8 {
        let x = xgid::decode(t)?;
        return Ok(Input {
            position: x.position,
            state: x.state,
        });
    }
    if let Some((pid, mid)) = t.split_once(':') {
        let position = position_id::decode(pid)?;
        let state = match_id::decode(mid)?;
        return Ok(Input { position, state });
    }
    if t.is_empty() {
        return Err(ParseError::new(
            "position",
            t,
            "expected a Position ID, PositionID:MatchID, an XGID or \"start\"",
        ));
    }
    Ok(Input {
        position: position_id::decode(t)?,
        state: MatchState::default(),
    })
}

/// The dice to play: those given, else those the position carries.
pub fn dice_for(input: &Input, dice: Option<&str>) -> Result<Dice, ParseError> {
    match dice {
        Some(d) => d.parse(),
        None => input.state.dice.ok_or_else(|| {
            ParseError::new("dice", "", "no dice given and the position carries none")
        }),
    }
}
