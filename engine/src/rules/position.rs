//! The board: checker counts plus occupancy bitboards, always seen from the
//! player on roll.
//!
//! # Layout
//! A [`Position`] holds two [`Checkers`], `me` (the player on roll) and `opp`
//! (the opponent), each in **its own numbering**: index 1..=24 is that side's
//! point 1..24 (point 1 deepest in its home board), index 25 is its bar and
//! index 0 counts the checkers it has borne off. Counts always sum to 15 per
//! side, so conservation is an invariant of the type.
//!
//! The counts are padded to 32 bytes so that the two `u32` bitboards over the
//! same indices, `occupied` (bit i set when index i holds at least one
//! checker) and `made` (at least two), come from the counts in a few SIMD
//! instructions (compare 32 bytes, gather the sign bits) instead of being
//! kept up to date on every step: moving a checker is then two byte
//! updates, and a board is 32 bytes a side. Bit 0 (borne off) is never
//! set. The questions move generation asks become bit operations:
//! - "may I land on my point p": bit p of [`Checkers::mirrored`]`(opp.made)`
//!   is clear (the opponent's point 25-p is mirrored onto my point p);
//! - "all my checkers home": `me.occupied & !HOME_MASK == 0`;
//! - "highest occupied point": `31 - me.occupied.leading_zeros()`;
//! - "on the bar": bit 25.

use crate::rules::error::PositionError;

/// Checkers per side.
pub const CHECKERS: u8 = 15;
/// Index of the bar in [`Checkers::counts`].
pub const BAR: usize = 25;
/// Index of the borne-off tray in [`Checkers::counts`].
pub const OFF: usize = 0;
/// Bits 1..=6: the home board.
pub const HOME_MASK: u32 = 0b111_1110;
/// Bits 1..=24: the points.
pub const POINTS_MASK: u32 = 0x01FF_FFFE;

/// One side's checkers in its own numbering (see the module doc).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Checkers {
    /// Off, points 1..24, bar; indices 26..32 stay zero.
    counts: [u8; 32],
}

/// Bit i set when `counts[i] > k`, for i in 1..=25.
#[inline(always)]
fn mask_above(counts: &[u8; 32], k: u8) -> u32 {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{
            __m128i, _mm_cmpgt_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_set1_epi8,
        };
        // SAFETY: SSE2 is part of the x86_64 baseline; both 16-byte loads
        // stay inside the 32-byte array, and unaligned loads are allowed.
        unsafe {
            let p = counts.as_ptr() as *const __m128i;
            let kk = _mm_set1_epi8(k as i8);
            let lo = _mm_movemask_epi8(_mm_cmpgt_epi8(_mm_loadu_si128(p), kk)) as u32;
            let hi = _mm_movemask_epi8(_mm_cmpgt_epi8(_mm_loadu_si128(p.add(1)), kk)) as u32;
            (lo | (hi << 16)) & POINTS_AND_BAR
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let mut m = 0u32;
        for (i, &c) in counts.iter().enumerate().take(26).skip(1) {
            m |= u32::from(c > k) << i;
        }
        m
    }
}

/// Bit i set when the counts differ at index i, for i in 1..=25.
#[inline(always)]
fn mask_differing(a: &[u8; 32], b: &[u8; 32]) -> u32 {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{__m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8};
        // SAFETY: as in `mask_above`.
        unsafe {
            let (p, q) = (a.as_ptr() as *const __m128i, b.as_ptr() as *const __m128i);
            let lo = _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128(p), _mm_loadu_si128(q)));
            let hi = _mm_movemask_epi8(_mm_cmpeq_epi8(
                _mm_loadu_si128(p.add(1)),
                _mm_loadu_si128(q.add(1)),
            ));
            !((lo as u32 & 0xFFFF) | ((hi as u32) << 16)) & POINTS_AND_BAR
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let mut m = 0u32;
        for i in 1..26 {
            m |= u32::from(a[i] != b[i]) << i;
        }
        m
    }
}

/// Row i holds a single 1 at index i: a step's change of the counts is
/// `ONE_HOT[to] - ONE_HOT[from]`, two vector operations.
const ONE_HOT: [[u8; 32]; 26] = {
    let mut t = [[0u8; 32]; 26];
    let mut i = 0;
    while i < 26 {
        t[i][i] = 1;
        i += 1;
    }
    t
};

/// Bits 1..=25: the points and the bar.
const POINTS_AND_BAR: u32 = POINTS_MASK | (1 << BAR);

impl Checkers {
    /// All 15 checkers borne off.
    pub const EMPTY: Checkers = Checkers {
        counts: {
            let mut c = [0u8; 32];
            c[OFF] = CHECKERS;
            c
        },
    };

    /// Builds a side from counts on points 1..24 (index 0..23) and the bar;
    /// the rest are borne off. Fails on more than 15 checkers.
    pub fn from_points(points: &[u8; 24], bar: u8) -> Result<Checkers, PositionError> {
        let on_board: u32 = points.iter().map(|&c| u32::from(c)).sum::<u32>() + u32::from(bar);
        if on_board > u32::from(CHECKERS) {
            return Err(PositionError::TooManyCheckers(on_board));
        }
        let mut c = Checkers::EMPTY;
        c.counts[OFF] = CHECKERS - on_board as u8;
        for (i, &n) in points.iter().enumerate() {
            c.counts[i + 1] = n;
        }
        c.counts[BAR] = bar;
        Ok(c)
    }

    /// Checkers at index `i` (0 = off, 1..=24 points, 25 = bar).
    #[inline]
    pub fn at(&self, i: usize) -> u8 {
        self.counts[i]
    }

    /// All 26 counts: off, points 1..24, bar.
    #[inline]
    pub fn counts(&self) -> &[u8; 26] {
        self.counts.first_chunk().expect("32 >= 26")
    }

    /// Bitboard of the points and bar (indices 1..=25) where `self` and
    /// `other` hold different counts.
    #[inline]
    pub fn differing(&self, other: &Checkers) -> u32 {
        mask_differing(&self.counts, &other.counts)
    }

    /// Bitboard of indices holding at least one checker.
    #[inline]
    pub fn occupied(&self) -> u32 {
        mask_above(&self.counts, 0)
    }

    /// Bitboard of indices holding two or more.
    #[inline]
    pub fn made(&self) -> u32 {
        mask_above(&self.counts, 1)
    }

    /// Checkers on the bar.
    #[inline]
    pub fn bar(&self) -> u8 {
        self.counts[BAR]
    }

    /// Checkers borne off.
    #[inline]
    pub fn off(&self) -> u8 {
        self.counts[OFF]
    }

    /// Whether every checker still in play is in the home board.
    #[inline]
    pub fn all_home(&self) -> bool {
        self.occupied() & !HOME_MASK == 0
    }

    /// Pip count: distance of every checker to off (the bar counts 25).
    pub fn pips(&self) -> u32 {
        (1..=25).map(|i| i as u32 * u32::from(self.counts[i])).sum()
    }

    /// The highest occupied index (25 for the bar), or 0 when all are off.
    #[inline]
    pub fn highest(&self) -> usize {
        (31 - (self.occupied() | 1).leading_zeros()) as usize
    }

    /// Maps a bitboard in this side's numbering onto the other side's
    /// numbering for points 1..24 (point p becomes 25-p); bar and off drop.
    #[inline]
    pub fn mirrored(mask: u32) -> u32 {
        (mask & POINTS_MASK).reverse_bits() >> 6
    }

    /// This side after moving one checker from index `from` to index `to`,
    /// computed as a value: lane-wise arithmetic on the 32 counts, which
    /// the compiler keeps in vector registers (a byte store followed by a
    /// wide load of the same board would stall store forwarding).
    #[inline(always)]
    pub(crate) fn moved(&self, from: usize, to: usize) -> Checkers {
        let (add, sub) = (&ONE_HOT[to], &ONE_HOT[from]);
        let mut counts = [0u8; 32];
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{
                __m128i, _mm_add_epi8, _mm_loadu_si128, _mm_storeu_si128, _mm_sub_epi8,
            };
            // SAFETY: SSE2 is part of the x86_64 baseline; every load and
            // store is one of the two 16-byte halves of a 32-byte array.
            unsafe {
                for half in 0..2 {
                    let at = |a: &[u8; 32]| (a.as_ptr() as *const __m128i).add(half);
                    let v = _mm_sub_epi8(
                        _mm_add_epi8(_mm_loadu_si128(at(&self.counts)), _mm_loadu_si128(at(add))),
                        _mm_loadu_si128(at(sub)),
                    );
                    _mm_storeu_si128((counts.as_mut_ptr() as *mut __m128i).add(half), v);
                }
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        for i in 0..32 {
            counts[i] = self.counts[i].wrapping_add(add[i]).wrapping_sub(sub[i]);
        }
        Checkers { counts }
    }
}

/// A board position from the point of view of the player on roll.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Position {
    /// The player on roll.
    pub me: Checkers,
    /// The opponent.
    pub opp: Checkers,
}

impl Position {
    /// The opening position.
    pub fn start() -> Position {
        let mut points = [0u8; 24];
        points[23] = 2;
        points[12] = 5;
        points[7] = 3;
        points[5] = 5;
        let side = Checkers::from_points(&points, 0).expect("15 checkers");
        Position {
            me: side,
            opp: side,
        }
    }

    /// Builds and validates a position from both sides' points (index 0..23 =
    /// own points 1..24) and bars.
    pub fn from_sides(
        me_points: &[u8; 24],
        me_bar: u8,
        opp_points: &[u8; 24],
        opp_bar: u8,
    ) -> Result<Position, PositionError> {
        let me =
            Checkers::from_points(me_points, me_bar).map_err(|e| e.for_side("player on roll"))?;
        let opp = Checkers::from_points(opp_points, opp_bar).map_err(|e| e.for_side("opponent"))?;
        let pos = Position { me, opp };
        pos.validate()?;
        Ok(pos)
    }

    /// gnubg's consistency checks: no point held by both sides, and not both
    /// sides on the bar against each other's closed board.
    pub fn validate(&self) -> Result<(), PositionError> {
        let clash = self.me.occupied() & Checkers::mirrored(self.opp.occupied());
        if clash != 0 {
            let p = clash.trailing_zeros();
            return Err(PositionError::SharedPoint(p));
        }
        let closed = |c: &Checkers| c.made() & HOME_MASK == HOME_MASK;
        if self.me.bar() > 0 && self.opp.bar() > 0 && closed(&self.me) && closed(&self.opp) {
            return Err(PositionError::BothClosedOut);
        }
        Ok(())
    }

    /// The same position with the other player on roll.
    #[inline]
    pub fn swapped(&self) -> Position {
        Position {
            me: self.opp,
            opp: self.me,
        }
    }

    /// Pip counts (player on roll, opponent).
    pub fn pips(&self) -> (u32, u32) {
        (self.me.pips(), self.opp.pips())
    }

    /// Whether the sides can still hit each other: some checker of mine is
    /// behind some checker of the opponent's.
    pub fn is_contact(&self) -> bool {
        // My rearmost checker on my point h meets the opponent's checkers on
        // its points 25-h+1 ..= 25 (its bar included) — i.e. contact exists
        // when my highest + its highest > 25.
        self.me.highest() + self.opp.highest() > 25
    }

    /// Whether the game is over (someone has borne off all 15).
    pub fn is_game_over(&self) -> bool {
        self.me.off() == CHECKERS || self.opp.off() == CHECKERS
    }

    /// A compact exact key: the 80-bit key of gnubg's Position ID, bit k
    /// of its bit stream in bit k of the integer.
    pub fn key(&self) -> u128 {
        // Point i of a side starts at bit (checkers on its lower points) + (i-1):
        // walk only the occupied points of each side's bitboard.
        let mut key: u128 = 0;
        let mut base = 0u32;
        for side in [&self.opp, &self.me] {
            let mut occ = side.occupied();
            let mut before = 0u32;
            while occ != 0 {
                let i = occ.trailing_zeros();
                occ &= occ - 1;
                let n = u32::from(side.at(i as usize));
                key |= ((1u128 << n) - 1) << (base + before + i - 1);
                before += n;
            }
            base += before + 25;
        }
        key
    }
}

/// A side from (point, checkers) pairs and a bar count (tests only).
#[cfg(test)]
pub(crate) fn test_side(points: &[(usize, u8)], bar: u8) -> Checkers {
    let mut p = [0u8; 24];
    for &(i, n) in points {
        p[i - 1] = n;
    }
    Checkers::from_points(&p, bar).expect("at most 15 checkers")
}

impl Default for Position {
    fn default() -> Self {
        Position::start()
    }
}
