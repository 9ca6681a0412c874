//! Legal-move generation: exactly one move per distinct resulting position.
//!
//! A depth-first walk plays one die at a time. Boards are values: a step
//! is two vector operations on the 32-byte counts ([`Checkers`]), and the
//! start points a die can be played from come as one bit mask per die and
//! board (open landing points are the board's occupancy minus the
//! opponent's points shifted by the die). The rules' "use as many dice as
//! possible, else the higher die" becomes a filter on (dice played, pips of
//! dice played) at the leaves, as only complete plays are kept.
//!
//! Duplicates are avoided by construction where possible:
//! - doubles: steps are generated with non-increasing start points, which
//!   visits each multiset of steps once; different multisets give different
//!   boards (checker flow along a chain of points is unique), so no
//!   duplicate arises at all;
//! - other rolls: both die orders are walked. Within one order, two plays
//!   give the same board only when the second checker lands where the first
//!   started (`8/6 6/3` is `8/3`). The low-die-first walk skips plays of two
//!   different checkers that the first walk already made (both steps were
//!   legal from the start). A single checker's two-step play duplicates the
//!   other order's exactly when the other intermediate point is open and
//!   neither intermediate point holds a blot; those are skipped outright.
//!   The few remaining doubtful plays (bar entries, bear-offs) are looked
//!   up by an order-free fingerprint, confirmed by comparing boards (a
//!   256-bit filter of fingerprints skips most lookups).
//!
//! Nothing is allocated once the [`MoveList`] has warmed up.

use crate::rules::dice::Dice;
use crate::rules::moves::{Move, Step};
use crate::rules::position::{Checkers, Position, BAR, HOME_MASK};

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
    /// One bit per value of a key's top eight bits: a clear bit proves a
    /// fingerprint is new without scanning `keys`.
    seen: [u64; 4],
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
            seen: [0; 4],
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
        self.seen = [0; 4];
        self.best_dice = 0;
        self.best_pips = 0;
    }

    /// Whether a play with this fingerprint and board is already listed.
    /// Equal fingerprints are confirmed by comparing boards, so a collision
    /// cannot lose a play.
    fn contains(&self, key: u64, position: &Position) -> bool {
        if self.seen[(key >> 62) as usize] & (1 << ((key >> 56) & 63)) == 0 {
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
            self.seen = [0; 4];
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
        self.seen[(key >> 62) as usize] |= 1 << ((key >> 56) & 63);
    }
}

impl MoveList {
    /// Stores a complete play whose last step is not yet made: the board is
    /// copied once, straight into the list, and the step made on the copy
    /// (cheaper than making it on the walk's board, storing a copy and
    /// taking it back). With `dedupe`, a board already listed is taken
    /// out again.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn push_leaf(
        &mut self,
        pos: &Position,
        step: Step,
        mv: Move,
        key: u64,
        dice_used: u8,
        pips: u8,
        dedupe: bool,
    ) {
        if !self.admit(dice_used, pips) {
            return;
        }
        let board = after(pos, step);
        if dedupe && self.contains(key, &board) {
            return;
        }
        self.cands.push(Candidate {
            mv: mv.with(step),
            position: board,
        });
        self.keys.push(key);
        self.seen[(key >> 62) as usize] |= 1 << ((key >> 56) & 63);
    }
}

/// The start indices from which die `d` can be played now: a bar checker
/// must enter first; otherwise every checker whose landing point is open,
/// plus, with all checkers home, the exact bear-off and the bear-off from
/// the highest point when the die is larger. One mask per die and board
/// replaces a test per occupied point.
#[inline(always)]
fn froms_for(occ: u32, d: usize, blocked: u32) -> u32 {
    if occ & (1 << BAR) != 0 {
        return if blocked & (1 << (BAR - d)) == 0 {
            1 << BAR
        } else {
            0
        };
    }
    let mut f = occ & !(blocked << d) & !((2u32 << d) - 1);
    if occ != 0 && occ & !HOME_MASK == 0 {
        f |= occ & (1 << d);
        let highest = (31 - occ.leading_zeros()) as usize;
        if highest < d {
            f |= 1 << highest;
        }
    }
    f
}

/// The mover's occupancy after `step` from a board where `count` checkers
/// stood on its start point: kept up to date from bits instead of being
/// recomputed from the new board.
#[inline(always)]
fn occupancy_after(occ: u32, step: Step, count: u8) -> u32 {
    let vacated = u32::from(count == 1) << step.from;
    let landed = u32::from(step.to != 0) << step.to;
    (occ & !vacated) | landed
}

/// The landing index of die `d` played from `from` (0 = borne off).
#[inline(always)]
fn landing(from: usize, d: usize) -> usize {
    from.saturating_sub(d)
}

/// The step die `d` makes from `from`, before it is made; `blots` holds the
/// opponent's single checkers in the mover's numbering.
#[inline(always)]
fn step_on(blots: u32, from: usize, d: usize) -> Step {
    let to = landing(from, d);
    Step {
        from: from as u8,
        to: to as u8,
        hit: blots & (1 << to) != 0,
    }
}

/// The opponent's blots in the mover's numbering. Within one play they
/// only ever disappear (a hit takes one), so they are computed once per
/// call and updated by clearing bits.
#[inline(always)]
fn opp_blots(pos: &Position) -> u32 {
    Checkers::mirrored(pos.opp.occupied() & !pos.opp.made())
}

/// The blots left after `step`.
#[inline(always)]
fn blots_after(blots: u32, step: Step) -> u32 {
    blots & !(u32::from(step.hit) << step.to)
}

/// Every play of a non-double roll with die `first` played before `second`.
/// Within one order two plays give one board only when the second checker
/// lands where the first started (`8/6 6/3` is `8/3`); the second order
/// only adds what the first could not play (see the module doc). Where the
/// duplicate is certain it is skipped, where it is possible it is looked
/// up, elsewhere the play is stored unchecked.
fn pair(
    out: &mut MoveList,
    pos: &Position,
    blocked: u32,
    (first, second): (usize, usize),
    second_order: bool,
) {
    let bar_free = pos.me.bar() == 0;
    let blots = opp_blots(pos);
    let occ = pos.me.occupied();
    let mut f1 = froms_for(occ, first, blocked);
    while f1 != 0 {
        let a = (31 - f1.leading_zeros()) as usize;
        f1 &= !(1 << a);
        let s1 = step_on(blots, a, first);
        let blots1 = blots_after(blots, s1);
        let p1 = after(pos, s1);
        let mv1 = Move::EMPTY.with(s1);
        let key1 = step_key(s1);
        let all2 = froms_for(occupancy_after(occ, s1, pos.me.at(a)), second, blocked);
        if all2 == 0 {
            out.offer(mv1, key1, &p1, 1, first as u8, second_order);
        }
        let mut f2 = all2;
        if second_order && bar_free && s1.to != 0 {
            // Steps of another checker off the board were both legal from
            // the start, so the first order played them: keep the same
            // checker's continuation and bear-offs.
            f2 &= (1 << s1.to) | ((2u32 << second) - 1);
        }
        while f2 != 0 {
            let b = (31 - f2.leading_zeros()) as usize;
            f2 &= !(1 << b);
            let s2 = step_on(blots1, b, second);
            // Whether the board is surely listed already (skip it), or may
            // be (look it up); the single-checker path through an open
            // point without a blot gives the same board as the chain.
            let open = |p: usize| (blocked | blots) & (1 << p) == 0;
            let (listed, check) = if !second_order {
                let chain = b == a + second;
                if chain && s1.to != 0 {
                    (open(b - first), false)
                } else {
                    (false, chain)
                }
            } else if bar_free && s1.to != 0 && b == s1.to as usize && s2.to != 0 {
                (!s1.hit && open(a - second), true)
            } else {
                (false, true)
            };
            if listed {
                continue;
            }
            out.push_leaf(
                &p1,
                s2,
                mv1,
                key1.wrapping_add(step_key(s2)),
                2,
                (first + second) as u8,
                check,
            );
        }
    }
}

/// The low-die-first order of a non-double roll when no checker is on the
/// bar and at least two points outside the home board are held (so no step
/// of this roll can bear off): only a checker continuing with the high die,
/// or a low step after which the high die cannot be played, can add a play
/// (see [`pair`]), and both are found from masks without building the
/// intermediate board.
fn second_order_plain(
    out: &mut MoveList,
    pos: &Position,
    blocked: u32,
    (low, high): (usize, usize),
) {
    let blots = opp_blots(pos);
    let occ = pos.me.occupied();
    let high_froms = froms_for(occ, high, blocked);
    let open = |p: usize| (blocked | blots) & (1 << p) == 0;
    let mut f1 = froms_for(occ, low, blocked);
    while f1 != 0 {
        let a = (31 - f1.leading_zeros()) as usize;
        f1 &= !(1 << a);
        let s1 = step_on(blots, a, low);
        let to = s1.to as usize;
        let continues = to > high && blocked & (1 << (to - high)) == 0;
        let vacated = if pos.me.at(a) == 1 { 1 << a } else { 0 };
        let playable = high_froms & !vacated != 0 || continues;
        // The same play with the high die first exists when its other
        // intermediate point is open and neither intermediate point held a
        // blot.
        let listed = !s1.hit && open(a - high);
        if playable && (!continues || listed) {
            continue;
        }
        let p1 = after(pos, s1);
        let mv1 = Move::EMPTY.with(s1);
        let key1 = step_key(s1);
        if !playable {
            out.offer(mv1, key1, &p1, 1, low as u8, true);
            continue;
        }
        let s2 = step_on(blots_after(blots, s1), to, high);
        out.push_leaf(
            &p1,
            s2,
            mv1,
            key1.wrapping_add(step_key(s2)),
            2,
            (low + high) as u8,
            true,
        );
    }
}

/// Every play of a double: steps with non-increasing start points.
struct DoublesWalk<'a> {
    blocked: u32,
    die: usize,
    out: &'a mut MoveList,
}

impl DoublesWalk<'_> {
    fn go(
        &mut self,
        pos: &Position,
        (occ, blots): (u32, u32),
        depth: u8,
        max_from: usize,
        mv: Move,
        key: u64,
    ) {
        let d = self.die;
        let mut froms = froms_for(occ, d, self.blocked) & ((2u32 << max_from) - 1);
        if froms == 0 {
            self.out.offer(mv, key, pos, depth, depth * d as u8, false);
            return;
        }
        while froms != 0 {
            let from = (31 - froms.leading_zeros()) as usize;
            froms &= !(1 << from);
            if depth == 3 {
                let step = step_on(blots, from, d);
                self.out.push_leaf(
                    pos,
                    step,
                    mv,
                    key.wrapping_add(step_key(step)),
                    4,
                    4 * d as u8,
                    false,
                );
                continue;
            }
            let step = step_on(blots, from, d);
            self.go(
                &after(pos, step),
                (
                    occupancy_after(occ, step, pos.me.at(from)),
                    blots_after(blots, step),
                ),
                depth + 1,
                from,
                mv.with(step),
                key.wrapping_add(step_key(step)),
            );
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

/// The board after `step` (made by [`step_on`]): the mover's checker moves,
/// a hit blot goes to the bar.
#[inline(always)]
fn after(pos: &Position, step: Step) -> Position {
    let to = step.to as usize;
    Position {
        me: pos.me.moved(step.from as usize, to),
        opp: if step.hit {
            pos.opp.moved(BAR - to, BAR)
        } else {
            pos.opp
        },
    }
}

/// Fills `out` with every legal play of `dice` in `pos`, one per distinct
/// resulting board. When nothing is legal it holds the single empty move.
pub fn generate(pos: &Position, dice: Dice, out: &mut MoveList) {
    out.reset();
    let blocked = Checkers::mirrored(pos.opp.made());
    if dice.is_double() {
        let mut walk = DoublesWalk {
            blocked,
            die: dice.high() as usize,
            out,
        };
        walk.go(
            pos,
            (pos.me.occupied(), opp_blots(pos)),
            0,
            BAR,
            Move::EMPTY,
            0,
        );
    } else {
        let (h, l) = (dice.high() as usize, dice.low() as usize);
        pair(out, pos, blocked, (h, l), false);
        if pos.me.bar() == 0 && (pos.me.occupied() & !HOME_MASK).count_ones() >= 2 {
            second_order_plain(out, pos, blocked, (l, h));
        } else {
            pair(out, pos, blocked, (l, h), true);
        }
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
