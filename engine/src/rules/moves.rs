//! A checker play: up to four single-die steps, and its gnubg-style notation.

use std::fmt;

use crate::rules::position::BAR;

/// One checker moving one die: `from` 1..=25 (25 = the bar), `to` 0..=24
/// (0 = borne off), both in the mover's numbering.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct Step {
    /// Start index (25 = bar).
    pub from: u8,
    /// Landing index (0 = off).
    pub to: u8,
    /// Whether it hit an opposing blot.
    pub hit: bool,
}

/// A whole play of one roll: zero to four [`Step`]s in the order played.
/// The empty move is the pass of a player who cannot move.
///
/// Packed into one `u64` (11 bits a step: from 5, to 5, hit 1; the count in
/// bits 60..63) so that extending a move during generation is register
/// arithmetic, not byte stores.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct Move {
    bits: u64,
}

const STEP_BITS: u32 = 11;
const LEN_SHIFT: u32 = 60;

impl Step {
    #[inline(always)]
    fn pack(self) -> u64 {
        u64::from(self.from) | (u64::from(self.to) << 5) | (u64::from(self.hit) << 10)
    }

    #[inline(always)]
    fn unpack(b: u64) -> Step {
        Step {
            from: (b & 31) as u8,
            to: ((b >> 5) & 31) as u8,
            hit: (b >> 10) & 1 == 1,
        }
    }
}

impl Move {
    /// The pass.
    pub const EMPTY: Move = Move { bits: 0 };

    /// The steps in the order played.
    pub fn steps(self) -> impl Iterator<Item = Step> {
        (0..self.len() as u32).map(move |i| Step::unpack(self.bits >> (i * STEP_BITS)))
    }

    /// Whether this is the pass.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Number of dice played.
    #[inline(always)]
    pub fn len(&self) -> usize {
        (self.bits >> LEN_SHIFT) as usize
    }

    #[inline(always)]
    pub(crate) fn with(self, step: Step) -> Move {
        let n = self.len() as u32;
        Move {
            bits: (self.bits | (step.pack() << (n * STEP_BITS))) + (1 << LEN_SHIFT),
        }
    }

    /// Builds a move from steps (at most four are kept).
    pub fn from_steps(steps: &[Step]) -> Move {
        steps.iter().take(4).fold(Move::EMPTY, |m, &s| m.with(s))
    }

    /// Whether any step hits.
    pub fn hits(&self) -> bool {
        self.steps().any(|s| s.hit)
    }

    /// Checker paths as gnubg prints them: each checker's steps joined into
    /// one segment (keeping intermediate points only where it hit), largest
    /// start first, equal segments counted.
    pub fn segments(&self) -> Vec<(Segment, u8)> {
        let mut steps: Vec<Step> = self.steps().collect();
        // Descending start, then descending landing: a canonical order.
        steps.sort_by_key(|s| std::cmp::Reverse((s.from, s.to)));
        let mut used = [false; 4];
        let mut segs: Vec<Segment> = Vec::new();
        for i in 0..steps.len() {
            if used[i] {
                continue;
            }
            used[i] = true;
            let mut seg = Segment {
                from: steps[i].from,
                points: [0; 4],
                hits: [false; 4],
                len: 1,
            };
            seg.points[0] = steps[i].to;
            seg.hits[0] = steps[i].hit;
            let mut at = steps[i].to;
            while at != 0 {
                let next = (0..steps.len()).find(|&j| !used[j] && steps[j].from == at);
                match next {
                    Some(j) => {
                        used[j] = true;
                        seg.points[seg.len as usize] = steps[j].to;
                        seg.hits[seg.len as usize] = steps[j].hit;
                        seg.len += 1;
                        at = steps[j].to;
                    }
                    None => break,
                }
            }
            segs.push(seg);
        }
        let mut out: Vec<(Segment, u8)> = Vec::new();
        for s in segs {
            match out.iter_mut().find(|(o, _)| o.display_eq(&s)) {
                Some((_, n)) => *n += 1,
                None => out.push((s, 1)),
            }
        }
        out
    }
}

/// One checker's path within a move.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Segment {
    /// Start index (25 = bar).
    pub from: u8,
    points: [u8; 4],
    hits: [bool; 4],
    len: u8,
}

impl Segment {
    /// Final landing index (0 = off).
    pub fn to(&self) -> u8 {
        self.points[self.len as usize - 1]
    }

    /// The landing points shown: hits in the middle and the destination.
    fn shown(&self) -> impl Iterator<Item = (u8, bool)> + '_ {
        let last = self.len as usize - 1;
        (0..=last)
            .filter(move |&i| i == last || self.hits[i])
            .map(move |i| (self.points[i], self.hits[i]))
    }

    fn display_eq(&self, other: &Segment) -> bool {
        self.from == other.from && self.shown().eq(other.shown())
    }
}

fn point_name(i: u8) -> String {
    match i as usize {
        BAR => "bar".to_string(),
        0 => "off".to_string(),
        p => p.to_string(),
    }
}

impl Move {
    /// Every step written out as numbers, `8/5 6/5`, `25/22 6/0`: the plain
    /// form engine protocols exchange (UBGI, gnubg's external player; bar
    /// 25, off 0, no hit marks, no `(2)`). The pass is the empty string.
    pub fn steps_text(&self) -> String {
        let parts: Vec<String> = self
            .steps()
            .map(|s| format!("{}/{}", s.from, s.to))
            .collect();
        parts.join(" ")
    }
}

impl fmt::Display for Move {
    /// gnubg notation: `24/18 13/11`, `bar/22*`, `6/off`, `8/5(2)`, `24/18*/13`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for (seg, n) in self.segments() {
            if !first {
                f.write_str(" ")?;
            }
            first = false;
            f.write_str(&point_name(seg.from))?;
            for (p, hit) in seg.shown() {
                write!(f, "/{}", point_name(p))?;
                if hit {
                    f.write_str("*")?;
                }
            }
            if n > 1 {
                write!(f, "({n})")?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn st(from: u8, to: u8, hit: bool) -> Step {
        Step { from, to, hit }
    }

    #[test]
    fn formats_like_gnubg() {
        let m = Move::from_steps(&[st(24, 18, false), st(13, 11, false)]);
        assert_eq!(m.to_string(), "24/18 13/11");
        let m = Move::from_steps(&[st(25, 22, true)]);
        assert_eq!(m.to_string(), "bar/22*");
        let m = Move::from_steps(&[st(6, 0, false)]);
        assert_eq!(m.to_string(), "6/off");
        let m = Move::from_steps(&[
            st(8, 5, false),
            st(8, 5, false),
            st(6, 3, false),
            st(6, 3, false),
        ]);
        assert_eq!(m.to_string(), "8/5(2) 6/3(2)");
        let m = Move::from_steps(&[st(24, 18, false), st(18, 13, false)]);
        assert_eq!(m.to_string(), "24/13");
        let m = Move::from_steps(&[st(24, 18, true), st(18, 13, false)]);
        assert_eq!(m.to_string(), "24/18*/13");
        let m = Move::from_steps(&[
            st(24, 18, false),
            st(24, 18, false),
            st(18, 12, false),
            st(18, 12, false),
        ]);
        assert_eq!(m.to_string(), "24/12(2)");
        assert_eq!(Move::EMPTY.to_string(), "");
        assert_eq!(m.steps_text(), "24/18 24/18 18/12 18/12");
        let m = Move::from_steps(&[st(25, 22, true), st(6, 0, false)]);
        assert_eq!(m.steps_text(), "25/22 6/0");
    }
}
