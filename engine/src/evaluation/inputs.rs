//! The network's inputs: the raw board plus a few hand-made features,
//! produced as a sparse list because most of them are zero.
//!
//! # Layouts
//! A weights file names the layout its nets read ([`Layout`]); the shipped
//! net reads layout 3. Each layout is two blocks of inputs, first the player on roll, then the
//! opponent, each in its own numbering:
//! - 4 units for each of points 1..24 and the bar (index 25), gnubg style:
//!   exactly one checker, exactly two, three or more, and `(n-3)/2` above
//!   three. At most two units of a point are non-zero, which keeps the list
//!   short;
//! - borne off / 15;
//! - the hand-made features ([`Layout::features`]): pips / 150, rearmost
//!   checker / 25, rearmost anchor / 24, home points made / 6, longest prime / 6, the share of the
//!   36 rolls with which this side hits a blot of the other, the share
//!   with which its rearmost checker escapes the other's blockade, the
//!   other's containment (the fewest escapes of a checker on any of points
//!   15..24), the share of rolls that fail to enter from the bar, checkers
//!   back in the other's home board / 15, and blots / 15;
//! - layout 3 only, 6 more per side: mobility (landing points one die away
//!   / 40), points made in the other's home board / 3, pips outside the
//!   home board / 150, the share of rolls hitting two blots of the other,
//!   the pips those hits cost (the costliest blot per roll, / 25, / 36),
//!   and home points times outer-board points / 36;
//!
//! The feature arithmetic runs on the position's bitboards: the points a
//! roll reaches are shifts of the occupancy mask, masked by the points the
//! other side has made.

use crate::rules::position::{Checkers, Position, BAR, POINTS_MASK};

/// An input layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Layout {
    /// 216 inputs (11 features per side).
    V2,
    /// 236 inputs (17 features per side): the shipped net's.
    V3,
}

impl Layout {
    /// The id written in weights files.
    pub fn id(self) -> u32 {
        match self {
            Layout::V2 => 2,
            Layout::V3 => 3,
        }
    }

    /// The layout with this id.
    pub fn from_id(id: u32) -> Option<Layout> {
        match id {
            2 => Some(Layout::V2),
            3 => Some(Layout::V3),
            _ => None,
        }
    }

    /// Hand-made features per side.
    pub fn features(self) -> usize {
        match self {
            Layout::V2 => 11,
            Layout::V3 => 17,
        }
    }

    /// Inputs per side.
    pub fn per_side(self) -> usize {
        25 * 4 + 1 + self.features()
    }

    /// Total inputs.
    pub fn inputs(self) -> usize {
        2 * self.per_side()
    }
}

/// The most inputs of any layout.
pub const MAX_INPUTS: usize = 2 * (25 * 4 + 1 + FEATURES_MAX);

/// Inputs per side of [`SparseInputs::fill_board`]: 25 points of 4
/// units, checkers off, pips.
pub const BOARD_PER_SIDE: usize = 102;

/// The non-zero inputs of one position, as (index, value) pairs.
#[derive(Clone, Debug)]
pub struct SparseInputs {
    idx: [u16; MAX_INPUTS],
    val: [f32; MAX_INPUTS],
    len: usize,
}

impl Default for SparseInputs {
    fn default() -> Self {
        SparseInputs {
            idx: [0; MAX_INPUTS],
            val: [0.0; MAX_INPUTS],
            len: 0,
        }
    }
}

impl SparseInputs {
    /// Encodes `pos` in `layout`.
    pub fn encode(pos: &Position, layout: Layout) -> SparseInputs {
        let mut s = SparseInputs::default();
        s.fill(pos, layout);
        s
    }

    /// Re-encodes in place in `layout`.
    pub fn fill(&mut self, pos: &Position, layout: Layout) {
        self.fill_with_tails(pos, layout, &tails(pos, layout));
    }

    /// [`Self::fill`] with both sides' tails already known.
    fn fill_with_tails(&mut self, pos: &Position, layout: Layout, tails: &[Tail; 2]) {
        self.len = 0;
        self.side(&pos.me, &tails[0], 0, layout);
        self.side(&pos.opp, &tails[1], layout.per_side(), layout);
    }

    /// Indices of the non-zero inputs.
    #[inline]
    pub fn indices(&self) -> &[u16] {
        &self.idx[..self.len]
    }

    /// Values of the non-zero inputs, parallel to [`Self::indices`].
    #[inline]
    pub fn values(&self) -> &[f32] {
        &self.val[..self.len]
    }

    /// The number of non-zero inputs.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// No input is non-zero.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The dense vector of `n` inputs (for reference computations and
    /// tests).
    pub fn dense_of(&self, n: usize) -> Vec<f32> {
        let mut d = vec![0.0; n];
        for (&i, &v) in self.indices().iter().zip(self.values()) {
            d[usize::from(i)] = v;
        }
        d
    }

    /// Appends input `i` when `v` is not zero (without a branch: the
    /// slot is written either way, and kept only then).
    #[inline(always)]
    fn push(&mut self, i: usize, v: f32) {
        let at = self.len.min(MAX_INPUTS - 1);
        self.idx[at] = i as u16;
        self.val[at] = v;
        self.len += usize::from(v != 0.0);
    }

    fn side(&mut self, s: &Checkers, t: &Tail, base: usize, layout: Layout) {
        let mut occ = s.occupied();
        while occ != 0 {
            let p = occ.trailing_zeros() as usize;
            occ &= occ - 1;
            let at = base + (p - 1) * 4;
            for (k, u) in point_units(s.at(p)).into_iter().enumerate() {
                self.push(at + k, u);
            }
        }
        for (k, &v) in t[..=layout.features()].iter().enumerate() {
            self.push(base + 100 + k, v);
        }
    }

    /// Encodes `pos` as the play pre-filter reads it
    /// ([`crate::evaluation::prefilter`]): each side's board units as the
    /// nets have them, its checkers borne off and its pip count, and none
    /// of the features, which cost more than such a net's whole pass.
    pub fn fill_board(&mut self, pos: &Position) {
        self.len = 0;
        for (s, base) in [(&pos.me, 0), (&pos.opp, BOARD_PER_SIDE)] {
            let mut occ = s.occupied();
            while occ != 0 {
                let p = occ.trailing_zeros() as usize;
                occ &= occ - 1;
                for (k, u) in point_units(s.at(p)).into_iter().enumerate() {
                    self.push(base + (p - 1) * 4 + k, u);
                }
            }
            self.push(base + 100, f32::from(s.off()) / 15.0);
            self.push(base + 101, s.pips() as f32 / 150.0);
        }
    }

    /// One side's part of [`Self::fill_difference`]: the units of the
    /// points whose counts changed, and the tail's changes.
    fn side_difference(
        &mut self,
        (s, o): (&Checkers, &Checkers),
        (old, old_o, old_tail): (&Checkers, &Checkers, &Tail),
        base: usize,
        layout: Layout,
    ) {
        let mut changed = s.differing(old);
        while changed != 0 {
            let p = changed.trailing_zeros() as usize;
            changed &= changed - 1;
            let (a, b) = (point_units(s.at(p)), point_units(old.at(p)));
            for k in 0..4 {
                self.push(base + (p - 1) * 4 + k, a[k] - b[k]);
            }
        }
        // What depends on a side that did not move is the reference's.
        let mut t = *old_tail;
        if s != old {
            own_features(s, layout, &mut t);
        }
        // Containment reads only the other side's made points.
        if o.made() != old_o.made() {
            t[8] = containment(o) as f32 / 36.0;
        }
        // The cross features read where each side stands, the first side's
        // bar and the second's made points: often as in the reference.
        let same_cross = s.occupied() == old.occupied()
            && s.bar() == old.bar()
            && o.occupied() == old_o.occupied()
            && o.made() == old_o.made();
        if !same_cross {
            cross_features(s, o, layout, &mut t);
        }
        for k in 0..=layout.features() {
            self.push(base + 100 + k, t[k] - old_tail[k]);
        }
    }

    /// Makes `self` the inputs of `pos` less those of `reference`'s
    /// position: only the inputs that differ, with the difference as value.
    /// Cheaper than encoding `pos` and comparing input by input: the
    /// board's units are compared only where a point's count changed.
    pub fn fill_difference(&mut self, pos: &Position, reference: &Reference) {
        self.len = 0;
        let layout = reference.layout;
        let (r, t) = (&reference.pos, &reference.tails);
        self.side_difference((&pos.me, &pos.opp), (&r.me, &r.opp, &t[0]), 0, layout);
        self.side_difference(
            (&pos.opp, &pos.me),
            (&r.opp, &r.me, &t[1]),
            layout.per_side(),
            layout,
        );
    }
}

/// The units of a point holding `n` checkers (see the module doc).
#[inline(always)]
/// A point's four units for `n` checkers of a side: one, two, three or
/// more, and half of each checker past three.
pub(crate) fn point_units(n: u8) -> [f32; 4] {
    match n {
        0 => [0.0; 4],
        1 => [1.0, 0.0, 0.0, 0.0],
        2 => [0.0, 1.0, 0.0, 0.0],
        _ => [0.0, 0.0, 1.0, f32::from(n - 3) * 0.5],
    }
}

/// The inputs of a side after its points: borne off, then the features
/// (as many as the layout has; the rest zero).
type Tail = [f32; 1 + FEATURES_MAX];

/// The most features per side of any layout.
const FEATURES_MAX: usize = 17;

/// Both sides' tails: the player on roll's, then the opponent's.
fn tails(pos: &Position, layout: Layout) -> [Tail; 2] {
    [
        tail(&pos.me, &pos.opp, layout),
        tail(&pos.opp, &pos.me, layout),
    ]
}

fn tail(s: &Checkers, o: &Checkers, layout: Layout) -> Tail {
    let mut t: Tail = [0.0; 1 + FEATURES_MAX];
    own_features(s, layout, &mut t);
    t[8] = containment(o) as f32 / 36.0;
    cross_features(s, o, layout, &mut t);
    t
}

/// The parts of `s`'s tail that depend on `s` alone.
fn own_features(s: &Checkers, layout: Layout, t: &mut Tail) {
    let pips: u32 = (1..=BAR).map(|p| p as u32 * u32::from(s.at(p))).sum();
    t[0] = f32::from(s.off()) / 15.0;
    t[1] = pips as f32 / 150.0;
    t[2] = s.highest() as f32 / 25.0;
    t[3] = highest_bit(s.made() & POINTS_MASK) as f32 / 24.0;
    t[4] = (s.made() & 0b111_1110).count_ones() as f32 / 6.0;
    t[5] = longest_run(s.made() & POINTS_MASK) as f32 / 6.0;
    t[10] = back_checkers(s) as f32 / 15.0;
    t[11] = (s.occupied() & !s.made() & POINTS_MASK).count_ones() as f32 / 15.0;
    if layout != Layout::V2 {
        t[13] = (s.made() & (0x3F << 19)).count_ones() as f32 / 3.0;
        let outside: u32 = (7..=25).map(|i| i as u32 * u32::from(s.at(i))).sum();
        t[14] = outside as f32 / 150.0;
        let home = (s.made() & 0x7E).count_ones() as f32;
        let outer = (s.made() >> 7 & 0x3F).count_ones() as f32;
        t[17] = home * outer / 36.0;
    }
}

/// The parts of `s`'s tail that depend on both sides (containment, which
/// depends on `o` alone, aside).
fn cross_features(s: &Checkers, o: &Checkers, layout: Layout, t: &mut Tail) {
    let hits = shots(s, o);
    t[6] = hits.any as f32 / 36.0;
    t[7] = escapes(s, o) as f32 / 36.0;
    t[9] = if s.bar() > 0 {
        let closed = (o.made() & 0b111_1110).count_ones() as f32 / 6.0;
        closed * closed
    } else {
        0.0
    };
    if layout != Layout::V2 {
        let open = !Checkers::mirrored(o.made()) & POINTS_MASK;
        let board = s.occupied() & POINTS_MASK;
        let mobility: u32 = (1..=6).map(|d| ((board >> d) & open).count_ones()).sum();
        t[12] = mobility as f32 / 40.0;
        t[15] = hits.double as f32 / 36.0;
        t[16] = hits.risk / 36.0;
    }
}

/// A position encoded once, so that nearby positions (its plays) can be
/// encoded by their differences from it ([`SparseInputs::fill_difference`]).
#[derive(Clone, Debug)]
pub struct Reference {
    pos: Position,
    layout: Layout,
    tails: [Tail; 2],
    inputs: SparseInputs,
}

impl Reference {
    /// `pos` encoded in `layout`.
    pub fn new(pos: &Position, layout: Layout) -> Reference {
        let tails = tails(pos, layout);
        let mut inputs = SparseInputs::default();
        inputs.fill_with_tails(pos, layout, &tails);
        Reference {
            pos: *pos,
            layout,
            tails,
            inputs,
        }
    }

    /// The position's inputs.
    pub fn inputs(&self) -> &SparseInputs {
        &self.inputs
    }
}

fn highest_bit(mask: u32) -> u32 {
    if mask == 0 {
        0
    } else {
        31 - mask.leading_zeros()
    }
}

fn longest_run(mut mask: u32) -> u32 {
    let mut n = 0;
    while mask != 0 {
        mask &= mask >> 1;
        n += 1;
    }
    n
}

/// Every roll as (die, die, weight out of 36).
const ROLLS: [(u32, u32, u32); 21] = {
    let mut r = [(0, 0, 0); 21];
    let mut k = 0;
    let mut a = 1;
    while a <= 6 {
        let mut b = a;
        while b <= 6 {
            r[k] = (a, b, if a == b { 1 } else { 2 });
            k += 1;
            b += 1;
        }
        a += 1;
    }
    r
};

/// Points reached (as intermediate or final landings) by checkers starting
/// on `from` with the roll `(a, b)`, landing only on `open`.
#[inline(always)]
fn reach(from: u32, a: u32, b: u32, open: u32) -> u32 {
    if a != b {
        let ra = (from >> a) & open;
        let rb = (from >> b) & open;
        ra | rb | ((ra >> b) & open) | ((rb >> a) & open)
    } else {
        chain(from, a, open, 4)
    }
}

#[inline(always)]
fn chain(from: u32, d: u32, open: u32, steps: u32) -> u32 {
    let mut r = from;
    let mut acc = 0;
    for _ in 0..steps {
        r = (r >> d) & open;
        acc |= r;
    }
    acc
}

/// Points reached by side `s` with roll `(a, b)`, honouring (roughly) that
/// checkers on the bar enter first.
#[inline(always)]
fn side_reach(s: &Checkers, a: u32, b: u32, open: u32) -> u32 {
    let bar = u32::from(s.bar());
    let board = s.occupied() & POINTS_MASK;
    if bar == 0 {
        return reach(board, a, b, open);
    }
    let entry = |d: u32| (1u32 << (BAR as u32 - d)) & open;
    if a == b {
        let e = entry(a);
        if e == 0 || bar >= 4 {
            return e;
        }
        return e | chain(board | e, a, open, 4 - bar);
    }
    let (ea, eb) = (entry(a), entry(b));
    if bar >= 2 {
        return ea | eb;
    }
    let after_a = if ea != 0 {
        ((board | ea) >> b) & open
    } else {
        0
    };
    let after_b = if eb != 0 {
        ((board | eb) >> a) & open
    } else {
        0
    };
    ea | eb | after_a | after_b
}

/// Hitting chances of side `s` against side `o`'s blots.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Shots {
    /// Rolls (out of 36) that hit a blot.
    any: u32,
    /// Rolls that reach two blots.
    double: u32,
    /// Pips the hits cost `o` (the costliest blot per roll, / 25, summed
    /// over the hitting rolls).
    risk: f32,
}

/// [`Shots`] in one pass over the 21 rolls: 16 rolls at a time in
/// AVX-512 lanes where the CPU has them (the same integers), else one
/// roll at a time.
fn shots(s: &Checkers, o: &Checkers) -> Shots {
    let blots = Checkers::mirrored(o.occupied() & !o.made());
    if blots == 0 {
        return Shots::default();
    }
    let open = !Checkers::mirrored(o.made()) & POINTS_MASK;
    #[cfg(target_arch = "x86_64")]
    if shots_avx512_runs() {
        // SAFETY: the features were detected.
        return unsafe { shots_avx512(s, blots, open) };
    }
    shots_portable(s, blots, open)
}

/// Whether this CPU runs [`shots_avx512`].
#[cfg(target_arch = "x86_64")]
#[inline]
fn shots_avx512_runs() -> bool {
    use std::arch::is_x86_feature_detected as has;
    has!("avx512f") && has!("avx512cd")
}

/// [`shots`] one roll at a time, `blots` and `open` (the points a checker
/// may land on) in `s`'s numbering.
fn shots_portable(s: &Checkers, blots: u32, open: u32) -> Shots {
    let bar_free = s.bar() == 0;
    // Landings one die away, computed once for all rolls.
    let occ = s.occupied() & POINTS_MASK;
    let step: [u32; 7] = std::array::from_fn(|d| if d == 0 { 0 } else { (occ >> d) & open });
    let mut out = Shots::default();
    let mut risk = 0u32;
    for &(a, b, w) in &ROLLS {
        let reached = if !bar_free {
            side_reach(s, a, b, open)
        } else if a != b {
            let (sa, sb) = (step[a as usize], step[b as usize]);
            sa | sb | ((sa >> b) & open) | ((sb >> a) & open)
        } else {
            let sa = step[a as usize];
            let s2 = (sa >> a) & open;
            let s3 = (s2 >> a) & open;
            sa | s2 | s3 | ((s3 >> a) & open)
        };
        let hit = reached & blots;
        if hit != 0 {
            out.any += w;
            if hit.count_ones() >= 2 {
                out.double += w;
            }
            // A blot on my point p is on its owner's point 25 - p: sent to
            // the bar it loses p pips.
            risk += w * (31 - hit.leading_zeros());
        }
    }
    out.risk = risk as f32 / 25.0;
    out
}

/// [`ROLLS`] as lanes: each roll's two dice and weight, in two vectors of
/// 16 (the last 11 lanes weigh nothing).
const ROLL_LANES: [[u32; 32]; 3] = {
    let mut lanes = [[0u32; 32]; 3];
    let mut k = 0;
    while k < ROLLS.len() {
        lanes[0][k] = ROLLS[k].0;
        lanes[1][k] = ROLLS[k].1;
        lanes[2][k] = ROLLS[k].2;
        k += 1;
    }
    lanes
};

/// [`shots_portable`], 16 rolls per pass: the rolls' landings by
/// variable shifts (entering first from the bar, as [`side_reach`]
/// has it), the sums by masked reductions.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512cd")]
unsafe fn shots_avx512(s: &Checkers, blots: u32, open: u32) -> Shots {
    use std::arch::x86_64::{
        __m512i, _mm512_and_si512, _mm512_cmpeq_epi32_mask, _mm512_loadu_si512, _mm512_lzcnt_epi32,
        _mm512_mask_blend_epi32, _mm512_mask_or_epi32, _mm512_mask_reduce_add_epi32,
        _mm512_maskz_and_epi32, _mm512_maskz_mov_epi32, _mm512_mullo_epi32, _mm512_or_si512,
        _mm512_set1_epi32, _mm512_setzero_si512, _mm512_sllv_epi32, _mm512_srlv_epi32,
        _mm512_sub_epi32, _mm512_test_epi32_mask,
    };
    let [da, db, dw] = &ROLL_LANES;
    let bar = u32::from(s.bar());
    let occ = _mm512_set1_epi32((s.occupied() & POINTS_MASK) as i32);
    let open_v = _mm512_set1_epi32(open as i32);
    let blots = _mm512_set1_epi32(blots as i32);
    let step = |from: __m512i, d: __m512i| _mm512_and_si512(_mm512_srlv_epi32(from, d), open_v);
    // The point a die enters on from the bar, where open.
    let entry = |d: __m512i| {
        let from_bar = _mm512_sub_epi32(_mm512_set1_epi32(BAR as i32), d);
        _mm512_and_si512(_mm512_sllv_epi32(_mm512_set1_epi32(1), from_bar), open_v)
    };
    let (mut any, mut double, mut risk) = (0i32, 0i32, 0i32);
    for half in 0..2 {
        // SAFETY: each load is of 16 u32 inside a 32-long array.
        let load = |xs: &[u32; 32]| unsafe {
            _mm512_loadu_si512(xs.as_ptr().add(16 * half) as *const __m512i)
        };
        let (a, b, w) = (load(da), load(db), load(dw));
        let doubles = _mm512_cmpeq_epi32_mask(a, b);
        let reached = if bar == 0 {
            let (sa, sb) = (step(occ, a), step(occ, b));
            let (ab, ba) = (step(sa, b), step(sb, a));
            let two = _mm512_or_si512(_mm512_or_si512(sa, sb), _mm512_or_si512(ab, ba));
            // Doubles move on: a third and a fourth step.
            let s3 = step(ab, a);
            let more = _mm512_or_si512(s3, step(s3, a));
            _mm512_mask_or_epi32(two, doubles, two, more)
        } else {
            let (ea, eb) = (entry(a), entry(b));
            let mut mixed = _mm512_or_si512(ea, eb);
            if bar == 1 {
                // The other die moves any checker, the entered one too.
                let on = |e: __m512i, d: __m512i| {
                    let moved = _mm512_srlv_epi32(_mm512_or_si512(occ, e), d);
                    _mm512_maskz_and_epi32(_mm512_test_epi32_mask(e, e), moved, open_v)
                };
                mixed = _mm512_or_si512(mixed, _mm512_or_si512(on(ea, b), on(eb, a)));
            }
            let mut same = ea;
            if bar < 4 {
                // The dice left after entering move on from there.
                let (mut r, mut acc) = (_mm512_or_si512(occ, ea), _mm512_setzero_si512());
                for _ in 0..4 - bar {
                    r = step(r, a);
                    acc = _mm512_or_si512(acc, r);
                }
                let entered = _mm512_test_epi32_mask(ea, ea);
                same = _mm512_or_si512(same, _mm512_maskz_mov_epi32(entered, acc));
            }
            _mm512_mask_blend_epi32(doubles, mixed, same)
        };
        let hit = _mm512_and_si512(reached, blots);
        let hits = _mm512_test_epi32_mask(hit, hit);
        let below = _mm512_sub_epi32(hit, _mm512_set1_epi32(1));
        let several = _mm512_test_epi32_mask(hit, below);
        let top = _mm512_sub_epi32(_mm512_set1_epi32(31), _mm512_lzcnt_epi32(hit));
        any += _mm512_mask_reduce_add_epi32(hits, w);
        double += _mm512_mask_reduce_add_epi32(several, w);
        risk += _mm512_mask_reduce_add_epi32(hits, _mm512_mullo_epi32(w, top));
    }
    Shots {
        any: any as u32,
        double: double as u32,
        risk: risk as f32 / 25.0,
    }
}

/// Checkers of `s` in the other side's home board (its points 19..24) or
/// on the bar.
fn back_checkers(s: &Checkers) -> u32 {
    (19..=25).map(|i| u32::from(s.at(i))).sum()
}

/// How well `o` contains a checker of the other side: the fewest escapes
/// (out of 36) of a lone checker on any of the other side's points 15..24.
fn containment(o: &Checkers) -> u32 {
    let blocked = Checkers::mirrored(o.made());
    (15..=24)
        .map(|h| escapes_from(h, blocked))
        .min()
        .unwrap_or(36)
}

/// Rolls (out of 36) with which the rearmost checker of `s` lands beyond the
/// last point `o` has made within twelve pips in front of it.
fn escapes(s: &Checkers, o: &Checkers) -> u32 {
    escapes_from(s.highest() as u32, Checkers::mirrored(o.made()))
}

/// Escapes of a checker on point `h` past the `blocked` points (in its
/// side's numbering) within twelve pips in front of it: a lookup on those
/// twelve points' pattern.
#[inline]
fn escapes_from(h: u32, blocked: u32) -> u32 {
    if h == 0 {
        return 36;
    }
    // Bit j of the pattern is point h - 12 + j.
    let pattern = if h >= 12 {
        (blocked >> (h - 12)) & 0xFFF
    } else {
        (blocked << (12 - h)) & 0xFFF
    };
    u32::from(ESCAPES[pattern as usize])
}

/// Escapes for every pattern of blocked points in the twelve in front of a
/// checker (which sits at bit 12 of the pattern).
static ESCAPES: std::sync::LazyLock<[u8; 4096]> = std::sync::LazyLock::new(|| {
    let mut t = [0u8; 4096];
    for (pattern, e) in t.iter_mut().enumerate() {
        let blocked = pattern as u32;
        *e = if blocked == 0 {
            36
        } else {
            let beyond = (1u32 << blocked.trailing_zeros()) - 1;
            let open = !blocked & 0xFFF;
            ROLLS
                .iter()
                .filter(|&&(a, b, _)| reach(1 << 12, a, b, open) & beyond != 0)
                .map(|&(_, _, w)| w as u8)
                .sum()
        };
    }
    t
});

#[cfg(test)]
mod tests {
    use super::*;

    use crate::rules::position::test_side as side;

    #[test]
    fn direct_and_combination_shots_are_counted() {
        // My checker on my 8 point; the opponent's blot on my 2 point (its
        // 23): 6 pips away, hit by any 6 (11 rolls), 5-1, 4-2, 3-3, 2-2
        // (4+1+... ): 11 + 2 + 2 + 1 + 1 = 17.
        let me = side(&[(8, 1)], 0);
        let opp = side(&[(23, 1)], 0);
        assert_eq!(shots(&me, &opp).any, 17);
    }

    #[test]
    fn every_build_counts_the_shots_of_random_games_alike() {
        use crate::rules::dice::Dice;
        use crate::rules::movegen::{generate, MoveList};
        use rand::{Rng, SeedableRng};
        use rand_xoshiro::Xoshiro256PlusPlus;
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(21);
        let mut list = MoveList::new();
        let (mut checked, mut hit, mut on_bar) = (0, 0, 0);
        for _ in 0..100 {
            let mut pos = Position::start();
            for _ in 0..150 {
                for (s, o) in [(&pos.me, &pos.opp), (&pos.opp, &pos.me)] {
                    let blots = Checkers::mirrored(o.occupied() & !o.made());
                    let open = !Checkers::mirrored(o.made()) & POINTS_MASK;
                    let want = shots_portable(s, blots, open);
                    assert_eq!(
                        shots(s, o),
                        if blots == 0 { Shots::default() } else { want }
                    );
                    #[cfg(target_arch = "x86_64")]
                    if shots_avx512_runs() {
                        // SAFETY: the features were detected.
                        let got = unsafe { shots_avx512(s, blots, open) };
                        assert_eq!(got, want, "{pos:?}");
                    }
                    checked += 1;
                    hit += usize::from(want.double > 0);
                    on_bar += usize::from(s.bar() > 0 && want.any > 0);
                }
                let dice = Dice::new(rng.gen_range(1..=6), rng.gen_range(1..=6)).unwrap();
                generate(&pos, dice, &mut list);
                let next = list.as_slice()[rng.gen_range(0..list.as_slice().len())].position;
                if next.me.off() == 15 {
                    break;
                }
                pos = next.swapped();
            }
        }
        assert!(
            checked > 10_000 && hit > 1_000 && on_bar > 500,
            "{checked} sides, {hit} with double shots, {on_bar} hitting from the bar"
        );
    }

    #[test]
    fn blocked_intermediate_points_stop_combinations() {
        // As above, but the opponent holds my 3 to 7 points: 5-1 and 4-2
        // can't land halfway, 3-3 and 2-2 neither. Only 6s hit.
        let me = side(&[(8, 1)], 0);
        let opp = side(&[(23, 1), (22, 2), (21, 2), (20, 2), (19, 2), (18, 2)], 0);
        assert_eq!(shots(&me, &opp).any, 11);
    }

    #[test]
    fn the_opening_position_has_no_shots_and_a_free_back_checker_escapes() {
        let pos = Position::start();
        assert_eq!(shots(&pos.me, &pos.opp).any, 0);
        let lone = side(&[(24, 1)], 0);
        assert_eq!(escapes(&lone, &side(&[], 0)), 36);
    }

    #[test]
    fn a_full_prime_cannot_be_escaped() {
        let me = side(&[(24, 1)], 0);
        // The opponent's points 2..7 are my 18..23.
        let opp = side(&[(2, 2), (3, 2), (4, 2), (5, 2), (6, 2), (7, 2)], 0);
        assert_eq!(escapes(&me, &opp), 0);
    }

    #[test]
    fn each_layout_extends_the_one_before() {
        let pos = Position {
            me: side(&[(24, 1), (13, 4), (8, 3), (6, 4), (5, 2), (3, 1)], 0),
            opp: side(&[(24, 2), (13, 5), (8, 2), (7, 1), (6, 5)], 0),
        };
        let (small, big) = (Layout::V2, Layout::V3);
        let a = SparseInputs::encode(&pos, small).dense_of(small.inputs());
        let b = SparseInputs::encode(&pos, big).dense_of(big.inputs());
        let (ps, pb) = (small.per_side(), big.per_side());
        assert_eq!(&a[..ps], &b[..ps]);
        assert_eq!(&a[ps..], &b[pb..pb + ps]);
        assert!(b[ps..pb].iter().any(|&x| x != 0.0));
        assert_eq!(Layout::from_id(big.id()), Some(big));
        assert_eq!(Layout::from_id(4), None);
        assert_eq!(Layout::V3.inputs(), MAX_INPUTS);
    }

    #[test]
    fn sparse_inputs_match_the_layout() {
        let layout = Layout::V2;
        let d = SparseInputs::encode(&Position::start(), layout).dense_of(layout.inputs());
        let per_side = layout.per_side();
        // Two on my 24 point, five on my 13, three on 8, five on 6.
        assert_eq!(d[23 * 4 + 1], 1.0);
        assert_eq!(d[12 * 4 + 2], 1.0);
        assert_eq!(d[12 * 4 + 3], 1.0);
        assert_eq!(d[7 * 4 + 2], 1.0);
        assert_eq!(d[7 * 4 + 3], 0.0);
        assert_eq!(d[100 + 1], 167.0 / 150.0);
        assert_eq!(&d[..per_side], &d[per_side..]);
    }
}
