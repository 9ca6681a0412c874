//! A perceptron with sigmoid units and five sigmoid outputs ([`Probs`]),
//! evaluated in batches, trained one position at a time.
//!
//! Every net has one hidden layer fed by the inputs; it may have a second,
//! dense one fed by the first. The outputs read both hidden layers (a skip
//! connection), so a second layer can be added to a trained net with zero
//! output weights ([`Net::deepened`]): the net plays exactly as before, and
//! training then finds what the extra depth is worth without starting over.
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

/// A network: `inputs -> hidden (sigmoid) [-> hidden2 (sigmoid)] -> 5
/// (sigmoid)`, the outputs reading both hidden layers.
#[derive(Clone, Debug, PartialEq)]
pub struct Net {
    /// First layer, `inputs x hidden` (row `i` holds input `i`'s weights).
    pub w1: Array2<f32>,
    /// Hidden biases.
    pub b1: Array1<f32>,
    /// The second hidden layer, `hidden2 x hidden` (no rows: no second
    /// layer).
    pub w_mid: Array2<f32>,
    /// Second hidden layer biases.
    pub b_mid: Array1<f32>,
    /// Output layer, `5 x (hidden + hidden2)`: the first layer's units, then
    /// the second's.
    pub w2: Array2<f32>,
    /// Output biases.
    pub b2: Array1<f32>,
}

/// The largest first hidden layer a net may have.
pub const MAX_HIDDEN: usize = 512;
/// The largest second hidden layer a net may have.
pub const MAX_HIDDEN2: usize = 128;
/// The second hidden layer's size is a multiple of this.
pub const BLOCK2: usize = 8;

/// Scratch space of a forward pass (on the stack: evaluation allocates
/// nothing).
#[derive(Clone, Debug)]
pub struct Activations {
    /// Both hidden layers' units, the first layer's then the second's.
    hidden: [f32; MAX_HIDDEN + MAX_HIDDEN2],
    out: [f32; OUTPUTS],
}

/// A net's weight tensors, in the order of [`Net::parameters`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tensor {
    /// First layer weights.
    W1,
    /// First layer biases.
    B1,
    /// Second hidden layer weights.
    WMid,
    /// Second hidden layer biases.
    BMid,
    /// Output weights.
    W2,
    /// Output biases.
    B2,
}

/// Receives a backward pass's gradient, a run of weights at a time
/// ([`Net::backward`]); runs are handed over after their values were used,
/// so a sink may step them at once.
pub trait GradientSink {
    /// The gradient of the weights `weights`, at `first` onwards in
    /// `tensor`'s flat slice, is `scale * d[j]` for `weights[j]` (`d` is as
    /// long as `weights`).
    fn take_row(
        &mut self,
        tensor: Tensor,
        first: usize,
        weights: &mut [f32],
        scale: f32,
        d: &[f32],
    );
}

/// Plain gradient descent at once, with this learning rate.
pub struct Sgd(pub f32);

impl GradientSink for Sgd {
    #[inline(always)]
    fn take_row(&mut self, _: Tensor, _: usize, weights: &mut [f32], scale: f32, d: &[f32]) {
        let step = self.0 * scale;
        for (w, dj) in weights.iter_mut().zip(d) {
            *w -= step * dj;
        }
    }
}

/// A gradient kept for a later step: one flat vector per [`Tensor`],
/// summed over the positions passed backward.
#[derive(Clone, Debug)]
pub struct Gradient(pub [Vec<f32>; 6]);

impl Gradient {
    /// A zero gradient shaped as `net`.
    pub fn zeros(net: &Net) -> Gradient {
        Gradient(net.parameters().map(|p| vec![0.0; p.len()]))
    }

    /// Back to zero.
    pub fn clear(&mut self) {
        for part in &mut self.0 {
            part.fill(0.0);
        }
    }
}

impl GradientSink for Gradient {
    #[inline(always)]
    fn take_row(&mut self, tensor: Tensor, first: usize, w: &mut [f32], scale: f32, d: &[f32]) {
        let part = &mut self.0[tensor as usize][first..first + w.len()];
        for (g, dj) in part.iter_mut().zip(d) {
            *g += scale * dj;
        }
    }
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
            w_mid: Array2::zeros((0, hidden)),
            b_mid: Array1::zeros(0),
            w2: Array2::from_shape_fn((OUTPUTS, hidden), |_| rng.gen_range(-r2..r2)),
            b2: Array1::zeros(OUTPUTS),
        }
    }

    /// Number of inputs.
    pub fn inputs(&self) -> usize {
        self.w1.nrows()
    }

    /// Number of hidden units in the first layer.
    pub fn hidden(&self) -> usize {
        self.w1.ncols()
    }

    /// Number of hidden units in the second layer (0: none).
    pub fn hidden2(&self) -> usize {
        self.w_mid.nrows()
    }

    /// This net with a second hidden layer of `hidden2` units (random
    /// weights from the first layer) whose output weights are zero, so it
    /// evaluates exactly as before until trained. `None` when the net
    /// already has one or `hidden2` is not a positive multiple of
    /// [`BLOCK2`] up to [`MAX_HIDDEN2`].
    pub fn deepened(&self, hidden2: usize, rng: &mut impl Rng) -> Option<Net> {
        if self.hidden2() != 0
            || hidden2 == 0
            || !hidden2.is_multiple_of(BLOCK2)
            || hidden2 > MAX_HIDDEN2
        {
            return None;
        }
        let h = self.hidden();
        let r = (6.0 / (h + hidden2) as f32).sqrt();
        let mut w2 = Array2::zeros((OUTPUTS, h + hidden2));
        w2.slice_mut(s![.., ..h]).assign(&self.w2);
        Some(Net {
            w_mid: Array2::from_shape_fn((hidden2, h), |_| rng.gen_range(-r..r)),
            b_mid: Array1::zeros(hidden2),
            w2,
            ..self.clone()
        })
    }

    /// Fresh scratch space for this net.
    pub fn activations(&self) -> Activations {
        Activations {
            hidden: [0.0; MAX_HIDDEN + MAX_HIDDEN2],
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
        let sigmoid = |z: f32| 1.0 / (1.0 + (-z).exp());
        let mut h = x.dot(&self.w1) + self.b1.view().insert_axis(Axis(0));
        h.mapv_inplace(sigmoid);
        let mut m = h.dot(&self.w_mid.t()) + self.b_mid.view().insert_axis(Axis(0));
        m.mapv_inplace(sigmoid);
        let both = ndarray::concatenate(Axis(1), &[h.view(), m.view()]).expect("same rows");
        let mut o = both.dot(&self.w2.t()) + self.b2.view().insert_axis(Axis(0));
        o.mapv_inplace(sigmoid);
        o
    }

    fn forward(&self, x: &SparseInputs, act: &mut Activations) {
        let layers = kernels::Layers {
            w1: self.w1.as_slice().expect("standard layout"),
            b1: self.b1.as_slice().expect("standard layout"),
            w_mid: self.w_mid.as_slice().expect("standard layout"),
            b_mid: self.b_mid.as_slice().expect("standard layout"),
            w2: self.w2.as_slice().expect("standard layout"),
            b2: self.b2.as_slice().expect("standard layout"),
        };
        kernels::forward(&layers, x, act);
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
        self.backward(x, target, act, &mut Sgd(alpha))
    }

    /// The gradient of the cross-entropy between the outputs for `x` and
    /// `target`, handed weight by weight to `sink` (which may step the
    /// weight at once, as [`Net::train`] does, or keep the gradient for a
    /// later step). Each weight is handed over after its value was used, so
    /// stepping at once is exact. Returns the outputs.
    pub fn backward(
        &mut self,
        x: &SparseInputs,
        target: &Probs,
        act: &mut Activations,
        sink: &mut impl GradientSink,
    ) -> Probs {
        self.forward(x, act);
        let (hidden, hidden2) = (self.hidden(), self.hidden2());
        let units = hidden + hidden2;
        // Cross-entropy through a sigmoid: the output error is y - t.
        let d_out: [f32; OUTPUTS] = std::array::from_fn(|k| act.out[k] - target.0[k]);
        let h = &act.hidden[..units];
        // The error at every hidden unit, both layers, as seen from the
        // outputs (then, for the first layer, also through the second).
        let mut d = [0.0f32; MAX_HIDDEN + MAX_HIDDEN2];
        let [w1, b1, w_mid, b_mid, w2, b2] = self.parameters_mut();
        for (k, row) in w2.chunks_exact_mut(units).enumerate() {
            for (dj, w) in d.iter_mut().zip(row.iter()) {
                *dj += d_out[k] * *w;
            }
            sink.take_row(Tensor::W2, k * units, row, d_out[k], h);
        }
        sink.take_row(Tensor::B2, 0, b2, 1.0, &d_out);
        if hidden2 > 0 {
            let (d1, d_mid) = d.split_at_mut(hidden);
            let (h1, h_mid) = h.split_at(hidden);
            for (dj, &hj) in d_mid.iter_mut().zip(h_mid) {
                *dj *= hj * (1.0 - hj);
            }
            for (j, row) in w_mid.chunks_exact_mut(hidden).enumerate() {
                for (di, w) in d1.iter_mut().zip(row.iter()) {
                    *di += d_mid[j] * *w;
                }
                sink.take_row(Tensor::WMid, j * hidden, row, d_mid[j], h1);
            }
            sink.take_row(Tensor::BMid, 0, b_mid, 1.0, &d_mid[..hidden2]);
        }
        for (dj, &hj) in d.iter_mut().zip(&h[..hidden]) {
            *dj *= hj * (1.0 - hj);
        }
        let d = &d[..hidden];
        for (&i, &v) in x.indices().iter().zip(x.values()) {
            let first = usize::from(i) * hidden;
            sink.take_row(Tensor::W1, first, &mut w1[first..first + hidden], v, d);
        }
        sink.take_row(Tensor::B1, 0, b1, 1.0, d);
        Probs(act.out)
    }

    /// The weights as flat slices, in [`Tensor`] order (the file's order).
    pub fn parameters(&self) -> [&[f32]; 6] {
        [
            self.w1.as_slice().expect("standard layout"),
            self.b1.as_slice().expect("standard layout"),
            self.w_mid.as_slice().expect("standard layout"),
            self.b_mid.as_slice().expect("standard layout"),
            self.w2.as_slice().expect("standard layout"),
            self.b2.as_slice().expect("standard layout"),
        ]
    }

    /// The weights as flat mutable slices, in [`Tensor`] order.
    pub fn parameters_mut(&mut self) -> [&mut [f32]; 6] {
        [
            self.w1.as_slice_mut().expect("standard layout"),
            self.b1.as_slice_mut().expect("standard layout"),
            self.w_mid.as_slice_mut().expect("standard layout"),
            self.b_mid.as_slice_mut().expect("standard layout"),
            self.w2.as_slice_mut().expect("standard layout"),
            self.b2.as_slice_mut().expect("standard layout"),
        ]
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
        let hidden2: usize = nets.iter().map(|n| n.hidden2()).sum();
        if hidden > MAX_HIDDEN
            || hidden2 > MAX_HIDDEN2
            || nets.iter().any(|n| n.inputs() != first.inputs())
        {
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
        let b_mid = side_by_side(Axis(0), nets.iter().map(|n| n.b_mid.view()).collect());
        // Each member's second layer reads only its own first layer.
        let mut w_mid = Array2::zeros((hidden2, hidden));
        let (mut row, mut col) = (0, 0);
        for n in nets {
            w_mid
                .slice_mut(s![row..row + n.hidden2(), col..col + n.hidden()])
                .assign(&n.w_mid);
            (row, col) = (row + n.hidden2(), col + n.hidden());
        }
        // The output layer reads every first layer, then every second.
        let firsts = nets.iter().map(|n| n.w2.slice(s![.., ..n.hidden()]));
        let seconds = nets.iter().map(|n| n.w2.slice(s![.., n.hidden()..]));
        let w2 = side_by_side(Axis(1), firsts.chain(seconds).collect()) * share;
        let b2 = nets
            .iter()
            .fold(Array1::zeros(OUTPUTS), |acc, n| acc + &n.b2)
            * share;
        Some(Net {
            w1,
            b1,
            w_mid,
            b_mid,
            w2,
            b2,
        })
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
        fold(&mut self.w_mid, &other.w_mid, &base.w_mid, scale);
        fold(&mut self.b_mid, &other.b_mid, &base.b_mid, scale);
        fold(&mut self.w2, &other.w2, &base.w2, scale);
        fold(&mut self.b2, &other.b2, &base.b2, scale);
    }
}

/// The hot loops, written once and compiled twice: for the baseline target
/// and, chosen at run time, for AVX2 with FMA.
mod kernels {
    use super::{Activations, BLOCK, BLOCK2};
    use crate::inputs::SparseInputs;

    /// A net's tensors as the kernels read them (row-major slices).
    pub struct Layers<'a> {
        pub w1: &'a [f32],
        pub b1: &'a [f32],
        pub w_mid: &'a [f32],
        pub b_mid: &'a [f32],
        pub w2: &'a [f32],
        pub b2: &'a [f32],
    }

    type Kernel = fn(&Layers<'_>, &SparseInputs, &mut Activations);

    /// The kernel for this CPU, chosen once.
    static KERNEL: std::sync::LazyLock<Kernel> = std::sync::LazyLock::new(|| {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::is_x86_feature_detected as has;
            if has!("avx2") && has!("fma") {
                return |layers, x, act| {
                    // SAFETY: the features were detected.
                    unsafe { forward_avx2(layers, x, act) }
                };
            }
        }
        forward_generic::<false>
    });

    pub fn forward(layers: &Layers<'_>, x: &SparseInputs, act: &mut Activations) {
        (*KERNEL)(layers, x, act)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn forward_avx2(layers: &Layers<'_>, x: &SparseInputs, act: &mut Activations) {
        first_layer_avx2(layers.w1, layers.b1, x, &mut act.hidden[..layers.b1.len()]);
        upper_layers::<true>(layers, act);
    }

    /// The first layer in AVX2 intrinsics: [`first_layer`]'s sums, the
    /// same fused multiply-adds in the same order (so the same bits), with
    /// the block's 32 accumulators pinned to four registers. Left to the
    /// compiler, the portable loop's code depended on unrelated changes
    /// elsewhere in the crate: twice it spilled the accumulators to memory
    /// and ran two to three times slower.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn first_layer_avx2(w1: &[f32], b1: &[f32], x: &SparseInputs, out: &mut [f32]) {
        use std::arch::x86_64::{
            _mm256_fmadd_ps, _mm256_loadu_ps, _mm256_set1_ps, _mm256_storeu_ps,
        };
        const _: () = assert!(BLOCK == 32, "four registers of eight lanes");
        let hidden = b1.len();
        for blk in (0..hidden).step_by(BLOCK) {
            let bias = &b1[blk..blk + BLOCK];
            // SAFETY: every load and store is of eight floats inside a
            // slice of BLOCK (bounds-checked when sliced).
            unsafe {
                let mut acc = [
                    _mm256_loadu_ps(bias.as_ptr()),
                    _mm256_loadu_ps(bias.as_ptr().add(8)),
                    _mm256_loadu_ps(bias.as_ptr().add(16)),
                    _mm256_loadu_ps(bias.as_ptr().add(24)),
                ];
                for (&i, &v) in x.indices().iter().zip(x.values()) {
                    let row = &w1[usize::from(i) * hidden + blk..][..BLOCK];
                    let v = _mm256_set1_ps(v);
                    for (k, a) in acc.iter_mut().enumerate() {
                        *a = _mm256_fmadd_ps(v, _mm256_loadu_ps(row.as_ptr().add(8 * k)), *a);
                    }
                }
                let mut sums = [0.0f32; BLOCK];
                for (k, a) in acc.iter().enumerate() {
                    _mm256_storeu_ps(sums.as_mut_ptr().add(8 * k), *a);
                }
                for (o, &z) in out[blk..blk + BLOCK].iter_mut().zip(&sums) {
                    *o = sigmoid::<true>(z);
                }
            }
        }
    }

    #[inline(always)]
    fn madd<const FMA: bool>(a: f32, b: f32, c: f32) -> f32 {
        if FMA {
            a.mul_add(b, c)
        } else {
            a * b + c
        }
    }

    /// `acc + a . b` over slices whose length is a multiple of 8, in eight
    /// lanes so that it vectorizes.
    #[inline(always)]
    fn dot<const FMA: bool>(a: &[f32], b: &[f32], acc: f32) -> f32 {
        let mut lanes = [0.0f32; BLOCK2];
        for (x, y) in a.chunks_exact(BLOCK2).zip(b.chunks_exact(BLOCK2)) {
            for ((l, &xk), &yk) in lanes.iter_mut().zip(x).zip(y) {
                *l = madd::<FMA>(xk, yk, *l);
            }
        }
        lanes.iter().sum::<f32>() + acc
    }

    /// The first hidden layer: the weight rows of the non-zero inputs
    /// summed, a block of units at a time. The loop keeps its indexed form:
    /// written with chunk iterators, the compiler spilled the accumulators
    /// to memory and evaluation ran 2.3 times slower.
    #[inline(always)]
    fn first_layer<const FMA: bool>(w1: &[f32], b1: &[f32], x: &SparseInputs, out: &mut [f32]) {
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
            out[blk..blk + BLOCK].copy_from_slice(&acc);
        }
    }

    fn forward_generic<const FMA: bool>(
        layers: &Layers<'_>,
        x: &SparseInputs,
        act: &mut Activations,
    ) {
        first_layer::<FMA>(layers.w1, layers.b1, x, &mut act.hidden[..layers.b1.len()]);
        upper_layers::<FMA>(layers, act);
    }

    /// The second hidden layer (if any) and the outputs, from the first
    /// layer's units in `act`.
    #[inline(always)]
    fn upper_layers<const FMA: bool>(layers: &Layers<'_>, act: &mut Activations) {
        let hidden = layers.b1.len();
        let units = hidden + layers.b_mid.len();
        let (first, second) = act.hidden.split_at_mut(hidden);
        for ((m, row), &b) in second
            .iter_mut()
            .zip(layers.w_mid.chunks_exact(hidden))
            .zip(layers.b_mid)
        {
            *m = sigmoid::<FMA>(dot::<FMA>(row, first, b));
        }
        for (k, row) in layers.w2.chunks_exact(units).enumerate() {
            act.out[k] = sigmoid::<FMA>(dot::<FMA>(&act.hidden[..units], row, layers.b2[k]));
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
    fn sparse_path_matches_the_dense_matrix_product_with_one_or_two_layers() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
        let nets = [Net::random(INPUTS, 64, &mut rng), deep(64, 24, 7)];
        let positions = [Position::start(), Position::start().swapped()];
        for (net, p) in nets.iter().flat_map(|n| positions.map(|p| (n, p))) {
            let mut act = net.activations();
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

    /// A net with a second layer that counts: its output weights random.
    fn deep(hidden: usize, hidden2: usize, seed: u64) -> Net {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let mut net = Net::random(INPUTS, hidden, &mut rng)
            .deepened(hidden2, &mut rng)
            .unwrap();
        net.w2.mapv_inplace(|_| rng.gen_range(-0.5..0.5));
        net.b_mid.mapv_inplace(|_| rng.gen_range(-0.5..0.5));
        net
    }

    #[test]
    fn a_deepened_net_evaluates_as_before_until_trained() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(6);
        let net = Net::random(INPUTS, 64, &mut rng);
        let deeper = net.deepened(16, &mut rng).unwrap();
        assert_eq!((deeper.hidden(), deeper.hidden2()), (64, 16));
        let mut act = deeper.activations();
        let x = SparseInputs::encode(&Position::start());
        assert_eq!(net.eval(&x, &mut act), deeper.eval(&x, &mut act));
        assert!(deeper.deepened(16, &mut rng).is_none());
        assert!(net.deepened(12, &mut rng).is_none());
        assert!(net.deepened(0, &mut rng).is_none());
        assert!(net.deepened(MAX_HIDDEN2 + BLOCK2, &mut rng).is_none());
    }

    /// The training step follows the gradient of the cross-entropy: each
    /// weight moves by `alpha` times the loss's slope along it, measured
    /// here by finite differences on the dense reference, in every layer.
    #[test]
    fn training_steps_follow_the_gradient_through_both_layers() {
        let net = deep(32, 16, 8);
        let pos = Position::start();
        let x = SparseInputs::encode(&pos);
        let dense = ndarray::Array2::from_shape_vec((1, INPUTS), x.dense()).unwrap();
        let target = [0.7f32, 0.2, 0.01, 0.15, 0.02];
        let loss = |n: &Net| -> f64 {
            let o = n.eval_dense(dense.view());
            (0..OUTPUTS)
                .map(|k| {
                    let (y, t) = (f64::from(o[[0, k]]), f64::from(target[k]));
                    -(t * y.ln() + (1.0 - t) * (1.0 - y).ln())
                })
                .sum()
        };
        let alpha = 1e-3;
        // A weight to probe, by its tensor and place; the w1 probe is a row
        // the position switches on.
        type Probe = Box<dyn Fn(&mut Net) -> &mut f32>;
        let input = usize::from(x.indices()[3]);
        let probes: [(&str, Probe); 6] = [
            ("w1", Box::new(move |n| &mut n.w1[[input, 5]])),
            ("b1", Box::new(|n| &mut n.b1[9])),
            ("w_mid", Box::new(|n| &mut n.w_mid[[3, 7]])),
            ("b_mid", Box::new(|n| &mut n.b_mid[2])),
            ("w2 (first layer)", Box::new(|n| &mut n.w2[[1, 4]])),
            ("w2 (second layer)", Box::new(|n| &mut n.w2[[0, 32 + 5]])),
        ];
        let mut moved = net.clone();
        moved.train(&x, &Probs(target), alpha, &mut net.activations());
        for (name, at) in probes {
            let eps = 1e-2f32;
            let (mut up, mut down) = (net.clone(), net.clone());
            *at(&mut up) += eps;
            *at(&mut down) -= eps;
            let slope = (loss(&up) - loss(&down)) / (2.0 * f64::from(eps));
            let step = f64::from(*at(&mut net.clone()) - *at(&mut moved)) / f64::from(alpha);
            assert!(
                (step - slope).abs() < 0.02 * slope.abs().max(0.05),
                "{name}: step {step} vs slope {slope}"
            );
        }
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
    fn an_ensemble_of_deep_nets_averages_their_logits() {
        let (a, b) = (deep(64, 16, 9), deep(32, 8, 10));
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
        let shallow = Net::random(INPUTS, 32, &mut rng);
        let all = Net::ensemble(&[&a, &shallow, &b]).unwrap();
        assert_eq!((all.hidden(), all.hidden2()), (128, 24));
        let logit = |p: f32| (p / (1.0 - p)).ln();
        let mut act = all.activations();
        let x = SparseInputs::encode(&Position::start());
        let members = [&a, &shallow, &b].map(|n| n.eval(&x, &mut act));
        let joint = all.eval(&x, &mut act);
        for k in 0..OUTPUTS {
            let want = members.iter().map(|p| logit(p.0[k])).sum::<f32>() / 3.0;
            assert!((logit(joint.0[k]) - want).abs() < 1e-3, "output {k}");
        }
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
