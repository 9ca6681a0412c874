//! Reading move notation back: gnubg's own (`24/18 13/11`, `bar/22*`,
//! `6/off`, `8/5(2)`, `24/18*/13`) and the dialects of match files (`25/22`
//! for the bar, `6/0` for off, combined moves like `24/13`, `*` optional).
//!
//! A written move is turned into the board it leaves for the mover, then
//! matched against the legal plays; hit marks only choose between legal
//! plays that leave the same checkers of the mover's (hits on the way).

use crate::rules::dice::Dice;
use crate::rules::error::ParseError;
use crate::rules::movegen::{legal_moves, Candidate};
use crate::rules::position::{Position, BAR};

const FIELD: &str = "move";

struct Written {
    from: usize,
    to: usize,
    starred: Vec<usize>,
    /// Every point written after a '/' (intermediate and final).
    landings: Vec<usize>,
    count: u8,
}

fn point(tok: &str, whole: &str, is_source: bool) -> Result<usize, ParseError> {
    let t = tok.to_ascii_lowercase();
    match t.as_str() {
        "bar" | "b" if is_source => return Ok(BAR),
        "off" | "o" if !is_source => return Ok(0),
        _ => {}
    }
    let n: usize = t
        .parse()
        .map_err(|_| ParseError::new(FIELD, whole, format!("\"{tok}\" is not a point")))?;
    match (n, is_source) {
        (1..=25, true) => Ok(n),
        (0..=24, false) => Ok(n),
        _ => Err(ParseError::new(
            FIELD,
            whole,
            format!("point {n} is out of range"),
        )),
    }
}

fn parse_token(tok: &str, whole: &str) -> Result<Written, ParseError> {
    let (body, count) = match tok.find('(') {
        Some(i) => {
            let inner = tok[i + 1..].strip_suffix(')').ok_or_else(|| {
                ParseError::new(FIELD, whole, format!("unclosed '(' in \"{tok}\""))
            })?;
            let n: u8 = inner
                .parse()
                .ok()
                .filter(|n| (1..=4).contains(n))
                .ok_or_else(|| ParseError::new(FIELD, whole, format!("bad count in \"{tok}\"")))?;
            (&tok[..i], n)
        }
        None => (tok, 1),
    };
    let parts: Vec<&str> = body.split('/').collect();
    if parts.len() < 2 {
        return Err(ParseError::new(
            FIELD,
            whole,
            format!("\"{tok}\" is not FROM/TO"),
        ));
    }
    let from = point(parts[0].trim_end_matches('*'), whole, true)?;
    let mut starred = Vec::new();
    let mut landings = Vec::new();
    let mut to = from;
    for p in &parts[1..] {
        let star = p.ends_with('*');
        to = point(p.trim_end_matches('*'), whole, false)?;
        landings.push(to);
        if star {
            starred.push(to);
        }
    }
    if to >= from {
        return Err(ParseError::new(
            FIELD,
            whole,
            format!("\"{tok}\" does not move forward"),
        ));
    }
    Ok(Written {
        from,
        to,
        starred,
        landings,
        count,
    })
}

/// Finds the legal play of `dice` in `pos` that `text` describes. An empty
/// text (or `Cannot Move`) is the pass, legal only when nothing else is.
pub fn parse_move(pos: &Position, dice: Dice, text: &str) -> Result<Candidate, ParseError> {
    let legal = legal_moves(pos, dice);
    let trimmed = text.trim();
    let describe = |legal: &[Candidate]| -> String {
        let shown: Vec<String> = legal.iter().take(6).map(|c| c.mv.to_string()).collect();
        let more = if legal.len() > 6 { ", ..." } else { "" };
        format!("legal plays of {dice}: {}{more}", shown.join(", "))
    };
    if trimmed.is_empty() || trimmed.eq_ignore_ascii_case("cannot move") {
        return if legal.len() == 1 && legal[0].mv.is_empty() {
            Ok(legal[0])
        } else {
            Err(ParseError::new(
                FIELD,
                text,
                format!("a play is possible; {}", describe(&legal)),
            ))
        };
    }
    let mut counts = *pos.me.counts();
    let mut starred = Vec::new();
    let mut landings = Vec::new();
    for tok in trimmed.split_whitespace() {
        let w = parse_token(tok, text)?;
        for _ in 0..w.count {
            if counts[w.from] == 0 {
                return Err(ParseError::new(
                    FIELD,
                    text,
                    format!(
                        "no checker left to move from {}",
                        if w.from == BAR {
                            "the bar".to_string()
                        } else {
                            w.from.to_string()
                        }
                    ),
                ));
            }
            counts[w.from] -= 1;
            counts[w.to] += 1;
        }
        starred.extend(w.starred);
        landings.extend(w.landings);
    }
    let matching: Vec<&Candidate> = legal
        .iter()
        .filter(|c| c.position.me.counts() == &counts)
        .collect();
    let distance = |c: &Candidate| {
        let hit_points: Vec<usize> =
            c.mv.steps()
                .filter(|s| s.hit)
                .map(|s| s.to as usize)
                .collect();
        let finals: Vec<usize> = counts
            .iter()
            .enumerate()
            .filter(|(_, &n)| n > 0)
            .map(|(i, _)| i)
            .collect();
        // Hits where a checker is written to land are implied (per-step
        // dialects mark none); a written landing the play never makes, a
        // mark it does not hit, or a hit elsewhere, each counts against.
        let tos: Vec<usize> = c.mv.steps().map(|s| s.to as usize).collect();
        hit_points
            .iter()
            .filter(|p| !starred.contains(p) && !finals.contains(p) && !landings.contains(p))
            .count()
            + starred.iter().filter(|p| !hit_points.contains(p)).count()
            + landings.iter().filter(|p| !tos.contains(p)).count()
    };
    match matching.iter().map(|c| distance(c)).min() {
        None => Err(ParseError::new(
            FIELD,
            text,
            format!("not a legal play; {}", describe(&legal)),
        )),
        Some(best) => {
            let chosen: Vec<&&Candidate> =
                matching.iter().filter(|c| distance(c) == best).collect();
            if chosen.len() > 1 {
                return Err(ParseError::new(
                    FIELD,
                    text,
                    "ambiguous: mark the hits with '*' to choose",
                ));
            }
            Ok(**chosen[0])
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_dialects() {
        let s = Position::start();
        let d = Dice::new(3, 1).unwrap();
        let a = parse_move(&s, d, "8/5 6/5").unwrap();
        let b = parse_move(&s, d, "6/5 8/5").unwrap();
        assert_eq!(a, b);
        let d = Dice::new(6, 5).unwrap();
        let run = parse_move(&s, d, "24/13").unwrap();
        assert_eq!(
            run.position,
            parse_move(&s, d, "24/18 18/13").unwrap().position
        );
        assert_eq!(run.mv.to_string(), "24/13");
        let d = Dice::new(6, 6).unwrap();
        let m = parse_move(&s, d, "24/18(2) 13/7(2)").unwrap();
        assert_eq!(m.mv.to_string(), "24/18(2) 13/7(2)");
        assert!(parse_move(&s, Dice::new(3, 1).unwrap(), "8/3").is_err());
        assert!(parse_move(&s, Dice::new(3, 1).unwrap(), "").is_err());
        assert!(parse_move(&s, Dice::new(3, 1).unwrap(), "x/5").is_err());
    }

    #[test]
    fn every_legal_play_reads_back() {
        let s = Position::start();
        for dice in Dice::all_21() {
            for c in legal_moves(&s, dice) {
                let back = parse_move(&s, dice, &c.mv.to_string()).unwrap();
                assert_eq!(back.position, c.position, "{dice} {}", c.mv);
            }
        }
    }
}
