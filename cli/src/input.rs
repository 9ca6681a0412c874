//! Reading the POSITION and DICE words of the command line (see CLI.md).

use anyhow::bail;
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

/// Reads `start`, a Position ID, `PositionID:MatchID` or an XGID, and
/// refuses what no game can reach.
pub fn parse_position(text: &str) -> Result<Input, ParseError> {
    let input = read_position(text)?;
    check(&input, text)?;
    Ok(input)
}

/// Refuses a board or match state no game can reach, naming the field: a
/// board where both sides have borne off (or have no checkers), an
/// impossible Crawford flag, a match longer than the match equity table.
pub fn check(input: &Input, text: &str) -> Result<(), ParseError> {
    let s = &input.state;
    if let Some(why) = s.impossibility_on(&input.position) {
        let field = if s.impossibility().is_some() {
            "match state"
        } else {
            "position"
        };
        return Err(ParseError::new(field, text, why));
    }
    let most = sheshbesh_engine::cube::met::Met::kazaross_xg2().length;
    if s.length as usize > most {
        return Err(ParseError::new(
            "match length",
            text,
            format!(
                "{} points is beyond the {most} the match equity table covers",
                s.length
            ),
        ));
    }
    Ok(())
}

fn read_position(text: &str) -> Result<Input, ParseError> {
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

/// The longest input line a co-process reads (batch modes, UBGI, gnubg's
/// protocol); the rest of a longer line is read and thrown away.
pub const MAX_LINE: usize = 64 * 1024;

/// One line of a co-process's input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Line {
    /// The line's text, without its line end.
    Text(String),
    /// The line was not UTF-8 (it is answered with an error; the session
    /// goes on).
    NotUtf8,
    /// The line was longer than [`MAX_LINE`] bytes.
    TooLong,
}

impl Line {
    /// The text, or the one-line error a bad line is answered with.
    pub fn text(self) -> Result<String, String> {
        match self {
            Line::Text(t) => Ok(t),
            Line::NotUtf8 => Err("bad input line: not UTF-8 text".to_string()),
            Line::TooLong => Err(format!("bad input line: longer than {MAX_LINE} bytes")),
        }
    }
}

/// Reads the next line of `r` (`None` at the end of input), never holding
/// more than [`MAX_LINE`] bytes of it.
pub fn read_line(r: &mut impl std::io::BufRead) -> std::io::Result<Option<Line>> {
    let mut buf = Vec::new();
    let mut too_long = false;
    loop {
        let chunk = r.fill_buf()?;
        if chunk.is_empty() {
            if buf.is_empty() && !too_long {
                return Ok(None);
            }
            break;
        }
        let (take, done) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (chunk.len(), false),
        };
        if !too_long {
            if buf.len() + take > MAX_LINE + 2 {
                too_long = true;
                buf.clear();
            } else {
                buf.extend_from_slice(&chunk[..take]);
            }
        }
        r.consume(take);
        if done {
            break;
        }
    }
    if too_long {
        return Ok(Some(Line::TooLong));
    }
    while matches!(buf.last(), Some(b'\n' | b'\r')) {
        buf.pop();
    }
    Ok(Some(match String::from_utf8(buf) {
        Ok(t) => Line::Text(t),
        Err(_) => Line::NotUtf8,
    }))
}

/// The position of a command's words (`POSITION` and at most
/// `max_words - 1` more).
pub fn input_of(parts: &[&str], max_words: usize) -> anyhow::Result<Input> {
    let Some(first) = parts.first() else {
        bail!("bad position \"\": missing (give a Position ID, PositionID:MatchID, an XGID or \"start\")");
    };
    if parts.len() > max_words {
        bail!("bad input \"{}\": too many words", parts.join(" "));
    }
    Ok(parse_position(first)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_read_whole_or_answered_as_bad() {
        let mut input: &[u8] = b"start 31\n\xff\n\nstart 66\r\nlast";
        let mut got = Vec::new();
        while let Some(l) = read_line(&mut input).unwrap() {
            got.push(l);
        }
        assert_eq!(
            got,
            [
                Line::Text("start 31".into()),
                Line::NotUtf8,
                Line::Text(String::new()),
                Line::Text("start 66".into()),
                Line::Text("last".into()),
            ]
        );
        let long = [b"x".repeat(MAX_LINE + 10), b"\nok\n".to_vec()].concat();
        let mut input: &[u8] = &long;
        assert_eq!(read_line(&mut input).unwrap(), Some(Line::TooLong));
        assert_eq!(
            read_line(&mut input).unwrap(),
            Some(Line::Text("ok".into()))
        );
        assert_eq!(read_line(&mut input).unwrap(), None);
    }
}
