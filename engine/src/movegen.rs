//! Legal-move generation: exactly one move per distinct resulting position.
//!
//! A depth-first walk plays one die at a time on the board in place
//! (make/unmake). The
//! rules' "use as many dice as possible, else the higher die" becomes a
//! filter on (dice played, pips of dice played) at the leaves, as only
//! complete plays are kept.
//!
//! Duplicates are avoided two ways:
//! - doubles: steps are generated with non-increasing start points, which
//!   visits each multiset of steps once; different multisets give different
//!   boards (checker flow along a chain of points is unique), so no
//!   duplicate arises at all, and the last step is made straight on the
//!   stored copy;
//! - other rolls: both die orders are walked. The low-die-first walk skips
//!   plays of two different checkers that the first walk already made (both
//!   steps were legal from the start). Every complete play is checked
//!   against the list by an order-free fingerprint, confirmed by comparing
//!   boards (a 64-bit filter of fingerprints skips most of those scans):
//!   one checker taking both dice, hits and bar entries can give the same
//!   board by two paths. Nothing is allocated once the [`MoveList`] has
//!   warmed up.

use crate::dice::Dice;
use crate::moves::{Move, Step};
use crate::position::{Checkers, Position, BAR, HOME_MASK};

/// A legal play and the board it leaves (still seen from the mover; call
/// [`Position::swapped`] to hand the roll over).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Candidate {
    /// The play.
    pub mv: Move,
    /// The board after it, from the mover's side.
    pub position: Position,
}

/// Reusable output buffer of [`generate`]. Keep one per thread and pass it to
/// every call: its storage is reused, so generation does not allocate.
#[derive(Clone, Debug)]
pub struct MoveList {
    cands: Vec<Candidate>,
    keys: Vec<u64>,
    /// One bit per key's low six bits: a clear bit proves a fingerprint is
    /// new without scanning `keys`.
    seen: u64,
    best_dice: u8,
    best_pips: u8,
}

impl Default for MoveList {
    fn default() -> Self {
        MoveList::new()
    }
}

impl MoveList {
    /// An empty list.
    pub fn new() -> MoveList {
        MoveList {
            cands: Vec::with_capacity(64),
            keys: Vec::with_capacity(64),
            seen: 0,
            best_dice: 0,
            best_pips: 0,
        }
    }

    /// The legal plays of the last [`generate`] call.
    #[inline]
    pub fn as_slice(&self) -> &[Candidate] {
        &self.cands
    }

    /// Number of legal plays (a pass counts as one).
    #[inline]
    pub fn len(&self) -> usize {
        self.cands.len()
    }

    /// Whether the list holds nothing (only before the first call).
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.cands.is_empty()
    }

    /// Iterates over the legal plays.
    pub fn iter(&self) -> std::slice::Iter<'_, Candidate> {
        self.cands.iter()
    }

    fn reset(&mut self) {
        self.cands.clear();
        self.keys.clear();
        self.seen = 0;
        self.best_dice = 0;
        self.best_pips = 0;
    }

    /// Whether a play with this fingerprint and board is already listed.
    /// Equal fingerprints are confirmed by comparing boards, so a collision
    /// cannot lose a play.
    fn contains(&self, key: u64, position: &Position) -> bool {
        if self.seen & (1 << (key & 63)) == 0 {
            return false;
        }
        self.keys
            .iter()
            .zip(&self.cands)
            .any(|(&k, c)| k == key && c.position == *position)
    }

    /// Whether a play using `dice_used` dice for `pips` pips may be kept:
    /// plays using fewer dice or pips than the best so far are dropped, and
    /// a better play empties the list.
    #[inline(always)]
    fn admit(&mut self, dice_used: u8, pips: u8) -> bool {
        if dice_used < self.best_dice || (dice_used == self.best_dice && pips < self.best_pips) {
            return false;
        }
        if dice_used > self.best_dice || pips > self.best_pips {
            self.cands.clear();
            self.keys.clear();
            self.seen = 0;
            self.best_dice = dice_used;
            self.best_pips = pips;
        }
        true
    }

    /// Offers a complete play; keeps only plays using the most dice, then
    /// the most pips (which is the higher die when only one can be used).
    #[inline]
    fn offer(
        &mut self,
        mv: Move,
        key: u64,
        position: &Position,
        dice_used: u8,
        pips: u8,
        dedupe: bool,
    ) {
        if !self.admit(dice_used, pips) {
            return;
        }
        let cand = Candidate {
            mv,
            position: *position,
        };
        if dedupe && self.contains(key, position) {
            return;
        }
        self.cands.push(cand);
        self.keys.push(key);
        self.seen |= 1 << (key & 63);
    }
}

impl MoveList {
    /// Stores a complete play whose last step is not yet made: the board is
    /// copied once, straight into the list, and the step made on the copy
    /// (cheaper than making it on the walk's board, storing a copy and
    /// taking it back). Only for plays that need no duplicate check.
    #[inline(always)]
    fn push_leaf(
        &mut self,
        pos: &Position,
        step: Step,
        mv: Move,
        key: u64,
        dice_used: u8,
        pips: u8,
    ) {
        if !self.admit(dice_used, pips) {
            return;
        }
        self.cands.push(Candidate {
            mv: mv.with(step),
            position: *pos,
        });
        let last = self.cands.last_mut().expect("just pushed");
        make(&mut last.position, step.from as usize, step.to as usize);
        self.keys.push(key);
        self.seen |= 1 << (key & 63);
    }
}

struct Walk<'a> {
    /// My points the opponent holds with two or more (constant during a
    /// call: my moves never change them, hits only take blots).
    blocked: u32,
    dice: [u8; 4],
    n_dice: usize,
    doubles: bool,
    /// Second die order of a non-double roll: skip second steps whose play
    /// the first order already produced (see [`Walk::go`]).
    second_order: bool,
    /// The starting board had no checker on the bar.
    bar_free: bool,
    out: &'a mut MoveList,
}

impl Walk<'_> {
    /// Plays die `depth` on `pos` in place (make/unmake keeps the walk free
    /// of board copies until a complete play is stored).
    fn go(
        &mut self,
        pos: &mut Position,
        depth: usize,
        max_from: usize,
        mv: Move,
        key: u64,
        pips: u8,
    ) {
        if depth == self.n_dice {
            self.out
                .offer(mv, key, pos, depth as u8, pips, !self.doubles);
            return;
        }
        let d = self.dice[depth] as usize;
        let mut moved = false;
        if pos.me.bar() > 0 {
            let to = BAR - d;
            if self.blocked & (1 << to) == 0 {
                let step = make(pos, BAR, to);
                self.go(
                    pos,
                    depth + 1,
                    BAR,
                    mv.with(step),
                    key.wrapping_add(step_key(step)),
                    pips + d as u8,
                );
                unmake(pos, step);
                moved = true;
            }
        } else {
            let mut froms = pos.me.occupied() & ((2u32 << max_from) - 1);
            let all_home = pos.me.occupied() & !HOME_MASK == 0;
            let highest = pos.me.highest();
            // Low die first, now the high die: when neither step bears off,
            // nothing started on the bar and this checker is not the one
            // just moved, the high-first order played the same two steps
            // (both were legal from the start), so the play is a duplicate.
            let first = mv.last_step();
            let prune = self.second_order && depth == 1 && self.bar_free && first.to != 0;
            while froms != 0 {
                let from = (31 - froms.leading_zeros()) as usize;
                froms &= !(1 << from);
                let to = if from > d {
                    let to = from - d;
                    if self.blocked & (1 << to) != 0 {
                        continue;
                    }
                    to
                } else {
                    // Bearing off: all home, and exact or from the highest point.
                    if !all_home || (from < d && from != highest) {
                        continue;
                    }
                    0
                };
                if prune && to != 0 && from != first.to as usize {
                    moved = true;
                    continue;
                }
                if depth + 1 == self.n_dice && self.doubles {
                    // The last die of a play that cannot repeat an earlier one.
                    let hit = to != 0 && pos.opp.at(BAR - to) == 1;
                    let step = Step {
                        from: from as u8,
                        to: to as u8,
                        hit,
                    };
                    self.out.push_leaf(
                        pos,
                        step,
                        mv,
                        key.wrapping_add(step_key(step)),
                        (depth + 1) as u8,
                        pips + d as u8,
                    );
                    moved = true;
                    continue;
                }
                let step = make(pos, from, to);
                let next_max = if self.doubles { from } else { BAR };
                self.go(
                    pos,
                    depth + 1,
                    next_max,
                    mv.with(step),
                    key.wrapping_add(step_key(step)),
                    pips + d as u8,
                );
                unmake(pos, step);
                moved = true;
            }
        }
        if !moved {
            self.out
                .offer(mv, key, pos, depth as u8, pips, !self.doubles);
        }
    }
}

/// Random 64-bit values per index, for fingerprints (splitmix64 of the index).
const fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

const fn table(salt: u64) -> [u64; 26] {
    let mut t = [0u64; 26];
    let mut i = 0;
    while i < 26 {
        t[i] = splitmix(salt * 64 + i as u64);
        i += 1;
    }
    t
}

const CHECKER_AT: [u64; 26] = table(1);
const HIT_AT: [u64; 26] = table(2);

/// A step's share of a play's fingerprint: the fingerprint (wrapping sum
/// over steps) depends only on the mover's net checker change and the set
/// of hit points, so both die orders and both paths of one checker give
/// the same key when they give the same board.
#[inline(always)]
fn step_key(step: Step) -> u64 {
    let hit = if step.hit {
        HIT_AT[step.to as usize]
    } else {
        0
    };
    CHECKER_AT[step.to as usize]
        .wrapping_sub(CHECKER_AT[step.from as usize])
        .wrapping_add(hit)
}

/// Plays one checker from `from` to `to` (0 = off), hitting a blot there.
#[inline(always)]
fn make(pos: &mut Position, from: usize, to: usize) -> Step {
    pos.me.shift(from, to);
    let hit = to != 0 && pos.opp.at(BAR - to) == 1;
    if hit {
        pos.opp.shift(BAR - to, BAR);
    }
    Step {
        from: from as u8,
        to: to as u8,
        hit,
    }
}

/// Takes back a step played by [`make`].
#[inline(always)]
fn unmake(pos: &mut Position, step: Step) {
    let (from, to) = (step.from as usize, step.to as usize);
    if step.hit {
        pos.opp.shift(BAR, BAR - to);
    }
    pos.me.shift(to, from);
}

/// Fills `out` with every legal play of `dice` in `pos`, one per distinct
/// resulting board. When nothing is legal it holds the single empty move.
pub fn generate(pos: &Position, dice: Dice, out: &mut MoveList) {
    out.reset();
    let blocked = Checkers::mirrored(pos.opp.made());
    let mut work = *pos;
    if dice.is_double() {
        let d = dice.high();
        let mut walk = Walk {
            blocked,
            dice: [d; 4],
            n_dice: 4,
            doubles: true,
            second_order: false,
            bar_free: pos.me.bar() == 0,
            out,
        };
        walk.go(&mut work, 0, BAR, Move::EMPTY, 0, 0);
    } else {
        let (h, l) = (dice.high(), dice.low());
        let mut walk = Walk {
            blocked,
            dice: [h, l, 0, 0],
            n_dice: 2,
            doubles: false,
            second_order: false,
            bar_free: pos.me.bar() == 0,
            out,
        };
        walk.go(&mut work, 0, BAR, Move::EMPTY, 0, 0);
        walk.dice = [l, h, 0, 0];
        walk.second_order = true;
        walk.go(&mut work, 0, BAR, Move::EMPTY, 0, 0);
    }
    if out.cands.is_empty() || out.best_dice == 0 {
        out.cands.clear();
        out.cands.push(Candidate {
            mv: Move::EMPTY,
            position: *pos,
        });
    }
}

/// Convenience: the legal plays in a fresh vector (allocates; hot loops
/// should reuse a [`MoveList`]).
pub fn legal_moves(pos: &Position, dice: Dice) -> Vec<Candidate> {
    let mut list = MoveList::new();
    generate(pos, dice, &mut list);
    list.cands
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opening_counts_match_gnubg() {
        // gnubg-nn: 31 → 16, 66 → 11... counted from the opening position.
        let start = Position::start();
        let n = |a, b| legal_moves(&start, Dice::new(a, b).unwrap()).len();
        assert_eq!(n(3, 1), 16);
        assert_eq!(n(6, 5), 7);
        assert_eq!(n(1, 1), 42);
    }

    #[test]
    fn closed_board_dance_is_one_empty_move() {
        let mut opp = [0u8; 24];
        opp[..6].iter_mut().for_each(|p| *p = 2);
        opp[10] = 3;
        let mut me = [0u8; 24];
        me[5] = 13;
        let pos = Position::from_sides(&me, 2, &opp, 0).unwrap();
        let moves = legal_moves(&pos, Dice::new(3, 1).unwrap());
        assert_eq!(moves.len(), 1);
        assert!(moves[0].mv.is_empty());
        assert_eq!(moves[0].position, pos);
    }
}
