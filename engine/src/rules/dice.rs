//! A roll of two dice.

use std::fmt;
use std::str::FromStr;

use crate::rules::error::ParseError;

/// Two dice as rolled (the order is kept for the files that record it; a
/// roll is shown high die first).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Dice {
    first: u8,
    second: u8,
}

impl Dice {
    /// Builds a roll; `None` unless both dice are 1..=6.
    pub fn new(first: u8, second: u8) -> Option<Dice> {
        ((1..=6).contains(&first) && (1..=6).contains(&second)).then_some(Dice { first, second })
    }

    /// The die as rolled first.
    pub fn first(self) -> u8 {
        self.first
    }

    /// The die as rolled second.
    pub fn second(self) -> u8 {
        self.second
    }

    /// The larger die.
    pub fn high(self) -> u8 {
        self.first.max(self.second)
    }

    /// The smaller die.
    pub fn low(self) -> u8 {
        self.first.min(self.second)
    }

    /// Whether both dice show the same number.
    pub fn is_double(self) -> bool {
        self.first == self.second
    }

    /// The same roll with the larger die first (gnubg's order).
    pub fn high_first(self) -> Dice {
        Dice {
            first: self.high(),
            second: self.low(),
        }
    }

    /// The 21 distinct rolls, doubles first, each once.
    pub fn all_21() -> impl Iterator<Item = Dice> {
        (1..=6u8).flat_map(|a| {
            (1..=a).map(move |b| Dice {
                first: a,
                second: b,
            })
        })
    }

    /// How many of the 36 equally likely outcomes give this roll (1 or 2).
    pub fn weight(self) -> u32 {
        if self.is_double() {
            1
        } else {
            2
        }
    }

    /// Pips a full play of the roll moves.
    pub fn pips(self) -> u32 {
        if self.is_double() {
            4 * u32::from(self.first)
        } else {
            u32::from(self.first) + u32::from(self.second)
        }
    }
}

/// High die first (`31`, never `13`), as match files, gnubg and XG write a
/// roll.
impl fmt::Display for Dice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.high(), self.low())
    }
}

impl FromStr for Dice {
    type Err = ParseError;

    /// Accepts `31`, `3-1` and `3,1` (either order).
    fn from_str(s: &str) -> Result<Dice, ParseError> {
        let t = s.trim();
        let c: Vec<char> = t.chars().collect();
        let digits: Vec<char> = match c.len() {
            2 => c,
            3 => {
                if c[1] != '-' && c[1] != ',' {
                    return Err(ParseError::new(
                        "dice",
                        s,
                        "expected two dice as 31, 3-1 or 3,1",
                    ));
                }
                vec![c[0], c[2]]
            }
            _ => {
                return Err(ParseError::new(
                    "dice",
                    s,
                    "expected two dice as 31, 3-1 or 3,1",
                ))
            }
        };
        let die = |c: char| -> Result<u8, ParseError> {
            match c.to_digit(10) {
                Some(d @ 1..=6) => Ok(d as u8),
                Some(d) => Err(ParseError::new(
                    "dice",
                    s,
                    format!("a die shows 1 to 6, not {d}"),
                )),
                None => Err(ParseError::new(
                    "dice",
                    s,
                    format!("'{c}' is not a die (1 to 6)"),
                )),
            }
        };
        let first = die(digits[0])?;
        let second = die(digits[1])?;
        Ok(Dice { first, second })
    }
}

/// Where the dice come from: one throw is two dice. The opening roll-off
/// takes a throw per attempt (player 0's die first).
pub trait Roller {
    /// The next throw.
    fn throw(&mut self) -> (u8, u8);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_dialects() {
        for s in ["31", "3-1", "3,1", " 31 "] {
            let d: Dice = s.parse().unwrap();
            assert_eq!((d.high(), d.low()), (3, 1));
        }
        assert!("13".parse::<Dice>().unwrap().high_first() == Dice::new(3, 1).unwrap());
    }

    #[test]
    fn a_roll_is_shown_high_die_first() {
        let low_first = Dice::new(1, 2).unwrap();
        assert_eq!(low_first.to_string(), "21");
        assert_eq!((low_first.first(), low_first.second()), (1, 2));
        assert_eq!(Dice::new(5, 5).unwrap().to_string(), "55");
    }

    #[test]
    fn rejects_bad_dice() {
        for s in ["07", "7", "x1", "", "123", "3/1", "é1", "0"] {
            let e = s.parse::<Dice>().unwrap_err();
            assert_eq!(e.field, "dice", "{s}");
        }
    }

    #[test]
    fn twenty_one_rolls_weigh_36() {
        assert_eq!(Dice::all_21().count(), 21);
        assert_eq!(Dice::all_21().map(Dice::weight).sum::<u32>(), 36);
    }
}
