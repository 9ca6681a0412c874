//! A one-hidden-layer perceptron with sigmoid units and five sigmoid
//! outputs ([`Probs`]), evaluated in batches, trained one position at a time.
//!
//! The weights live in ndarray matrices. The first layer is computed
//! sparsely: a position switches on about a quarter of the inputs
//! ([`SparseInputs`]), so summing the weight rows of the non-zero inputs does
//! a quarter of the work of a dense matrix product. [`Net::eval_dense`] is the
//! plain ndarray matrix product, kept as the reference the fast path is
//! tested against. On x86-64 the hot loops are also compiled for AVX2 with
//! FMA, chosen at start when the CPU has them (an AVX-512 build measured
//! slower on this machine's AMD EPYC).

use ndarray::{s, Array1, Array2, ArrayView2, Axis};
use rand::Rng;

use crate::inputs::{Layout, SparseInputs};
use crate::probs::Probs;

/// Outputs of every net.
pub const OUTPUTS: usize = 5;
/// Hidden layers are processed in blocks of this many units.
pub const BLOCK: usize = 32;

/// A network: `inputs -> hidden (sigmoid) -> 5 (sigmoid)`.
#[derive(Clone, Debug, PartialEq)]
pub struct Net {
    /// First layer, `inputs x hidden` (row `i` holds input `i`'s weights).
    pub w1: Array2<f32>,
    /// Hidden biases.
    pub b1: Array1<f32>,
    /// Second layer, `5 x hidden`.
    pub w2: Array2<f32>,
    /// Output biases.
    pub b2: Array1<f32>,
}

/// The largest hidden layer a net may have.
pub const MAX_HIDDEN: usize = 512;

/// Scratch space of a forward pass (on the stack: evaluation allocates
/// nothing).
#[derive(Clone, Debug)]
pub struct Activations {
    hidden: [f32; MAX_HIDDEN],
    out: [f32; OUTPUTS],
}

impl Net {
    /// A net with small random weights (Glorot-uniform).
    pub fn random(inputs: usize, hidden: usize, rng: &mut impl Rng) -> Net {
        assert!(
            hidden.is_multiple_of(BLOCK) && hidden > 0 && hidden <= MAX_HIDDEN,
            "hidden must be a multiple of {BLOCK} up to {MAX_HIDDEN}"
        );
        let r1 = (6.0 / (inputs + hidden) as f32).sqrt();
        let r2 = (6.0 / (hidden + OUTPUTS) as f32).sqrt();
        Net {
            w1: Array2::from_shape_fn((inputs, hidden), |_| rng.gen_range(-r1..r1)),
            b1: Array1::zeros(hidden),
            w2: Array2::from_shape_fn((OUTPUTS, hidden), |_| rng.gen_range(-r2..r2)),
            b2: Array1::zeros(OUTPUTS),
        }
    }

    /// Number of inputs.
    pub fn inputs(&self) -> usize {
        self.w1.nrows()
    }

    /// Number of hidden units.
    pub fn hidden(&self) -> usize {
        self.w1.ncols()
    }

    /// Fresh scratch space for this net.
    pub fn activations(&self) -> Activations {
        Activations {
            hidden: [0.0; MAX_HIDDEN],
            out: [0.0; OUTPUTS],
        }
    }

    /// Evaluates one position; the raw outputs (not yet made consistent).
    pub fn eval(&self, x: &SparseInputs, act: &mut Activations) -> Probs {
        self.forward(x, act);
        Probs(act.out)
    }

    /// Evaluates a batch of positions into `out` (same length).
    pub fn eval_batch(&self, xs: &[SparseInputs], out: &mut [Probs], act: &mut Activations) {
        for (x, o) in xs.iter().zip(out.iter_mut()) {
            self.forward(x, act);
            *o = Probs(act.out);
        }
    }

    /// The reference: a dense batch (`rows x inputs`) by ndarray matrix
    /// products.
    pub fn eval_dense(&self, x: ArrayView2<f32>) -> Array2<f32> {
        let mut h = x.dot(&self.w1) + self.b1.view().insert_axis(Axis(0));
        h.mapv_inplace(|z| 1.0 / (1.0 + (-z).exp()));
        let mut o = h.dot(&self.w2.t()) + self.b2.view().insert_axis(Axis(0));
        o.mapv_inplace(|z| 1.0 / (1.0 + (-z).exp()));
        o
    }

    fn forward(&self, x: &SparseInputs, act: &mut Activations) {
        let w1 = self.w1.as_slice().expect("standard layout");
        let w2 = self.w2.as_slice().expect("standard layout");
        let b1 = self.b1.as_slice().expect("standard layout");
        kernels::forward(
            w1,
            b1,
            w2,
            self.b2.as_slice().expect("standard layout"),
            x,
            act,
        );
    }

    /// One step of gradient descent on the cross-entropy between the
    /// outputs for `x` and `target`, with learning rate `alpha`. Returns the
    /// outputs before the step.
    pub fn train(
        &mut self,
        x: &SparseInputs,
        target: &Probs,
        alpha: f32,
        act: &mut Activations,
    ) -> Probs {
        self.forward(x, act);
        let hidden = self.hidden();
        // Cross-entropy through a sigmoid: the output error is y - t.
        let d2: [f32; OUTPUTS] = std::array::from_fn(|k| act.out[k] - target.0[k]);
        let h = &act.hidden[..hidden];
        let w2 = self.w2.as_slice_mut().expect("standard layout");
        let mut d1 = [0.0f32; MAX_HIDDEN];
        for (k, row) in w2.chunks_exact_mut(hidden).enumerate() {
            for ((d, w), &hj) in d1.iter_mut().zip(row.iter_mut()).zip(h) {
                *d += d2[k] * *w;
                *w -= alpha * d2[k] * hj;
            }
            self.b2[k] -= alpha * d2[k];
        }
        for (d, &hj) in d1.iter_mut().zip(h) {
            *d *= hj * (1.0 - hj) * alpha;
        }
        let w1 = self.w1.as_slice_mut().expect("standard layout");
        for (&i, &v) in x.indices().iter().zip(x.values()) {
            let row = &mut w1[usize::from(i) * hidden..(usize::from(i) + 1) * hidden];
            for (w, d) in row.iter_mut().zip(&d1) {
                *w -= v * d;
            }
        }
        for (b, d) in self.b1.iter_mut().zip(&d1[..hidden]) {
            *b -= d;
        }
        Probs(act.out)
    }

    /// One net that averages the output logits of several nets of the same
    /// inputs: their hidden layers side by side, each net's output weights
    /// scaled by its share. An ensemble of independently trained nets errs
    /// less than its members, and folded this way it is evaluated by the
    /// same kernels as any net. `None` when the inputs differ or the hidden
    /// layers together exceed [`MAX_HIDDEN`].
    pub fn ensemble(nets: &[&Net]) -> Option<Net> {
        let first = nets.first()?;
        let hidden: usize = nets.iter().map(|n| n.hidden()).sum();
        if hidden > MAX_HIDDEN || nets.iter().any(|n| n.inputs() != first.inputs()) {
            return None;
        }
        let share = 1.0 / nets.len() as f32;
        // Side by side along the hidden axis, in the row-major layout the
        // kernels read.
        fn side_by_side<D: ndarray::RemoveAxis>(
            axis: Axis,
            parts: Vec<ndarray::ArrayView<'_, f32, D>>,
        ) -> ndarray::Array<f32, D> {
            ndarray::concatenate(axis, &parts)
                .expect("shapes checked")
                .as_standard_layout()
                .into_owned()
        }
        let w1 = side_by_side(Axis(1), nets.iter().map(|n| n.w1.view()).collect());
        let b1 = side_by_side(Axis(0), nets.iter().map(|n| n.b1.view()).collect());
        let w2 = side_by_side(Axis(1), nets.iter().map(|n| n.w2.view()).collect()) * share;
        let b2 = nets
            .iter()
            .fold(Array1::zeros(OUTPUTS), |acc, n| acc + &n.b2)
            * share;
        Some(Net { w1, b1, w2, b2 })
    }

    /// The same net reading a larger input layout: each side's block of
    /// inputs moves to its place in `to`, and the inputs `to` adds start
    /// with zero weights, so the outputs are unchanged until training
    /// gives them weight. `None` unless this net reads `from` and `to` has
    /// at least its features (every layout extends the ones before it).
    pub fn widened(&self, from: Layout, to: Layout) -> Option<Net> {
        if self.inputs() != from.inputs() || to.features() < from.features() {
            return None;
        }
        let mut w1 = Array2::zeros((to.inputs(), self.hidden()));
        let n = from.per_side();
        for side in 0..2 {
            let (old, new) = (side * n, side * to.per_side());
            w1.slice_mut(s![new..new + n, ..])
                .assign(&self.w1.slice(s![old..old + n, ..]));
        }
        Some(Net { w1, ..self.clone() })
    }

    /// `self += scale * (other - base)`: folds another worker's progress
    /// since `base` into this net.
    pub fn add_delta(&mut self, other: &Net, base: &Net, scale: f32) {
        fn fold<D: ndarray::Dimension>(
            a: &mut ndarray::Array<f32, D>,
            o: &ndarray::Array<f32, D>,
            b: &ndarray::Array<f32, D>,
            s: f32,
        ) {
            ndarray::Zip::from(a)
                .and(o)
                .and(b)
                .for_each(|a, &o, &b| *a += s * (o - b));
        }
        fold(&mut self.w1, &other.w1, &base.w1, scale);
        fold(&mut self.b1, &other.b1, &base.b1, scale);
        fold(&mut self.w2, &other.w2, &base.w2, scale);
        fold(&mut self.b2, &other.b2, &base.b2, scale);
    }
}

/// The hot loops, written once and compiled twice: for the baseline target
/// and, chosen at run time, for AVX2 with FMA.
mod kernels {
    use super::{Activations, BLOCK, OUTPUTS};
    use crate::inputs::SparseInputs;

    type Kernel = fn(&[f32], &[f32], &[f32], &[f32], &SparseInputs, &mut Activations);

    /// The kernel for this CPU, chosen once.
    static KERNEL: std::sync::LazyLock<Kernel> = std::sync::LazyLock::new(|| {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::is_x86_feature_detected as has;
            if has!("avx2") && has!("fma") {
                return |w1, b1, w2, b2, x, act| {
                    // SAFETY: the features were detected.
                    unsafe { forward_avx2(w1, b1, w2, b2, x, act) }
                };
            }
        }
        forward_generic::<false>
    });

    pub fn forward(
        w1: &[f32],
        b1: &[f32],
        w2: &[f32],
        b2: &[f32],
        x: &SparseInputs,
        act: &mut Activations,
    ) {
        (*KERNEL)(w1, b1, w2, b2, x, act)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn forward_avx2(
        w1: &[f32],
        b1: &[f32],
        w2: &[f32],
        b2: &[f32],
        x: &SparseInputs,
        act: &mut Activations,
    ) {
        forward_generic::<true>(w1, b1, w2, b2, x, act);
    }

    #[inline(always)]
    fn madd<const FMA: bool>(a: f32, b: f32, c: f32) -> f32 {
        if FMA {
            a.mul_add(b, c)
        } else {
            a * b + c
        }
    }

    #[inline(always)]
    fn forward_generic<const FMA: bool>(
        w1: &[f32],
        b1: &[f32],
        w2: &[f32],
        b2: &[f32],
        x: &SparseInputs,
        act: &mut Activations,
    ) {
        let hidden = b1.len();
        let idx = x.indices();
        let val = x.values();
        for blk in (0..hidden).step_by(BLOCK) {
            // A block of accumulators small enough to stay in registers
            // while every non-zero input's row is added.
            let mut acc = [0.0f32; BLOCK];
            acc.copy_from_slice(&b1[blk..blk + BLOCK]);
            for (&i, &v) in idx.iter().zip(val) {
                let row: &[f32; BLOCK] = w1[usize::from(i) * hidden + blk..][..BLOCK]
                    .try_into()
                    .expect("block");
                for (a, &w) in acc.iter_mut().zip(row) {
                    *a = madd::<FMA>(v, w, *a);
                }
            }
            for a in acc.iter_mut() {
                *a = sigmoid::<FMA>(*a);
            }
            act.hidden[blk..blk + BLOCK].copy_from_slice(&acc);
        }
        for o in 0..OUTPUTS {
            let row = &w2[o * hidden..(o + 1) * hidden];
            let mut acc = [0.0f32; 8];
            for (h, w) in act.hidden[..hidden]
                .chunks_exact(8)
                .zip(row.chunks_exact(8))
            {
                for ((a, &hk), &wk) in acc.iter_mut().zip(h).zip(w) {
                    *a = madd::<FMA>(hk, wk, *a);
                }
            }
            let z = acc.iter().sum::<f32>() + b2[o];
            act.out[o] = sigmoid::<FMA>(z);
        }
    }

    /// `1 / (1 + e^-x)` with a vectorizable exponential (relative error
    /// about 1e-7 before the division).
    #[inline(always)]
    pub fn sigmoid<const FMA: bool>(x: f32) -> f32 {
        // e^-x = 2^t, t = -x log2(e), split into integer and fraction.
        let t = (-x * std::f32::consts::LOG2_E).clamp(-126.0, 126.0);
        let ti = t as i32;
        let ti = ti - i32::from((ti as f32) > t);
        let f = t - ti as f32;
        // 2^f on [0, 1): a degree-6 fit at Chebyshev nodes (error 3e-9).
        let mut p = 2.187_751_6e-4f32;
        p = madd::<FMA>(p, f, 1.238_783_2e-3);
        p = madd::<FMA>(p, f, 9.684_577e-3);
        p = madd::<FMA>(p, f, 5.548_042_9e-2);
        p = madd::<FMA>(p, f, 2.402_305e-1);
        p = madd::<FMA>(p, f, 6.931_469_3e-1);
        p = madd::<FMA>(p, f, 1.0);
        let scale = f32::from_bits(((ti + 127) as u32) << 23);
        1.0 / (1.0 + p * scale)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inputs::INPUTS;
    use crate::position::Position;
    use rand::SeedableRng;
    use rand_xoshiro::Xoshiro256PlusPlus;

    #[test]
    fn fast_sigmoid_is_accurate() {
        for i in -2000..=2000 {
            let x = i as f32 / 100.0;
            let exact = 1.0 / (1.0 + (-x as f64).exp());
            let fast = f64::from(kernels::sigmoid::<false>(x));
            assert!((exact - fast).abs() < 1e-6, "{x}: {exact} vs {fast}");
        }
    }

    #[test]
    fn sparse_path_matches_the_dense_matrix_product() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
        let net = Net::random(INPUTS, 64, &mut rng);
        let mut act = net.activations();
        let positions = [Position::start(), Position::start().swapped()];
        for p in positions {
            let x = SparseInputs::encode(&p);
            let fast = net.eval(&x, &mut act);
            let dense = net.eval_dense(
                ndarray::Array2::from_shape_vec((1, INPUTS), x.dense())
                    .unwrap()
                    .view(),
            );
            for k in 0..OUTPUTS {
                assert!((fast.0[k] - dense[[0, k]]).abs() < 1e-5);
            }
        }
    }

    #[test]
    fn training_moves_the_output_towards_the_target() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(2);
        let mut net = Net::random(INPUTS, 32, &mut rng);
        let mut act = net.activations();
        let x = SparseInputs::encode(&Position::start());
        let target = Probs([0.9, 0.3, 0.05, 0.1, 0.01]);
        let err = |p: Probs| -> f32 { p.0.iter().zip(target.0).map(|(a, b)| (a - b).abs()).sum() };
        let before = err(net.eval(&x, &mut act));
        for _ in 0..200 {
            net.train(&x, &target, 0.05, &mut act);
        }
        let after = err(net.eval(&x, &mut act));
        assert!(after < before * 0.1, "{before} -> {after}");
    }

    #[test]
    fn a_widened_net_evaluates_as_before_until_trained() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(4);
        let (v3, v4) = (Layout::V3, Layout::V4);
        let net = Net::random(v3.inputs(), 64, &mut rng);
        let wide = net.widened(v3, v4).unwrap();
        assert_eq!(wide.inputs(), v4.inputs());
        let (mut a, mut b) = (net.activations(), wide.activations());
        let pos = Position::start();
        let before = net.eval(&SparseInputs::encode_as(&pos, v3), &mut a);
        let after = wide.eval(&SparseInputs::encode_as(&pos, v4), &mut b);
        assert_eq!(before, after);
        assert!(net.widened(v4, v3).is_none());
        assert!(net.widened(Layout::V2, v4).is_none());
    }

    #[test]
    fn an_ensemble_averages_its_members_logits() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
        let a = Net::random(INPUTS, 64, &mut rng);
        let mut b = Net::random(INPUTS, 32, &mut rng);
        b.b2 = Array1::from_vec(vec![0.5, -1.0, -2.0, 0.3, -3.0]);
        let both = Net::ensemble(&[&a, &b]).unwrap();
        assert_eq!(both.hidden(), 96);
        let logit = |p: f32| (p / (1.0 - p)).ln();
        let mut act = both.activations();
        let mut pos = Position::start();
        for _ in 0..2 {
            let x = SparseInputs::encode(&pos);
            let (pa, pb, pe) = (
                a.eval(&x, &mut act),
                b.eval(&x, &mut act),
                both.eval(&x, &mut act),
            );
            for k in 0..OUTPUTS {
                let want = (logit(pa.0[k]) + logit(pb.0[k])) / 2.0;
                assert!((logit(pe.0[k]) - want).abs() < 1e-3, "output {k}");
            }
            pos = pos.swapped();
        }
        let alone = Net::ensemble(&[&a]).unwrap();
        assert_eq!(alone, a);
    }

    #[test]
    fn an_ensemble_refuses_mismatched_or_oversized_members() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(4);
        let a = Net::random(INPUTS, 256, &mut rng);
        let small = Net::random(INPUTS - 1, 32, &mut rng);
        assert!(Net::ensemble(&[&a, &small]).is_none());
        assert!(Net::ensemble(&[&a, &a, &a]).is_none());
        assert!(Net::ensemble(&[]).is_none());
    }
}
