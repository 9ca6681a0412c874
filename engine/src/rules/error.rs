//! Errors of the parsers and validators. Each names the field at fault, so a
//! user reading one line knows what to fix.

use thiserror::Error;

/// A board that breaks the rules of the game.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PositionError {
    /// More than 15 checkers on one side.
    #[error("{0} checkers on one side (at most 15)")]
    TooManyCheckers(u32),
    /// More than 15 checkers for a named side.
    #[error("{side} has {count} checkers (at most 15)")]
    TooManyFor {
        /// Which side.
        side: &'static str,
        /// How many it has.
        count: u32,
    },
    /// Both sides on one point (numbered from the player on roll).
    #[error("both sides have checkers on point {0}")]
    SharedPoint(u32),
    /// Both sides on the bar against each other's closed board.
    #[error("both sides are on the bar against closed boards")]
    BothClosedOut,
}

impl PositionError {
    pub(crate) fn for_side(self, side: &'static str) -> PositionError {
        match self {
            PositionError::TooManyCheckers(count) => PositionError::TooManyFor { side, count },
            other => other,
        }
    }
}

/// An input string that could not be read: names the field and the reason.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("bad {field} \"{input}\": {reason}")]
pub struct ParseError {
    /// What was being read ("Position ID", "Match ID", "XGID", "dice", ...).
    pub field: &'static str,
    /// The offending text (shortened when long).
    pub input: String,
    /// Why it was rejected.
    pub reason: String,
}

impl ParseError {
    /// Builds an error, keeping at most 60 characters of the input, with
    /// line breaks and other control characters escaped so that the error
    /// stays one line.
    pub fn new(field: &'static str, input: &str, reason: impl Into<String>) -> ParseError {
        let mut shown: String = input
            .chars()
            .take(60)
            .flat_map(|c| {
                let escaped: Vec<char> = if c.is_control() {
                    c.escape_default().collect()
                } else {
                    vec![c]
                };
                escaped
            })
            .collect();
        if input.chars().count() > 60 {
            shown.push('…');
        }
        ParseError {
            field,
            input: shown,
            reason: reason.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_is_one_line_whatever_the_input() {
        let e = ParseError::new("Position ID", "4HPw\nATDgc/ABMA", "expected 14 characters");
        let text = e.to_string();
        assert!(!text.contains('\n'), "{text}");
        assert!(text.contains("4HPw\\nATDgc"), "{text}");
    }
}
