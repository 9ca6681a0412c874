//! A perceptron with sigmoid units and five sigmoid outputs ([`Probs`]),
//! evaluated in batches. Inference only: the trainer crate holds the
//! backward pass and the surgery that widens or folds nets.
//!
//! Every net has one hidden layer fed by the inputs; it may have a second,
//! dense one fed by the first. The outputs read both hidden layers (a skip
//! connection).
//!
//! The weights live in ndarray matrices. The first layer is computed
//! sparsely: a position switches on about a quarter of the inputs
//! ([`SparseInputs`]), so summing the weight rows of the non-zero inputs does
//! a quarter of the work of a dense matrix product. [`Net::eval_dense`] is the
//! plain ndarray matrix product, kept as the reference the fast path is
//! tested against. On x86-64 the hot loops are also written for AVX2 with
//! FMA and for AVX-512, the fastest the CPU has chosen at start
//! ([`kernel_name`] tells which); every build gives the same bits. (A whole
//! crate compiled for AVX-512 once measured slower on an AMD EPYC; the
//! kernel written for its registers is 1.3 times faster than AVX2's on
//! one with full-width AVX-512.)

use std::sync::OnceLock;

use ndarray::{Array1, Array2, ArrayView2, Axis};
use rand::Rng;

use crate::evaluation::inputs::SparseInputs;
use crate::evaluation::probs::Probs;

pub mod quantized;

use quantized::Quantized;

/// Outputs of every net.
pub const OUTPUTS: usize = 5;
/// Hidden layers are processed in blocks of this many units.
pub const BLOCK: usize = 32;
/// The most positions [`Net::forward_group`] takes through the first layer
/// together.
pub const GROUP: usize = 16;

/// A network: `inputs -> hidden (sigmoid) [-> hidden2 (sigmoid)] -> 5
/// (sigmoid)`, the outputs reading both hidden layers: its [`Params`] and,
/// made from them when first evaluated, the first layer in the layout the
/// fast kernel reads ([`Packed`]). Changing the parameters goes through
/// [`Net::params_mut`], which drops the packed copy, so the two never
/// disagree.
#[derive(Clone, Debug)]
pub struct Net {
    params: Params,
    packed: OnceLock<Packed>,
    quantized: OnceLock<Quantized>,
    first: FirstLayer,
}

/// How a net's first layer is computed when it evaluates (training
/// always reads the floats).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FirstLayer {
    /// In `f32`, the reference.
    #[default]
    Float,
    /// In 16-bit integers made from the floats ([`quantized`]).
    Int16,
}

/// A net's parameters, as the weights file stores them and training
/// changes them.
#[derive(Clone, Debug, PartialEq)]
pub struct Params {
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

impl From<Params> for Net {
    fn from(params: Params) -> Net {
        Net {
            params,
            packed: OnceLock::new(),
            quantized: OnceLock::new(),
            first: FirstLayer::Float,
        }
    }
}

impl PartialEq for Net {
    fn eq(&self, other: &Net) -> bool {
        self.params == other.params
    }
}

/// The first layer's weights a block of units at a time: for each block
/// (64 units, and a last one of 32 when the width asks), every input's row
/// of the block, one after another, the whole on 64-byte lines. In the
/// row-major `w1`, a block's rows lie a row of 512 floats (2 KB) apart,
/// which maps them all to an eighth of the L1 cache's sets, and half of
/// the loads straddled two cache lines; read this way the AVX2 kernel
/// measured 1.5 times faster at 512 units.
#[derive(Clone, Debug)]
pub struct Packed {
    lines: Vec<Line>,
}

/// Sixteen floats on a cache line of their own.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
struct Line([f32; 16]);

impl Packed {
    fn new(w1: &Array2<f32>) -> Packed {
        let (inputs, hidden) = w1.dim();
        let mut floats = Vec::with_capacity(inputs * hidden);
        for (blk, width) in blocks(hidden) {
            for row in w1.rows() {
                floats.extend(row.iter().skip(blk).take(width));
            }
        }
        let lines = floats
            .chunks_exact(16)
            .map(|c| Line(c.try_into().expect("sixteen")))
            .collect();
        Packed { lines }
    }

    /// The weights as floats, blocks one after another.
    fn floats(&self) -> &[f32] {
        // SAFETY: a `Line` is sixteen floats without padding (`repr(C)`,
        // 64 bytes), so the lines are `16 * len` floats back to back.
        unsafe { std::slice::from_raw_parts(self.lines.as_ptr().cast(), 16 * self.lines.len()) }
    }
}

/// The first layer's blocks of units, `(first unit, width)`: blocks of 64
/// (eight registers of accumulators, enough independent chains of
/// multiply-adds to keep the FMA units busy), then one of 32 for the rest.
fn blocks(hidden: usize) -> impl Iterator<Item = (usize, usize)> {
    (0..hidden)
        .step_by(2 * BLOCK)
        .map(move |blk| (blk, (hidden - blk).min(2 * BLOCK)))
}

/// The largest first hidden layer a net may have.
pub const MAX_HIDDEN: usize = 512;
/// The largest second hidden layer a net may have.
pub const MAX_HIDDEN2: usize = 128;
/// The second hidden layer's size is a multiple of this.
pub const BLOCK2: usize = 8;

/// A first layer's sums before the sigmoid (see [`Net::first_sums`]).
#[derive(Clone, Debug)]
pub struct FirstSums {
    z: [f32; MAX_HIDDEN],
    /// The sums of an [`FirstLayer::Int16`] net.
    q: [i32; MAX_HIDDEN],
}

impl Default for FirstSums {
    fn default() -> Self {
        FirstSums {
            z: [0.0; MAX_HIDDEN],
            q: [0; MAX_HIDDEN],
        }
    }
}

/// Scratch space of a forward pass (on the stack: evaluation allocates
/// nothing).
#[derive(Clone, Debug)]
pub struct Activations {
    /// Both hidden layers' units, the first layer's then the second's.
    hidden: [f32; MAX_HIDDEN + MAX_HIDDEN2],
    out: [f32; OUTPUTS],
    /// The integer first layer's sums.
    acc: [i32; MAX_HIDDEN],
    /// The integer first layer's inputs, in pairs.
    pairs: quantized::Pairs,
}

impl Activations {
    /// The hidden units of the last forward pass: the first layer's, then
    /// the second's (as many as the net has; the rest is scratch).
    pub fn hidden(&self) -> &[f32] {
        &self.hidden
    }

    /// The outputs of the last forward pass.
    pub fn outputs(&self) -> [f32; OUTPUTS] {
        self.out
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
        Net::from(Params {
            w1: Array2::from_shape_fn((inputs, hidden), |_| rng.gen_range(-r1..r1)),
            b1: Array1::zeros(hidden),
            w_mid: Array2::zeros((0, hidden)),
            b_mid: Array1::zeros(0),
            w2: Array2::from_shape_fn((OUTPUTS, hidden), |_| rng.gen_range(-r2..r2)),
            b2: Array1::zeros(OUTPUTS),
        })
    }

    /// The parameters.
    pub fn params(&self) -> &Params {
        &self.params
    }

    /// The parameters, to change (the packed first layer is made again
    /// when next evaluated).
    pub fn params_mut(&mut self) -> &mut Params {
        self.packed = OnceLock::new();
        self.quantized = OnceLock::new();
        &mut self.params
    }

    /// Computes the first layer as `first` when the net evaluates.
    pub fn set_first_layer(&mut self, first: FirstLayer) {
        self.first = first;
    }

    /// How the first layer is computed when the net evaluates.
    pub fn first_layer(&self) -> FirstLayer {
        self.first
    }

    /// The parameters, giving up the net.
    pub fn into_params(self) -> Params {
        self.params
    }

    /// Number of inputs.
    pub fn inputs(&self) -> usize {
        self.params.w1.nrows()
    }

    /// Number of hidden units in the first layer.
    pub fn hidden(&self) -> usize {
        self.params.w1.ncols()
    }

    /// Number of hidden units in the second layer (0: none).
    pub fn hidden2(&self) -> usize {
        self.params.w_mid.nrows()
    }

    /// Fresh scratch space for this net.
    pub fn activations(&self) -> Activations {
        Activations {
            hidden: [0.0; MAX_HIDDEN + MAX_HIDDEN2],
            out: [0.0; OUTPUTS],
            acc: [0; MAX_HIDDEN],
            pairs: quantized::Pairs::default(),
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
        let p = &self.params;
        let sigmoid = |z: f32| 1.0 / (1.0 + (-z).exp());
        let mut h = x.dot(&p.w1) + p.b1.view().insert_axis(Axis(0));
        h.mapv_inplace(sigmoid);
        let mut m = h.dot(&p.w_mid.t()) + p.b_mid.view().insert_axis(Axis(0));
        m.mapv_inplace(sigmoid);
        let both = ndarray::concatenate(Axis(1), &[h.view(), m.view()]).expect("same rows");
        let mut o = both.dot(&p.w2.t()) + p.b2.view().insert_axis(Axis(0));
        o.mapv_inplace(sigmoid);
        o
    }

    /// The forward pass into `act`: both hidden layers and the outputs, as
    /// training reads them ([`Activations::hidden`], [`Activations::outputs`]).
    pub fn forward(&self, x: &SparseInputs, act: &mut Activations) {
        let layers = self.layers();
        match self.first {
            FirstLayer::Float => kernels::forward(&layers, layers.b1, x, act),
            FirstLayer::Int16 => {
                let q = self.quantized();
                kernels::group_int(
                    kernels::chosen(),
                    &layers,
                    q,
                    &q.bias,
                    std::slice::from_ref(x),
                    std::slice::from_mut(act),
                )
            }
        }
    }

    /// [`Net::forward`], to the bit, from the row-major first layer alone:
    /// for training, which changes the weights after every forward pass,
    /// where making the packed copy again each time would cost more than
    /// it saves.
    pub fn forward_unpacked(&self, x: &SparseInputs, act: &mut Activations) {
        let layers = self.unpacked_layers();
        kernels::forward(&layers, layers.b1, x, act);
    }

    /// The forward pass of a group of positions (at most [`GROUP`]), each
    /// into its own scratch: as [`Net::forward`] one by one, to the bit, or
    /// as [`Net::eval_near`] from `near`'s sums when given. The first layer
    /// runs a block of units at a time across the whole group, so that the
    /// block's weight rows, which the plays of one roll mostly share, are
    /// read from the L1 cache rather than streamed from L2 or beyond for
    /// each position (512 units of f32 rows no longer fit in L2).
    pub fn forward_group(
        &self,
        near: Option<&FirstSums>,
        xs: &[SparseInputs],
        acts: &mut [Activations],
    ) {
        assert!(xs.len() <= GROUP && xs.len() == acts.len(), "a group");
        let layers = self.layers();
        if self.first == FirstLayer::Int16 {
            let q = self.quantized();
            let start = match near {
                Some(sums) => &sums.q[..q.hidden()],
                None => &q.bias,
            };
            return kernels::group_int(kernels::chosen(), &layers, q, start, xs, acts);
        }
        let start = match near {
            Some(sums) => &sums.z[..layers.b1.len()],
            None => layers.b1,
        };
        kernels::forward_group(&layers, start, xs, acts);
    }

    /// The first layer's sums for `x`, before the sigmoid: the start that
    /// [`Net::eval_near`] adds a nearby position's differences to.
    pub fn first_sums(&self, x: &SparseInputs, sums: &mut FirstSums) {
        let layers = self.layers();
        match self.first {
            FirstLayer::Float => {
                kernels::sums(&layers, layers.b1, x, &mut sums.z[..layers.b1.len()])
            }
            FirstLayer::Int16 => {
                let q = self.quantized();
                let mut pairs = quantized::Pairs::default();
                pairs.fill(x);
                kernels::int_sums(q, &q.bias, &pairs, &mut sums.q[..q.hidden()]);
            }
        }
    }

    /// Evaluates the position whose inputs are those `sums` were made from
    /// plus `delta` ([`SparseInputs::fill_difference`]). A play moves a few
    /// checkers, so a candidate differs from its parent in fewer inputs
    /// (about 18 in the middle game) than it has non-zero (about 40): the
    /// first layer, two thirds of an evaluation, then sums fewer rows.
    /// Equal to [`Net::eval`] up to the rounding of the reordered sums.
    pub fn eval_near(
        &self,
        sums: &FirstSums,
        delta: &SparseInputs,
        act: &mut Activations,
    ) -> Probs {
        match self.first {
            FirstLayer::Float => {
                let layers = self.layers();
                kernels::forward(&layers, &sums.z[..layers.b1.len()], delta, act);
            }
            FirstLayer::Int16 => self.forward_group(
                Some(sums),
                std::slice::from_ref(delta),
                std::slice::from_mut(act),
            ),
        }
        Probs(act.out)
    }

    /// The integer first layer (made now if not yet).
    fn quantized(&self) -> &Quantized {
        self.quantized
            .get_or_init(|| Quantized::new(&self.params.w1, &self.params.b1))
    }

    /// The tensors, the first layer also packed (made now if not yet).
    fn layers(&self) -> kernels::Layers<'_> {
        let packed = self.packed.get_or_init(|| Packed::new(&self.params.w1));
        kernels::Layers {
            packed: Some(packed.floats()),
            ..self.unpacked_layers()
        }
    }

    /// The tensors as stored, row-major.
    fn unpacked_layers(&self) -> kernels::Layers<'_> {
        let p = &self.params;
        kernels::Layers {
            w1: p.w1.as_slice().expect("standard layout"),
            packed: None,
            b1: p.b1.as_slice().expect("standard layout"),
            w_mid: p.w_mid.as_slice().expect("standard layout"),
            b_mid: p.b_mid.as_slice().expect("standard layout"),
            w2: p.w2.as_slice().expect("standard layout"),
            b2: p.b2.as_slice().expect("standard layout"),
        }
    }

    /// The weights as flat slices in the weights file's order: first layer
    /// weights and biases, second hidden layer weights and biases, output
    /// weights and biases.
    pub fn parameters(&self) -> [&[f32]; 6] {
        let p = &self.params;
        [
            p.w1.as_slice().expect("standard layout"),
            p.b1.as_slice().expect("standard layout"),
            p.w_mid.as_slice().expect("standard layout"),
            p.b_mid.as_slice().expect("standard layout"),
            p.w2.as_slice().expect("standard layout"),
            p.b2.as_slice().expect("standard layout"),
        ]
    }
}

/// The build of the hot loops this CPU runs: `avx512`, `avx2` or
/// `portable` (for benchmarks, which report it beside their figures).
pub fn kernel_name() -> &'static str {
    kernels::chosen().name
}

/// The build of the integer first layer's sums this CPU runs
/// (`avx512-vnni`, `avx2` or `portable`).
pub fn int_kernel_name() -> &'static str {
    kernels::chosen().int_name
}

/// The hot loops: portable, and in AVX2 and AVX-512 intrinsics, chosen at
/// run time by what the CPU has.
mod kernels {
    use super::quantized::{self, Pairs, Quantized};
    use super::{blocks, Activations, BLOCK, BLOCK2, OUTPUTS};
    use crate::evaluation::inputs::SparseInputs;

    /// A net's tensors as the kernels read them: row-major slices, and the
    /// first layer also as [`super::Packed`] lays it out if made, which the
    /// AVX2 kernels then read.
    pub struct Layers<'a> {
        pub w1: &'a [f32],
        pub packed: Option<&'a [f32]>,
        pub b1: &'a [f32],
        pub w_mid: &'a [f32],
        pub b_mid: &'a [f32],
        pub w2: &'a [f32],
        pub b2: &'a [f32],
    }

    /// The forward pass from first-layer sums `start` (the biases, or a
    /// nearby position's sums) plus the rows of `x`.
    pub type Forward = fn(&Layers<'_>, &[f32], &SparseInputs, &mut Activations);
    /// The first layer's sums alone: `start` plus the rows of `x`.
    pub type Sums = fn(&Layers<'_>, &[f32], &SparseInputs, &mut [f32]);
    /// [`Forward`] for a group of positions from one `start`.
    pub type Group = fn(&Layers<'_>, &[f32], &[SparseInputs], &mut [Activations]);

    /// The integer first layer's sums of a block of units `blk, width`
    /// ([`super::quantized`]).
    pub type IntSums = fn(&Quantized, &[i32], &Pairs, &mut [i32], usize, usize);
    /// Integer sums to the units' values: each sum times its unit's
    /// `unscale`, then the sigmoid.
    pub type Finish = fn(&[i32], &[f32], &mut [f32]);
    /// The layers above the first of a group of positions.
    pub type Upper = fn(&Layers<'_>, &mut [Activations]);

    /// One build of the hot loops: a forward pass, the first layer's
    /// sums, and a group's forward pass; for an integer first layer, its
    /// sums, their units' values and the layers above.
    #[derive(Clone, Copy)]
    pub struct Kernels {
        /// What it is compiled for.
        pub name: &'static str,
        pub forward: Forward,
        pub sums: Sums,
        pub group: Group,
        /// What the integer sums are compiled for.
        pub int_name: &'static str,
        pub int_sums: IntSums,
        /// The widest block of units `int_sums` takes at once.
        pub int_width: usize,
        pub finish: Finish,
        pub upper: Upper,
    }

    /// Every build this CPU can run, the fastest first: AVX-512 (its
    /// 32 registers of sixteen lanes hold 128 units of a first layer),
    /// AVX2 with FMA, and the portable loops, which every CPU runs. All
    /// but the last give the same bits (the portable loops round each
    /// multiply and add apart).
    pub fn available() -> Vec<Kernels> {
        let mut all = Vec::new();
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::is_x86_feature_detected as has;
            // SAFETY (each): the features were detected.
            let (int_name, int_sums, int_width): (_, IntSums, _) =
                if has!("avx512f") && has!("avx512bw") && has!("avx512vnni") {
                    (
                        "avx512-vnni",
                        |q, start, x, out, blk, width| unsafe {
                            quantized::block_vnni(q, start, x, out, blk, width)
                        },
                        2 * quantized::WIDTH,
                    )
                } else {
                    (
                        "avx2",
                        |q, start, x, out, blk, width| unsafe {
                            quantized::block_avx2(q, start, x, out, blk, width)
                        },
                        quantized::WIDTH,
                    )
                };
            if has!("avx512f") && has!("avx2") && has!("fma") {
                all.push(Kernels {
                    int_name,
                    int_sums,
                    int_width,
                    // SAFETY (each): the features were detected.
                    finish: |acc, unscale, out| unsafe { finish_avx512(acc, unscale, out) },
                    upper: |layers, acts| unsafe { upper_layers_group_avx512(layers, acts) },
                    name: "avx512",
                    // SAFETY (each): the features were detected.
                    forward: |layers, start, x, act| unsafe {
                        forward_avx512(layers, start, x, act)
                    },
                    sums: |layers, start, x, out| unsafe {
                        first_layer_avx512::<false>(layers, start, x, out)
                    },
                    group: |layers, start, xs, acts| unsafe {
                        forward_group_avx512(layers, start, xs, acts)
                    },
                });
            }
            if has!("avx2") && has!("fma") {
                all.push(Kernels {
                    int_name: "avx2",
                    // SAFETY (each): the features were detected.
                    int_sums: |q, start, x, out, blk, width| unsafe {
                        quantized::block_avx2(q, start, x, out, blk, width)
                    },
                    int_width: quantized::WIDTH,
                    finish: |acc, unscale, out| unsafe { finish_avx2(acc, unscale, out) },
                    upper: |layers, acts| unsafe { upper_layers_group_avx2(layers, acts) },
                    name: "avx2",
                    // SAFETY (each): the features were detected.
                    forward: |layers, start, x, act| unsafe { forward_avx2(layers, start, x, act) },
                    sums: |layers, start, x, out| unsafe {
                        first_layer_avx2::<false>(layers, start, x, out)
                    },
                    group: |layers, start, xs, acts| unsafe {
                        forward_group_avx2(layers, start, xs, acts)
                    },
                });
            }
        }
        all.push(Kernels {
            int_name: "portable",
            int_sums: quantized::block_portable,
            int_width: quantized::WIDTH,
            finish: finish_portable::<false>,
            upper: |layers, acts| {
                for act in acts {
                    upper_layers::<false>(layers, act);
                }
            },
            name: "portable",
            forward: forward_generic::<false>,
            sums: |layers, start, x, out| first_layer::<false, false>(layers.w1, start, x, out),
            group: |layers, start, xs, acts| {
                for (x, act) in xs.iter().zip(acts) {
                    forward_generic::<false>(layers, start, x, act);
                }
            },
        });
        all
    }

    /// The kernels for this CPU, chosen once.
    static KERNELS: std::sync::LazyLock<Kernels> = std::sync::LazyLock::new(|| available()[0]);

    pub fn chosen() -> &'static Kernels {
        &KERNELS
    }

    pub fn forward(layers: &Layers<'_>, start: &[f32], x: &SparseInputs, act: &mut Activations) {
        (KERNELS.forward)(layers, start, x, act)
    }

    pub fn forward_group(
        layers: &Layers<'_>,
        start: &[f32],
        xs: &[SparseInputs],
        acts: &mut [Activations],
    ) {
        (KERNELS.group)(layers, start, xs, acts)
    }

    pub fn sums(layers: &Layers<'_>, start: &[f32], x: &SparseInputs, out: &mut [f32]) {
        (KERNELS.sums)(layers, start, x, out)
    }

    /// The integer first layer's sums on this CPU.
    pub fn int_sums(q: &Quantized, start: &[i32], x: &Pairs, out: &mut [i32]) {
        for (blk, width) in int_blocks(&KERNELS, start.len()) {
            (KERNELS.int_sums)(q, start, x, out, blk, width)
        }
    }

    /// The blocks of units `kernels` sums at once: its widest, then the
    /// layout's blocks of 64 and 32.
    fn int_blocks(kernels: &Kernels, hidden: usize) -> impl Iterator<Item = (usize, usize)> {
        let widest = kernels.int_width;
        let mut blk = 0;
        std::iter::from_fn(move || {
            let left = hidden - blk;
            let width = if left >= widest {
                widest
            } else {
                left.min(quantized::WIDTH)
            };
            (width > 0).then(|| {
                blk += width;
                (blk - width, width)
            })
        })
    }

    /// The forward pass of a group with an integer first layer, from the
    /// integer sums `start`, in `kernels`' build.
    pub fn group_int(
        kernels: &Kernels,
        layers: &Layers<'_>,
        q: &Quantized,
        start: &[i32],
        xs: &[SparseInputs],
        acts: &mut [Activations],
    ) {
        let hidden = start.len();
        for (x, act) in xs.iter().zip(acts.iter_mut()) {
            act.pairs.fill(x);
        }
        // A block of units across the group, so that its weights stay in
        // the L1 cache.
        for (blk, width) in int_blocks(kernels, hidden) {
            for act in acts.iter_mut() {
                (kernels.int_sums)(q, start, &act.pairs, &mut act.acc[..hidden], blk, width);
            }
        }
        for act in acts.iter_mut() {
            (kernels.finish)(&act.acc[..hidden], &q.unscale, &mut act.hidden[..hidden]);
        }
        (kernels.upper)(layers, acts);
    }

    /// The portable build of [`Finish`].
    pub fn finish_portable<const FMA: bool>(acc: &[i32], unscale: &[f32], out: &mut [f32]) {
        for ((o, &a), &s) in out.iter_mut().zip(acc).zip(unscale) {
            *o = sigmoid::<FMA>(a as f32 * s);
        }
    }

    /// [`Finish`] in AVX2, eight units at a time (the same bits as
    /// [`finish_portable`] with fused multiply-adds).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn finish_avx2(acc: &[i32], unscale: &[f32], out: &mut [f32]) {
        use std::arch::x86_64::*;
        let n = out.len();
        assert!(n.is_multiple_of(8) && acc.len() >= n && unscale.len() >= n);
        for c in (0..n).step_by(8) {
            // SAFETY: eight lanes at `c < n` of slices of at least `n`.
            unsafe {
                let a = _mm256_cvtepi32_ps(_mm256_loadu_si256(acc.as_ptr().add(c).cast()));
                let z = _mm256_mul_ps(a, _mm256_loadu_ps(unscale.as_ptr().add(c)));
                _mm256_storeu_ps(out.as_mut_ptr().add(c), sigmoid_avx2(z));
            }
        }
    }

    /// [`Finish`] in AVX-512, sixteen units at a time.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx2,fma")]
    unsafe fn finish_avx512(acc: &[i32], unscale: &[f32], out: &mut [f32]) {
        use std::arch::x86_64::*;
        let n = out.len();
        assert!(n.is_multiple_of(BLOCK) && acc.len() >= n && unscale.len() >= n);
        for c in (0..n).step_by(16) {
            // SAFETY: sixteen lanes at `c < n` of slices of at least `n`.
            unsafe {
                let a = _mm512_cvtepi32_ps(_mm512_loadu_si512(acc.as_ptr().add(c).cast()));
                let z = _mm512_mul_ps(a, _mm512_loadu_ps(unscale.as_ptr().add(c)));
                _mm512_storeu_ps(out.as_mut_ptr().add(c), sigmoid_avx512(z));
            }
        }
    }

    /// The portable kernel with fused multiply-adds: the bits the SIMD
    /// kernels must reproduce.
    #[cfg(test)]
    pub fn forward_portable(
        layers: &Layers<'_>,
        start: &[f32],
        x: &SparseInputs,
        act: &mut Activations,
    ) {
        forward_generic::<true>(layers, start, x, act)
    }

    /// [`upper_layers`] with fused multiply-adds: the bits the SIMD
    /// kernels' upper layers must reproduce.
    #[cfg(test)]
    pub fn upper_layers_fma(layers: &Layers<'_>, act: &mut Activations) {
        upper_layers::<true>(layers, act)
    }

    /// [`forward_portable`]'s first-layer sums.
    #[cfg(test)]
    pub fn sums_portable(layers: &Layers<'_>, start: &[f32], x: &SparseInputs, out: &mut [f32]) {
        first_layer::<true, false>(layers.w1, start, x, out)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn forward_avx2(
        layers: &Layers<'_>,
        start: &[f32],
        x: &SparseInputs,
        act: &mut Activations,
    ) {
        let hidden = layers.b1.len();
        // SAFETY: the caller's CPU has AVX2 and FMA.
        unsafe { first_layer_avx2::<true>(layers, start, x, &mut act.hidden[..hidden]) };
        upper_layers::<true>(layers, act);
    }

    /// [`forward_avx2`] of each position of a group, the first layer's
    /// loops turned inside out: each block of units across the group.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn forward_group_avx2(
        layers: &Layers<'_>,
        start: &[f32],
        xs: &[SparseInputs],
        acts: &mut [Activations],
    ) {
        for (blk, width) in blocks(layers.b1.len()) {
            let (rows, stride) = block_rows(layers, blk, width);
            for (x, act) in xs.iter().zip(acts.iter_mut()) {
                // SAFETY: the caller's CPU has AVX2 and FMA.
                unsafe { block_avx2::<true>(rows, stride, start, x, &mut act.hidden, blk, width) };
            }
        }
        // SAFETY: the caller's CPU has AVX2 and FMA.
        unsafe { upper_layers_group_avx2(layers, acts) };
    }

    /// The first layer in AVX2 intrinsics: [`first_layer`]'s sums, the
    /// same fused multiply-adds in the same order (so the same bits), with
    /// each block's accumulators pinned to registers. Left to the
    /// compiler, the portable loop's code depended on unrelated changes
    /// elsewhere in the crate: twice it spilled the accumulators to memory
    /// and ran two to three times slower. Blocks of 64 units keep eight
    /// independent chains of multiply-adds in flight (a chain waits on its
    /// own last result; four chains left the FMA units half idle); a last
    /// block of 32 takes the rest. `SIGMOID`: the units' values, else the
    /// sums.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn first_layer_avx2<const SIGMOID: bool>(
        layers: &Layers<'_>,
        start: &[f32],
        x: &SparseInputs,
        out: &mut [f32],
    ) {
        const _: () = assert!(BLOCK == 32, "four registers of eight lanes");
        for (blk, width) in blocks(start.len()) {
            let (rows, stride) = block_rows(layers, blk, width);
            // SAFETY: the caller's CPU has AVX2 and FMA.
            unsafe { block_avx2::<SIGMOID>(rows, stride, start, x, out, blk, width) };
        }
    }

    /// The first layer's blocks for the AVX-512 kernel: two packed blocks
    /// of 64 at a time where there are two (eight registers of sixteen
    /// lanes), else the AVX2 kernel's block.
    fn blocks512(hidden: usize) -> impl Iterator<Item = (usize, usize)> {
        let mut blk = 0;
        std::iter::from_fn(move || {
            let left = hidden - blk;
            let width = if left >= 4 * BLOCK {
                4 * BLOCK
            } else {
                left.min(2 * BLOCK)
            };
            (width > 0).then(|| {
                blk += width;
                (blk - width, width)
            })
        })
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx2,fma")]
    unsafe fn forward_avx512(
        layers: &Layers<'_>,
        start: &[f32],
        x: &SparseInputs,
        act: &mut Activations,
    ) {
        let hidden = layers.b1.len();
        // SAFETY: the caller's CPU has AVX-512F, AVX2 and FMA.
        unsafe { first_layer_avx512::<true>(layers, start, x, &mut act.hidden[..hidden]) };
        upper_layers::<true>(layers, act);
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx2,fma")]
    unsafe fn forward_group_avx512(
        layers: &Layers<'_>,
        start: &[f32],
        xs: &[SparseInputs],
        acts: &mut [Activations],
    ) {
        for (blk, width) in blocks512(layers.b1.len()) {
            for (x, act) in xs.iter().zip(acts.iter_mut()) {
                // SAFETY: the caller's CPU has AVX-512F, AVX2 and FMA.
                unsafe { block_avx512::<true>(layers, start, x, &mut act.hidden, blk, width) };
            }
        }
        // SAFETY: the caller's CPU has AVX-512F, AVX2 and FMA.
        unsafe { upper_layers_group_avx512(layers, acts) };
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx2,fma")]
    unsafe fn first_layer_avx512<const SIGMOID: bool>(
        layers: &Layers<'_>,
        start: &[f32],
        x: &SparseInputs,
        out: &mut [f32],
    ) {
        for (blk, width) in blocks512(start.len()) {
            // SAFETY: the caller's CPU has AVX-512F, AVX2 and FMA.
            unsafe { block_avx512::<SIGMOID>(layers, start, x, out, blk, width) };
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx2,fma")]
    #[inline]
    unsafe fn block_avx512<const SIGMOID: bool>(
        layers: &Layers<'_>,
        start: &[f32],
        x: &SparseInputs,
        out: &mut [f32],
        blk: usize,
        width: usize,
    ) {
        if width == 4 * BLOCK {
            let (a, stride_a) = block_rows(layers, blk, 2 * BLOCK);
            let (b, stride_b) = block_rows(layers, blk + 2 * BLOCK, 2 * BLOCK);
            // SAFETY: the caller's CPU has AVX-512F.
            unsafe {
                registers_avx512::<SIGMOID>([(a, stride_a), (b, stride_b)], start, x, out, blk)
            }
        } else {
            let (rows, stride) = block_rows(layers, blk, width);
            // SAFETY: the caller's CPU has AVX2 and FMA.
            unsafe { block_avx2::<SIGMOID>(rows, stride, start, x, out, blk, width) }
        }
    }

    /// 128 units in eight registers of sixteen lanes: two blocks of 64,
    /// each input's row read from both.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx2,fma")]
    #[inline]
    unsafe fn registers_avx512<const SIGMOID: bool>(
        halves: [(&[f32], usize); 2],
        start: &[f32],
        x: &SparseInputs,
        out: &mut [f32],
        blk: usize,
    ) {
        use std::arch::x86_64::{
            __m512, _mm512_fmadd_ps, _mm512_loadu_ps, _mm512_set1_ps, _mm512_storeu_ps,
        };
        let from = &start[blk..blk + 4 * BLOCK];
        let [(a, sa), (b, sb)] = halves;
        // SAFETY: every load and store is of sixteen floats inside a slice
        // of 64 or 128 floats (bounds-checked when sliced).
        unsafe {
            let mut acc: [__m512; 8] =
                std::array::from_fn(|k| _mm512_loadu_ps(from.as_ptr().add(16 * k)));
            for (&i, &v) in x.indices().iter().zip(x.values()) {
                let i = usize::from(i);
                let ra = &a[i * sa..][..2 * BLOCK];
                let rb = &b[i * sb..][..2 * BLOCK];
                let v = _mm512_set1_ps(v);
                for k in 0..4 {
                    acc[k] = _mm512_fmadd_ps(v, _mm512_loadu_ps(ra.as_ptr().add(16 * k)), acc[k]);
                    acc[4 + k] =
                        _mm512_fmadd_ps(v, _mm512_loadu_ps(rb.as_ptr().add(16 * k)), acc[4 + k]);
                }
            }
            let out = &mut out[blk..blk + 4 * BLOCK];
            for (k, a) in acc.iter().enumerate() {
                let v = if SIGMOID { sigmoid_avx512(*a) } else { *a };
                _mm512_storeu_ps(out.as_mut_ptr().add(16 * k), v);
            }
        }
    }

    /// [`sigmoid`] of sixteen lanes, step for step (so the same bits).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx2,fma")]
    #[inline]
    unsafe fn sigmoid_avx512(x: std::arch::x86_64::__m512) -> std::arch::x86_64::__m512 {
        use std::arch::x86_64::*;
        let s = _mm512_set1_ps;
        let minus_x = _mm512_castsi512_ps(_mm512_xor_si512(
            _mm512_castps_si512(x),
            _mm512_set1_epi32(i32::MIN),
        ));
        let t = _mm512_mul_ps(minus_x, s(std::f32::consts::LOG2_E));
        let t = _mm512_min_ps(_mm512_max_ps(t, s(-126.0)), s(126.0));
        let ti = _mm512_cvttps_epi32(t);
        // Truncation to floor: one less where the truncation is above.
        let above = _mm512_cmp_ps_mask::<_CMP_GT_OQ>(_mm512_cvtepi32_ps(ti), t);
        let ti = _mm512_mask_sub_epi32(ti, above, ti, _mm512_set1_epi32(1));
        let f = _mm512_sub_ps(t, _mm512_cvtepi32_ps(ti));
        let mut p = s(EXP2[0]);
        for &c in &EXP2[1..] {
            p = _mm512_fmadd_ps(p, f, s(c));
        }
        let scale = _mm512_castsi512_ps(_mm512_slli_epi32::<23>(_mm512_add_epi32(
            ti,
            _mm512_set1_epi32(127),
        )));
        _mm512_div_ps(s(1.0), _mm512_add_ps(s(1.0), _mm512_mul_ps(p, scale)))
    }

    /// The weights of the first layer's units `blk .. blk + width`, input
    /// `i`'s at `i * stride`: from the packed copy when there is one, else
    /// from the row-major `w1`.
    fn block_rows<'a>(layers: &Layers<'a>, blk: usize, width: usize) -> (&'a [f32], usize) {
        let hidden = layers.b1.len();
        match layers.packed {
            Some(packed) => {
                let inputs = layers.w1.len() / hidden;
                (&packed[inputs * blk..inputs * (blk + width)], width)
            }
            None => (&layers.w1[blk..], hidden),
        }
    }

    /// Units `blk .. blk + width` of the first layer, from the block's
    /// `rows` ([`block_rows`]): 64 units in eight registers, or 32 in four.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    #[inline]
    unsafe fn block_avx2<const SIGMOID: bool>(
        rows: &[f32],
        stride: usize,
        start: &[f32],
        x: &SparseInputs,
        out: &mut [f32],
        blk: usize,
        width: usize,
    ) {
        if width == 2 * BLOCK {
            // SAFETY: the caller's CPU has AVX2 and FMA.
            unsafe { registers_avx2::<8, SIGMOID>(rows, stride, start, x, out, blk) }
        } else {
            debug_assert_eq!(width, BLOCK);
            // SAFETY: as above.
            unsafe { registers_avx2::<4, SIGMOID>(rows, stride, start, x, out, blk) }
        }
    }

    /// [`block_avx2`] for a width of `8 R` units, the accumulators in R
    /// registers.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    #[inline]
    unsafe fn registers_avx2<const R: usize, const SIGMOID: bool>(
        rows: &[f32],
        stride: usize,
        start: &[f32],
        x: &SparseInputs,
        out: &mut [f32],
        blk: usize,
    ) {
        use std::arch::x86_64::{
            __m256, _mm256_fmadd_ps, _mm256_loadu_ps, _mm256_set1_ps, _mm256_storeu_ps,
        };
        let width = 8 * R;
        let from = &start[blk..blk + width];
        // SAFETY: every load and store is of eight floats inside a slice
        // of `width` floats (bounds-checked when sliced).
        unsafe {
            let mut acc: [__m256; R] =
                std::array::from_fn(|k| _mm256_loadu_ps(from.as_ptr().add(8 * k)));
            for (&i, &v) in x.indices().iter().zip(x.values()) {
                let row = &rows[usize::from(i) * stride..][..width];
                let v = _mm256_set1_ps(v);
                for (k, a) in acc.iter_mut().enumerate() {
                    *a = _mm256_fmadd_ps(v, _mm256_loadu_ps(row.as_ptr().add(8 * k)), *a);
                }
            }
            let out = &mut out[blk..blk + width];
            for (k, a) in acc.iter().enumerate() {
                let v = if SIGMOID { sigmoid_avx2(*a) } else { *a };
                _mm256_storeu_ps(out.as_mut_ptr().add(8 * k), v);
            }
        }
    }

    /// [`sigmoid`] of eight lanes, step for step (so the same bits). Left
    /// to the compiler, the float-to-integer cast (saturating in Rust) ran
    /// lane by lane, and the sigmoid took as long as the first layer.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    #[inline]
    unsafe fn sigmoid_avx2(x: std::arch::x86_64::__m256) -> std::arch::x86_64::__m256 {
        use std::arch::x86_64::*;
        let s = _mm256_set1_ps;
        let t = _mm256_mul_ps(_mm256_xor_ps(x, s(-0.0)), s(std::f32::consts::LOG2_E));
        let t = _mm256_min_ps(_mm256_max_ps(t, s(-126.0)), s(126.0));
        let ti = _mm256_cvttps_epi32(t);
        // Truncation to floor: one less where the truncation is above
        // (the comparison's mask is -1 there).
        let above = _mm256_castps_si256(_mm256_cmp_ps::<_CMP_GT_OQ>(_mm256_cvtepi32_ps(ti), t));
        let ti = _mm256_add_epi32(ti, above);
        let f = _mm256_sub_ps(t, _mm256_cvtepi32_ps(ti));
        let mut p = s(EXP2[0]);
        for &c in &EXP2[1..] {
            p = _mm256_fmadd_ps(p, f, s(c));
        }
        let scale = _mm256_castsi256_ps(_mm256_slli_epi32::<23>(_mm256_add_epi32(
            ti,
            _mm256_set1_epi32(127),
        )));
        _mm256_div_ps(s(1.0), _mm256_add_ps(s(1.0), _mm256_mul_ps(p, scale)))
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
    /// summed onto `start`, a block of units at a time (`SIGMOID`: the
    /// units' values, else the sums). The loop keeps its indexed form:
    /// written with chunk iterators, the compiler spilled the accumulators
    /// to memory and evaluation ran 2.3 times slower.
    #[inline(always)]
    fn first_layer<const FMA: bool, const SIGMOID: bool>(
        w1: &[f32],
        start: &[f32],
        x: &SparseInputs,
        out: &mut [f32],
    ) {
        let hidden = start.len();
        let idx = x.indices();
        let val = x.values();
        for blk in (0..hidden).step_by(BLOCK) {
            // A block of accumulators small enough to stay in registers
            // while every non-zero input's row is added.
            let mut acc = [0.0f32; BLOCK];
            acc.copy_from_slice(&start[blk..blk + BLOCK]);
            for (&i, &v) in idx.iter().zip(val) {
                let row: &[f32; BLOCK] = w1[usize::from(i) * hidden + blk..][..BLOCK]
                    .try_into()
                    .expect("block");
                for (a, &w) in acc.iter_mut().zip(row) {
                    *a = madd::<FMA>(v, w, *a);
                }
            }
            if SIGMOID {
                for a in acc.iter_mut() {
                    *a = sigmoid::<FMA>(*a);
                }
            }
            out[blk..blk + BLOCK].copy_from_slice(&acc);
        }
    }

    fn forward_generic<const FMA: bool>(
        layers: &Layers<'_>,
        start: &[f32],
        x: &SparseInputs,
        act: &mut Activations,
    ) {
        let hidden = layers.b1.len();
        first_layer::<FMA, true>(layers.w1, start, x, &mut act.hidden[..hidden]);
        upper_layers::<FMA>(layers, act);
    }

    /// The second hidden layer (if any) and the outputs, from the first
    /// layer's units in `act`.
    #[inline(always)]
    fn upper_layers<const FMA: bool>(layers: &Layers<'_>, act: &mut Activations) {
        second_layer::<FMA>(layers, act);
        outputs::<FMA>(layers, act);
    }

    /// The second hidden layer (if any), from the first layer's units.
    #[inline(always)]
    fn second_layer<const FMA: bool>(layers: &Layers<'_>, act: &mut Activations) {
        let hidden = layers.b1.len();
        let (first, second) = act.hidden.split_at_mut(hidden);
        for ((m, row), &b) in second
            .iter_mut()
            .zip(layers.w_mid.chunks_exact(hidden))
            .zip(layers.b_mid)
        {
            *m = sigmoid::<FMA>(dot::<FMA>(row, first, b));
        }
    }

    /// [`upper_layers`] of a group, two positions at a time in AVX2: each
    /// output's eight lanes are one chain of multiply-adds, 64 long at 512
    /// units, so one position's five chains leave the FMA units waiting on
    /// their own results; two positions' ten keep them busy. Each chain
    /// is [`outputs`]' own, so the bits are too.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn upper_layers_group_avx2(layers: &Layers<'_>, acts: &mut [Activations]) {
        for act in acts.iter_mut() {
            second_layer::<true>(layers, act);
        }
        let mut pairs = acts.chunks_exact_mut(2);
        for pair in &mut pairs {
            // SAFETY: the caller's CPU has AVX2 and FMA.
            unsafe { outputs_avx2::<2>(layers, pair) };
        }
        for act in pairs.into_remainder() {
            outputs::<true>(layers, act);
        }
    }

    /// [`upper_layers`] of a group in AVX-512, four positions at a time:
    /// a register of sixteen lanes holds the eight lanes of two positions'
    /// chains ([`outputs_avx512`]), so ten registers carry four positions'
    /// twenty chains with half the AVX2 kernel's multiply-adds.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx2,fma")]
    unsafe fn upper_layers_group_avx512(layers: &Layers<'_>, acts: &mut [Activations]) {
        for act in acts.iter_mut() {
            second_layer::<true>(layers, act);
        }
        let mut quads = acts.chunks_exact_mut(4);
        for quad in &mut quads {
            // SAFETY: the caller's CPU has AVX-512F, AVX2 and FMA.
            unsafe { outputs_avx512::<2>(layers, quad) };
        }
        let mut pairs = quads.into_remainder().chunks_exact_mut(2);
        for pair in &mut pairs {
            // SAFETY: as above.
            unsafe { outputs_avx512::<1>(layers, pair) };
        }
        for act in pairs.into_remainder() {
            outputs::<true>(layers, act);
        }
    }

    /// The outputs of `2 Q` positions: register `q` holds positions `2q`
    /// (low eight lanes) and `2q + 1` (high eight) of each output's sums,
    /// each output's eight weights copied to both halves. Every lane is
    /// the chain [`outputs`] makes, so the bits are its own.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx2,fma")]
    #[inline]
    unsafe fn outputs_avx512<const Q: usize>(layers: &Layers<'_>, acts: &mut [Activations]) {
        use std::arch::x86_64::{
            __m512, _mm256_castps_pd, _mm256_loadu_ps, _mm512_broadcast_f64x4, _mm512_castpd_ps,
            _mm512_castps256_ps512, _mm512_castps_pd, _mm512_fmadd_ps, _mm512_insertf64x4,
            _mm512_loadu_ps, _mm512_setzero_ps, _mm512_storeu_ps,
        };
        let units = layers.b1.len() + layers.b_mid.len();
        let w2 = &layers.w2[..OUTPUTS * units];
        let acts = &mut acts[..2 * Q];
        // SAFETY: every load is of eight floats at `8 c` inside a slice of
        // `units` floats, a multiple of eight (bounds-checked when sliced).
        unsafe {
            let mut acc: [[__m512; OUTPUTS]; Q] = [[_mm512_setzero_ps(); OUTPUTS]; Q];
            let hidden: [[&[f32]; 2]; Q] = std::array::from_fn(|q| {
                [
                    &acts[2 * q].hidden[..units],
                    &acts[2 * q + 1].hidden[..units],
                ]
            });
            for c in (0..units).step_by(BLOCK2) {
                for (acc, [lo, hi]) in acc.iter_mut().zip(hidden) {
                    let lo = _mm256_loadu_ps(lo.as_ptr().add(c));
                    let hi = _mm256_loadu_ps(hi.as_ptr().add(c));
                    let h = _mm512_castpd_ps(_mm512_insertf64x4::<1>(
                        _mm512_castps_pd(_mm512_castps256_ps512(lo)),
                        _mm256_castps_pd(hi),
                    ));
                    for (k, a) in acc.iter_mut().enumerate() {
                        let w = _mm256_loadu_ps(w2.as_ptr().add(k * units + c));
                        let w = _mm512_castpd_ps(_mm512_broadcast_f64x4(_mm256_castps_pd(w)));
                        *a = _mm512_fmadd_ps(h, w, *a);
                    }
                }
            }
            // The outputs' sums, position after position, then their
            // sigmoids sixteen at a time (in scalars, a third of the time).
            let mut z = [0.0f32; 32];
            for (q, acc) in acc.into_iter().enumerate() {
                for (k, a) in acc.into_iter().enumerate() {
                    let mut lanes = [0.0f32; 2 * BLOCK2];
                    _mm512_storeu_ps(lanes.as_mut_ptr(), a);
                    for (p, half) in lanes.chunks_exact(BLOCK2).enumerate() {
                        z[(2 * q + p) * OUTPUTS + k] = half.iter().sum::<f32>() + layers.b2[k];
                    }
                }
            }
            for c in (0..2 * Q * OUTPUTS).step_by(16) {
                let v = sigmoid_avx512(_mm512_loadu_ps(z.as_ptr().add(c)));
                _mm512_storeu_ps(z.as_mut_ptr().add(c), v);
            }
            for (act, z) in acts.iter_mut().zip(z.chunks_exact(OUTPUTS)) {
                act.out.copy_from_slice(z);
            }
        }
    }

    /// The outputs of `P` positions side by side ([`outputs`]' sums).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    #[inline]
    unsafe fn outputs_avx2<const P: usize>(layers: &Layers<'_>, acts: &mut [Activations]) {
        use std::arch::x86_64::{
            __m256, _mm256_fmadd_ps, _mm256_loadu_ps, _mm256_setzero_ps, _mm256_storeu_ps,
        };
        let units = layers.b1.len() + layers.b_mid.len();
        let w2 = &layers.w2[..OUTPUTS * units];
        let acts = &mut acts[..P];
        // SAFETY: every load is of eight floats at `8 c` inside a slice of
        // `units` floats, a multiple of eight (bounds-checked when sliced).
        unsafe {
            let mut acc: [[__m256; OUTPUTS]; P] = [[_mm256_setzero_ps(); OUTPUTS]; P];
            let hidden: [&[f32]; P] = std::array::from_fn(|p| &acts[p].hidden[..units]);
            for c in (0..units).step_by(BLOCK2) {
                for (acc, h) in acc.iter_mut().zip(hidden) {
                    let h = _mm256_loadu_ps(h.as_ptr().add(c));
                    for (k, a) in acc.iter_mut().enumerate() {
                        let w = _mm256_loadu_ps(w2.as_ptr().add(k * units + c));
                        *a = _mm256_fmadd_ps(h, w, *a);
                    }
                }
            }
            for (act, acc) in acts.iter_mut().zip(acc) {
                for (k, a) in acc.into_iter().enumerate() {
                    let mut lanes = [0.0f32; BLOCK2];
                    _mm256_storeu_ps(lanes.as_mut_ptr(), a);
                    act.out[k] = sigmoid::<true>(lanes.iter().sum::<f32>() + layers.b2[k]);
                }
            }
        }
    }

    /// The outputs from both hidden layers' units.
    #[inline(always)]
    fn outputs<const FMA: bool>(layers: &Layers<'_>, act: &mut Activations) {
        let units = layers.b1.len() + layers.b_mid.len();
        // The five outputs' sums side by side: five independent chains of
        // multiply-adds instead of one chain at a time (each output's own
        // order, so its bits, as [`dot`] would give).
        let mut lanes = [[0.0f32; BLOCK2]; OUTPUTS];
        for (c, h) in act.hidden[..units].chunks_exact(BLOCK2).enumerate() {
            for (k, out) in lanes.iter_mut().enumerate() {
                let w = &layers.w2[k * units + c * BLOCK2..][..BLOCK2];
                for ((l, &hk), &wk) in out.iter_mut().zip(h).zip(w) {
                    *l = madd::<FMA>(hk, wk, *l);
                }
            }
        }
        for (k, out) in lanes.iter().enumerate() {
            act.out[k] = sigmoid::<FMA>(out.iter().sum::<f32>() + layers.b2[k]);
        }
    }

    /// 2^f on [0, 1): a degree-6 fit at Chebyshev nodes (error 3e-9),
    /// highest power first.
    const EXP2: [f32; 7] = [
        2.187_751_6e-4,
        1.238_783_2e-3,
        9.684_577e-3,
        5.548_042_9e-2,
        2.402_305e-1,
        6.931_469_3e-1,
        1.0,
    ];

    /// `1 / (1 + e^-x)` with a vectorizable exponential (relative error
    /// about 1e-7 before the division).
    #[inline(always)]
    pub fn sigmoid<const FMA: bool>(x: f32) -> f32 {
        // e^-x = 2^t, t = -x log2(e), split into integer and fraction.
        let t = (-x * std::f32::consts::LOG2_E).clamp(-126.0, 126.0);
        let ti = t as i32;
        let ti = ti - i32::from((ti as f32) > t);
        let f = t - ti as f32;
        let mut p = EXP2[0];
        for &c in &EXP2[1..] {
            p = madd::<FMA>(p, f, c);
        }
        let scale = f32::from_bits(((ti + 127) as u32) << 23);
        1.0 / (1.0 + p * scale)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evaluation::inputs::Layout;
    use crate::rules::position::Position;
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

    /// A net with a second hidden layer of `hidden2` random units that the
    /// outputs read.
    fn deep(hidden: usize, hidden2: usize, seed: u64) -> Net {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let net = Net::random(Layout::V2.inputs(), hidden, &mut rng);
        let mut r = || rng.gen_range(-0.5f32..0.5);
        Net::from(Params {
            w_mid: Array2::from_shape_fn((hidden2, hidden), |_| r()),
            b_mid: Array1::from_shape_fn(hidden2, |_| r()),
            w2: Array2::from_shape_fn((OUTPUTS, hidden + hidden2), |_| r()),
            ..net.into_params()
        })
    }

    #[test]
    fn sparse_path_matches_the_dense_matrix_product_with_one_or_two_layers() {
        let layout = Layout::V2;
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
        let nets = [Net::random(layout.inputs(), 64, &mut rng), deep(64, 24, 7)];
        let positions = [Position::start(), Position::start().swapped()];
        for (net, p) in nets.iter().flat_map(|n| positions.map(|p| (n, p))) {
            let mut act = net.activations();
            let x = SparseInputs::encode(&p, layout);
            let fast = net.eval(&x, &mut act);
            let dense = net.eval_dense(
                ndarray::Array2::from_shape_vec((1, layout.inputs()), x.dense_of(layout.inputs()))
                    .unwrap()
                    .view(),
            );
            for k in 0..OUTPUTS {
                assert!((fast.0[k] - dense[[0, k]]).abs() < 1e-5);
            }
            assert_eq!(act.outputs(), fast.0);
            assert_eq!(act.hidden().len(), MAX_HIDDEN + MAX_HIDDEN2);
        }
    }

    /// Every SIMD build this CPU runs gives the portable kernel's bits,
    /// whatever the width (blocks of 128, 64 and 32 units): one position
    /// at a time, its first layer's sums, and groups (full, of seven and three, of one)
    /// from a nearby position's sums.
    #[test]
    fn every_fast_kernel_gives_the_portable_kernels_bits() {
        let layout = Layout::V2;
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
        let xs: Vec<SparseInputs> = plays()
            .iter()
            .map(|p| SparseInputs::encode(p, layout))
            .collect();
        let simd: Vec<_> = kernels::available()
            .into_iter()
            .filter(|k| k.name != "portable")
            .collect();
        eprintln!(
            "SIMD kernels here: {:?}",
            simd.iter().map(|k| k.name).collect::<Vec<_>>()
        );
        for hidden in [32, 64, 96, 160, 256, 288, 448, 512] {
            let net = if hidden == 96 {
                deep(hidden, 24, 8)
            } else {
                Net::random(layout.inputs(), hidden, &mut rng)
            };
            let layers = net.layers();
            let mut start = [0.0f32; MAX_HIDDEN];
            kernels::sums_portable(&layers, layers.b1, &xs[0], &mut start[..hidden]);
            let start = &start[..hidden];
            let mut want = net.activations();
            for k in &simd {
                let mut got: Vec<Activations> = (0..GROUP).map(|_| net.activations()).collect();
                for group in xs
                    .chunks(GROUP)
                    .take(3)
                    .chain([&xs[..7], &xs[..3], &xs[..1]])
                {
                    (k.group)(&layers, start, group, &mut got[..group.len()]);
                    for (x, act) in group.iter().zip(&got) {
                        kernels::forward_portable(&layers, start, x, &mut want);
                        assert_eq!(
                            bits(act.hidden()),
                            bits(want.hidden()),
                            "{} {hidden}",
                            k.name
                        );
                        assert_eq!(act.outputs(), want.outputs(), "{} {hidden}", k.name);
                        let mut one = net.activations();
                        (k.forward)(&layers, start, x, &mut one);
                        assert_eq!(
                            bits(one.hidden()),
                            bits(want.hidden()),
                            "{} {hidden}",
                            k.name
                        );
                        assert_eq!(one.outputs(), want.outputs(), "{} {hidden}", k.name);
                        let (mut a, mut b) = ([0.0f32; MAX_HIDDEN], [0.0f32; MAX_HIDDEN]);
                        (k.sums)(&layers, start, x, &mut a[..hidden]);
                        kernels::sums_portable(&layers, start, x, &mut b[..hidden]);
                        assert_eq!(bits(&a), bits(&b), "{} {hidden}", k.name);
                    }
                }
            }
        }
    }

    /// Plays of several rolls from the start, as the opponent sees them.
    fn plays() -> Vec<Position> {
        let mut list = crate::rules::movegen::MoveList::new();
        let mut plays = Vec::new();
        for (a, b) in [(6, 4), (3, 1), (5, 5), (2, 1)] {
            let dice = crate::rules::dice::Dice::new(a, b).unwrap();
            crate::rules::movegen::generate(&Position::start(), dice, &mut list);
            plays.extend(list.as_slice().iter().map(|c| c.position.swapped()));
        }
        plays
    }

    fn bits(v: &[f32]) -> Vec<u32> {
        v.iter().map(|f| f.to_bits()).collect()
    }

    /// A group's forward pass gives each position's own bits: from the
    /// biases as [`Net::forward`] and [`Net::forward_unpacked`], from a
    /// nearby position's sums as [`Net::eval_near`], groups full and not.
    #[test]
    fn groups_give_one_at_a_times_bits() {
        let layout = Layout::V2;
        let plays = plays();
        assert!(plays.len() > 3 * GROUP, "{}", plays.len());
        let xs: Vec<SparseInputs> = plays
            .iter()
            .map(|p| SparseInputs::encode(p, layout))
            .collect();
        let reference =
            crate::evaluation::inputs::Reference::new(&Position::start().swapped(), layout);
        let deltas: Vec<SparseInputs> = plays
            .iter()
            .map(|p| {
                let mut d = SparseInputs::default();
                d.fill_difference(p, &reference);
                d
            })
            .collect();
        for net in [deep(96, 32, 4), deep(512, 0, 5)] {
            let mut sums = FirstSums::default();
            net.first_sums(reference.inputs(), &mut sums);
            let mut acts: Vec<Activations> = (0..GROUP).map(|_| net.activations()).collect();
            let mut one = net.activations();
            let groups = xs.chunks(GROUP).zip(deltas.chunks(GROUP));
            for (group, near) in groups.chain([(&xs[..3], &deltas[..3])]) {
                let acts = &mut acts[..group.len()];
                net.forward_group(None, group, acts);
                for (x, act) in group.iter().zip(acts.iter()) {
                    net.forward(x, &mut one);
                    assert_eq!(bits(act.hidden()), bits(one.hidden()));
                    assert_eq!(act.outputs(), one.outputs());
                    net.forward_unpacked(x, &mut one);
                    assert_eq!(bits(act.hidden()), bits(one.hidden()));
                }
                net.forward_group(Some(&sums), near, acts);
                for (d, act) in near.iter().zip(acts.iter()) {
                    assert_eq!(act.outputs(), net.eval_near(&sums, d, &mut one).0);
                }
            }
        }
    }

    /// A weight changed through [`Net::params_mut`] is read by the next
    /// evaluation: the packed first layer is made again, never stale.
    #[test]
    fn changed_weights_are_evaluated_with_their_new_values() {
        let layout = Layout::V2;
        let x = SparseInputs::encode(&Position::start(), layout);
        let mut net = deep(64, 0, 6);
        let mut act = net.activations();
        let before = net.eval(&x, &mut act);
        let first = usize::from(x.indices()[0]);
        net.params_mut().w1[[first, 10]] += 3.0;
        let after = net.eval(&x, &mut act);
        assert_ne!(before, after);
        let fresh = Net::from(net.params().clone());
        assert_eq!(after, fresh.eval(&x, &mut act));
    }
}

/// The integer first layer ([`quantized`]).
#[cfg(test)]
mod int16_tests {
    use super::*;
    use crate::evaluation::inputs::{Layout, Reference};
    use crate::rules::position::Position;
    use rand::SeedableRng;
    use rand_xoshiro::Xoshiro256PlusPlus;

    fn bits(v: &[f32]) -> Vec<u32> {
        v.iter().map(|f| f.to_bits()).collect()
    }

    /// Plays of several rolls from a few positions, as the opponent sees
    /// them, and the positions before them.
    fn plays() -> (Vec<Position>, Vec<Position>) {
        let mut list = crate::rules::movegen::MoveList::new();
        let mut plays = Vec::new();
        let mut befores = vec![Position::start()];
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(9);
        for _ in 0..12 {
            let from = *befores.last().expect("one");
            let dice = crate::rules::dice::Dice::new(rng.gen_range(1..=6), rng.gen_range(1..=6))
                .expect("dice");
            crate::rules::movegen::generate(&from, dice, &mut list);
            plays.extend(list.as_slice().iter().map(|c| c.position.swapped()));
            let next = list.as_slice()[rng.gen_range(0..list.len())]
                .position
                .swapped();
            befores.push(next);
        }
        (befores, plays)
    }

    fn int_net(hidden: usize, seed: u64) -> Net {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let mut net = Net::random(Layout::V3.inputs(), hidden, &mut rng);
        net.params_mut()
            .b1
            .mapv_inplace(|_| rng.gen_range(-1.0..1.0));
        net.set_first_layer(FirstLayer::Int16);
        net
    }

    /// Every build of the integer kernels gives the portable build's
    /// integer sums, and its bits above them with fused multiply-adds, at
    /// every width and group size, from the biases and from a nearby
    /// position's sums.
    #[test]
    fn every_integer_kernel_gives_the_portable_kernels_bits() {
        let layout = Layout::V3;
        let (befores, plays) = plays();
        let xs: Vec<SparseInputs> = plays
            .iter()
            .map(|p| SparseInputs::encode(p, layout))
            .collect();
        let all = kernels::available();
        let portable = *all.last().expect("the portable build");
        let reference = kernels::Kernels {
            finish: kernels::finish_portable::<true>,
            upper: |layers, acts| {
                for act in acts {
                    kernels::upper_layers_fma(layers, act);
                }
            },
            ..portable
        };
        eprintln!(
            "integer kernels here: {:?}",
            all.iter().map(|k| k.int_name).collect::<Vec<_>>()
        );
        for hidden in [32, 64, 96, 160, 256, 288, 512] {
            let net = int_net(hidden, hidden as u64);
            let layers = net.layers();
            let q = net.quantized();
            let mut near = FirstSums::default();
            net.first_sums(&SparseInputs::encode(&befores[1], layout), &mut near);
            for start in [&q.bias[..], &near.q[..hidden]] {
                for k in &all {
                    for group in xs
                        .chunks(GROUP)
                        .take(3)
                        .chain([&xs[..7], &xs[..3], &xs[..1]])
                    {
                        let n = group.len();
                        let mut got: Vec<Activations> = (0..n).map(|_| net.activations()).collect();
                        let mut want = got.clone();
                        kernels::group_int(k, &layers, q, start, group, &mut got);
                        kernels::group_int(&reference, &layers, q, start, group, &mut want);
                        for (g, w) in got.iter().zip(&want) {
                            assert_eq!(g.acc, w.acc, "{} {hidden}", k.int_name);
                            // The portable build rounds each multiply and
                            // add apart above the integer sums.
                            if k.name != "portable" {
                                assert_eq!(
                                    bits(g.hidden()),
                                    bits(w.hidden()),
                                    "{} {hidden}",
                                    k.name
                                );
                                assert_eq!(g.outputs(), w.outputs(), "{} {hidden}", k.name);
                            }
                        }
                    }
                }
            }
        }
    }

    /// The integer layer values positions within a few ten-thousandths
    /// of the floats, from the biases and from a nearby position's sums, and
    /// the two ways within rounding of each other; a group gives each
    /// position's own bits.
    #[test]
    fn integer_values_stay_near_the_floats() {
        let layout = Layout::V3;
        let (befores, plays) = plays();
        let net = int_net(128, 11);
        let mut float = net.clone();
        float.set_first_layer(FirstLayer::Float);
        let reference = Reference::new(&befores[3], layout);
        let mut sums = FirstSums::default();
        net.first_sums(reference.inputs(), &mut sums);
        let (mut act, mut other) = (net.activations(), net.activations());
        let mut worst = [0f32; 2];
        for p in &plays {
            let x = SparseInputs::encode(p, layout);
            let int = net.eval(&x, &mut act);
            let exact = float.eval(&x, &mut other);
            let mut d = SparseInputs::default();
            d.fill_difference(p, &reference);
            let near = net.eval_near(&sums, &d, &mut other);
            for k in 0..OUTPUTS {
                worst[0] = worst[0].max((int.0[k] - exact.0[k]).abs());
                worst[1] = worst[1].max((int.0[k] - near.0[k]).abs());
            }
            let mut group = [net.activations()];
            net.forward_group(None, std::slice::from_ref(&x), &mut group);
            assert_eq!(group[0].outputs(), int.0);
        }
        assert!(worst[0] < 5e-4 && worst[1] < 2e-4, "{worst:?}");
        assert!(worst[0] > 0.0, "the integer layer rounds");
    }

    /// No position's inputs add up to more than the integer sums leave
    /// room for, nor a play's differences from the position before it
    /// exceed an `i16`: checked over random games.
    #[test]
    fn inputs_stay_inside_the_integer_range() {
        use crate::rules::movegen::{generate, MoveList};
        let layout = Layout::V3;
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(21);
        let mut list = MoveList::new();
        let (mut total, mut step) = (0f32, 0f32);
        for _ in 0..200 {
            let mut pos = Position::start();
            for _ in 0..200 {
                let dice =
                    crate::rules::dice::Dice::new(rng.gen_range(1..=6), rng.gen_range(1..=6))
                        .expect("dice");
                generate(&pos, dice, &mut list);
                let reference = Reference::new(&pos.swapped(), layout);
                for c in list.as_slice() {
                    let after = c.position.swapped();
                    let x = SparseInputs::encode(&after, layout);
                    total = total.max(x.values().iter().map(|v| v.abs()).sum());
                    let mut d = SparseInputs::default();
                    d.fill_difference(&after, &reference);
                    step = step.max(d.values().iter().fold(0f32, |m, v| m.max(v.abs())));
                }
                let c = list.as_slice()[rng.gen_range(0..list.len())];
                if c.position.me.off() == 15 {
                    break;
                }
                pos = c.position.swapped();
            }
        }
        assert!(total < quantized::INPUTS_TOTAL_MAX * 0.75, "{total}");
        assert!(
            step * quantized::INPUT_SCALE < f32::from(i16::MAX),
            "{step}"
        );
    }

    /// Changed weights are quantized again.
    #[test]
    fn changed_weights_are_quantized_again() {
        let x = SparseInputs::encode(&Position::start(), Layout::V3);
        let mut net = int_net(64, 6);
        let mut act = net.activations();
        let before = net.eval(&x, &mut act);
        let first = usize::from(x.indices()[0]);
        net.params_mut().w1[[first, 10]] += 3.0;
        let after = net.eval(&x, &mut act);
        assert_ne!(before, after);
        let mut fresh = Net::from(net.params().clone());
        fresh.set_first_layer(FirstLayer::Int16);
        assert_eq!(after, fresh.eval(&x, &mut act));
    }
}
