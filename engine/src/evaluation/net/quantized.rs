//! The first layer in 16-bit integers, for inference: weights and inputs
//! rounded to `i16`, sums in `i32`, two inputs to one multiply-add
//! (`vpdpwssd` of AVX-512 VNNI, `vpmaddwd` of AVX2). The float layer of
//! [`super::Net`] stays the reference and what training changes; this is
//! made from it when first used ([`FirstLayer::Int16`](super::FirstLayer)).
//!
//! # Scales
//! An input `x` becomes `round(x * INPUT_SCALE)`; unit `u`'s weights
//! become `round(w * s_u)` with `s_u = WEIGHT_MAX / max_i |w_iu|`, so
//! every unit uses the whole range whatever the size of its weights. A
//! unit's sum is `acc_u / (s_u * INPUT_SCALE)`. Integer sums are exact,
//! so a position's sums are the same in any order of its inputs and on
//! every build. Reached from a nearby position's sums by its inputs'
//! differences, they differ from its own only by each difference's
//! rounding.
//!
//! # Range
//! No legal position's inputs add up (in absolute value) to more than
//! about 80 (15 per side's points, under 25 per side's features; a test
//! keeps the bound), and no weight exceeds `WEIGHT_MAX`, so no sum
//! exceeds `WEIGHT_MAX * INPUT_SCALE * 128 = 2^31`. The sums are added
//! with wrap-around, so a partial sum out of range on the way to a final
//! sum in range does no harm.
//!
//! # Pairs
//! Inputs `2k` and `2k + 1` share a word: the weights of a block of
//! units are stored pair by pair, each unit's two weights in one 32-bit
//! lane, and a position's non-zero inputs are gathered into the words of
//! their pairs ([`Pairs`]). A point's non-zero units always share a
//! pair, so on real play's contact positions a position's 43 non-zero
//! inputs make 32 pairs, and a play's 19 differences from the position
//! before it 16.

use ndarray::{Array1, Array2};

use crate::evaluation::inputs::{SparseInputs, MAX_INPUTS};

/// The layout's blocks of units: 64 wide, and a last one of 32 when
/// the width asks (every layer's width is a multiple of 32).
pub const WIDTH: usize = 64;

/// The blocks of a layer of `hidden` units, `(first unit, width)`.
pub fn blocks(hidden: usize) -> impl Iterator<Item = (usize, usize)> {
    (0..hidden)
        .step_by(WIDTH)
        .map(move |blk| (blk, (hidden - blk).min(WIDTH)))
}

/// What an input of 1.0 becomes.
pub const INPUT_SCALE: f32 = 1024.0;
/// What each unit's largest weight becomes.
pub const WEIGHT_MAX: f32 = 16383.0;
/// The largest total of a position's inputs' magnitudes that
/// [`WEIGHT_MAX`] and [`INPUT_SCALE`] leave room for.
pub const INPUTS_TOTAL_MAX: f32 = 128.0;

/// Sixteen 32-bit words on a cache line of their own.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
struct Line([i32; 16]);

/// A first layer in integers: per block of units ([`blocks`]), for
/// each pair of inputs, each unit's two weights in one word.
#[derive(Clone, Debug)]
pub struct Quantized {
    lines: Vec<Line>,
    /// Pairs of inputs (the last one may have a single input).
    pairs: usize,
    /// The biases, in each unit's scale.
    pub bias: Vec<i32>,
    /// `1 / (s_u * INPUT_SCALE)`: a unit's integer sum back to a float.
    pub unscale: Vec<f32>,
}

/// The two 16-bit halves of a word: `lo` for input `2k`, `hi` for `2k+1`.
fn word(lo: i16, hi: i16) -> i32 {
    (u32::from(lo as u16) | (u32::from(hi as u16) << 16)) as i32
}

/// The products of two words' low and high halves, summed, as
/// `vpmaddwd` computes them.
#[inline(always)]
fn madd(w: i32, x: i32) -> i32 {
    let (wl, wh) = (i32::from(w as i16), i32::from((w >> 16) as i16));
    let (xl, xh) = (i32::from(x as i16), i32::from((x >> 16) as i16));
    (wl * xl).wrapping_add(wh * xh)
}

impl Quantized {
    /// The integer copy of a first layer (`inputs x hidden`) and its
    /// biases.
    pub fn new(w1: &Array2<f32>, b1: &Array1<f32>) -> Quantized {
        let (inputs, hidden) = w1.dim();
        let pairs = inputs.div_ceil(2);
        let scale: Vec<f32> = (0..hidden)
            .map(|u| {
                let largest = w1.column(u).iter().fold(0.0f32, |m, w| m.max(w.abs()));
                // Room for the bias too, however large it is.
                let room = (i32::MAX / 2) as f32 / INPUT_SCALE / b1[u].abs().max(1e-30);
                if largest > 0.0 {
                    (WEIGHT_MAX / largest).min(room)
                } else {
                    1.0
                }
            })
            .collect();
        let q = |i: usize, u: usize| -> i16 {
            if i < inputs {
                (w1[[i, u]] * scale[u]).round() as i16
            } else {
                0
            }
        };
        let mut words = Vec::with_capacity(pairs * hidden);
        for (blk, width) in blocks(hidden) {
            for k in 0..pairs {
                words.extend((blk..blk + width).map(|u| word(q(2 * k, u), q(2 * k + 1, u))));
            }
        }
        let lines = words
            .chunks_exact(16)
            .map(|c| Line(c.try_into().expect("sixteen")))
            .collect();
        Quantized {
            lines,
            pairs,
            bias: (0..hidden)
                .map(|u| (f64::from(b1[u]) * f64::from(scale[u] * INPUT_SCALE)).round() as i32)
                .collect(),
            unscale: scale.iter().map(|s| 1.0 / (s * INPUT_SCALE)).collect(),
        }
    }

    /// Units in the layer.
    pub fn hidden(&self) -> usize {
        self.bias.len()
    }

    /// The words of the block of units `blk .. blk + width`, pair `k`'s
    /// at `k * width`.
    pub fn block(&self, blk: usize, width: usize) -> &[i32] {
        // SAFETY: a `Line` is sixteen words without padding, so the lines
        // are `16 * len` words back to back.
        let words: &[i32] = unsafe {
            std::slice::from_raw_parts(self.lines.as_ptr().cast(), 16 * self.lines.len())
        };
        &words[self.pairs * blk..self.pairs * (blk + width)]
    }
}

/// A position's non-zero inputs (or a play's differences) as pairs: the
/// pair's index and its two inputs' rounded values in one word.
#[derive(Clone, Debug)]
pub struct Pairs {
    at: [u16; MAX_PAIRS],
    words: [i32; MAX_PAIRS],
    len: usize,
}

/// The most pairs of any layout.
const MAX_PAIRS: usize = MAX_INPUTS.div_ceil(2);

impl Default for Pairs {
    fn default() -> Self {
        Pairs {
            at: [0; MAX_PAIRS],
            words: [0; MAX_PAIRS],
            len: 0,
        }
    }
}

/// An input's value rounded to the integer scale (saturating: no legal
/// input comes near).
#[inline(always)]
fn quantize(v: f32) -> i16 {
    // Half away from zero, as `f32::round`, which without SSE4.1 is a
    // call into libm.
    let y = v * INPUT_SCALE;
    (y + 0.5f32.copysign(y)) as i16
}

impl Pairs {
    /// The pairs of `x`'s non-zero inputs. [`SparseInputs`] lists its
    /// inputs in increasing order, so the two of a pair are neighbours
    /// (were they not, a pair would be listed twice, and summed right).
    pub fn fill(&mut self, x: &SparseInputs) {
        let mut n = 0;
        let mut last = u16::MAX;
        let mut word = 0u32;
        for (&i, &v) in x.indices().iter().zip(x.values()) {
            let pair = i / 2;
            let half = u32::from(quantize(v) as u16) << (16 * (i % 2));
            let new = pair != last;
            n += usize::from(new);
            word = if new { half } else { word | half };
            self.at[n - 1] = pair;
            self.words[n - 1] = word as i32;
            last = pair;
        }
        self.len = n;
    }

    /// The pairs' indices.
    pub fn indices(&self) -> &[u16] {
        &self.at[..self.len]
    }

    /// The pairs' words, parallel to [`Self::indices`].
    pub fn words(&self) -> &[i32] {
        &self.words[..self.len]
    }
}

/// The layout's blocks ([`blocks`]) that make up units `blk .. blk +
/// width`.
fn layout_blocks(blk: usize, width: usize) -> impl Iterator<Item = (usize, usize)> {
    (blk..blk + width)
        .step_by(WIDTH)
        .map(move |b| (b, (blk + width - b).min(WIDTH)))
}

/// The integer sums of units `blk .. blk + width` (a block of
/// [`blocks`], or two side by side): `start` plus each pair's
/// weights times its inputs, portable (the reference every build gives
/// exactly, integer sums being exact).
pub fn block_portable(
    q: &Quantized,
    start: &[i32],
    x: &Pairs,
    out: &mut [i32],
    blk: usize,
    width: usize,
) {
    for (blk, width) in layout_blocks(blk, width) {
        let rows = q.block(blk, width);
        let mut acc = [0i32; WIDTH];
        let acc = &mut acc[..width];
        acc.copy_from_slice(&start[blk..blk + width]);
        for (&k, &w) in x.indices().iter().zip(x.words()) {
            let row = &rows[usize::from(k) * width..][..width];
            for (a, &r) in acc.iter_mut().zip(row) {
                *a = a.wrapping_add(madd(r, w));
            }
        }
        out[blk..blk + width].copy_from_slice(acc);
    }
}

/// [`block_portable`] in AVX2, a block of 64 or 32 units at a time in
/// eight or four registers, `vpmaddwd` then `vpaddd` for each pair.
///
/// # Safety
/// The CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
pub unsafe fn block_avx2(
    q: &Quantized,
    start: &[i32],
    x: &Pairs,
    out: &mut [i32],
    blk: usize,
    width: usize,
) {
    use std::arch::x86_64::*;
    for (blk, width) in layout_blocks(blk, width) {
        let rows = q.block(blk, width);
        let from = &start[blk..blk + width];
        let to = &mut out[blk..blk + width];
        let r = width / 8;
        // SAFETY: every load and store is of eight words inside a slice of
        // `width` words (bounds-checked when sliced).
        unsafe {
            let mut acc = [_mm256_setzero_si256(); 8];
            for (k, a) in acc.iter_mut().enumerate().take(r) {
                *a = _mm256_loadu_si256(from.as_ptr().add(8 * k).cast());
            }
            for (&k, &w) in x.indices().iter().zip(x.words()) {
                let row = &rows[usize::from(k) * width..][..width];
                let w = _mm256_set1_epi32(w);
                for (j, a) in acc.iter_mut().enumerate().take(r) {
                    let ws = _mm256_loadu_si256(row.as_ptr().add(8 * j).cast());
                    *a = _mm256_add_epi32(*a, _mm256_madd_epi16(ws, w));
                }
            }
            for (k, a) in acc.iter().enumerate().take(r) {
                _mm256_storeu_si256(to.as_mut_ptr().add(8 * k).cast(), *a);
            }
        }
    }
}

/// [`block_portable`] in AVX-512 VNNI: 128 units (two blocks of 64) in
/// eight registers, one `vpdpwssd` for each sixteen units of a pair; a
/// narrower block by [`block_avx2`].
///
/// # Safety
/// The CPU must have AVX-512F, AVX-512BW, AVX-512 VNNI and AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vnni,avx2")]
pub unsafe fn block_vnni(
    q: &Quantized,
    start: &[i32],
    x: &Pairs,
    out: &mut [i32],
    blk: usize,
    width: usize,
) {
    use std::arch::x86_64::*;
    if width != 2 * WIDTH {
        // SAFETY: the CPU has AVX2.
        return unsafe { block_avx2(q, start, x, out, blk, width) };
    }
    let a = q.block(blk, WIDTH);
    let b = q.block(blk + WIDTH, WIDTH);
    let from = &start[blk..blk + 2 * WIDTH];
    let to = &mut out[blk..blk + 2 * WIDTH];
    // SAFETY: every load and store is of sixteen words inside a slice
    // of 64 or 128 words (bounds-checked when sliced).
    unsafe {
        let mut acc: [__m512i; 8] =
            std::array::from_fn(|k| _mm512_loadu_si512(from.as_ptr().add(16 * k).cast()));
        for (&k, &w) in x.indices().iter().zip(x.words()) {
            let k = usize::from(k);
            let ra = &a[k * WIDTH..][..WIDTH];
            let rb = &b[k * WIDTH..][..WIDTH];
            let w = _mm512_set1_epi32(w);
            for j in 0..4 {
                let wa = _mm512_loadu_si512(ra.as_ptr().add(16 * j).cast());
                let wb = _mm512_loadu_si512(rb.as_ptr().add(16 * j).cast());
                acc[j] = _mm512_dpwssd_epi32(acc[j], wa, w);
                acc[4 + j] = _mm512_dpwssd_epi32(acc[4 + j], wb, w);
            }
        }
        for (k, a) in acc.iter().enumerate() {
            _mm512_storeu_si512(to.as_mut_ptr().add(16 * k).cast(), *a);
        }
    }
}
