//! The backward pass: the gradient of the cross-entropy between a net's
//! outputs and a target, handed to a [`GradientSink`] that either steps
//! the weights at once ([`Sgd`], TD self-play) or keeps the gradient for a
//! later step ([`Gradient`], Adam on batches). The engine's nets only
//! infer; this is where they learn.

use sheshbesh_engine::evaluation::inputs::SparseInputs;
use sheshbesh_engine::evaluation::net::{Activations, Net, MAX_HIDDEN, MAX_HIDDEN2, OUTPUTS};
use sheshbesh_engine::Probs;

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
/// ([`backward`]); runs are handed over after their values were used,
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

/// The weights as flat mutable slices, in [`Tensor`] order (as [`Net::parameters`]).
pub fn parameters_mut(net: &mut Net) -> [&mut [f32]; 6] {
    let net = net.params_mut();
    [
        net.w1.as_slice_mut().expect("standard layout"),
        net.b1.as_slice_mut().expect("standard layout"),
        net.w_mid.as_slice_mut().expect("standard layout"),
        net.b_mid.as_slice_mut().expect("standard layout"),
        net.w2.as_slice_mut().expect("standard layout"),
        net.b2.as_slice_mut().expect("standard layout"),
    ]
}

/// One step of gradient descent on the cross-entropy between the
/// outputs for `x` and `target`, with learning rate `alpha`. Returns the
/// outputs before the step.
pub fn train(
    net: &mut Net,
    x: &SparseInputs,
    target: &Probs,
    alpha: f32,
    act: &mut Activations,
) -> Probs {
    backward(net, x, target, act, &mut Sgd(alpha))
}

/// The gradient of the cross-entropy between the outputs for `x` and
/// `target`, handed weight by weight to `sink` (which may step the
/// weight at once, as [`train`] does, or keep the gradient for a
/// later step). Each weight is handed over after its value was used, so
/// stepping at once is exact. Returns the outputs.
pub fn backward(
    net: &mut Net,
    x: &SparseInputs,
    target: &Probs,
    act: &mut Activations,
    sink: &mut impl GradientSink,
) -> Probs {
    net.forward_unpacked(x, act);
    let out = act.outputs();
    let (hidden, hidden2) = (net.hidden(), net.hidden2());
    let units = hidden + hidden2;
    // Cross-entropy through a sigmoid: the output error is y - t.
    let d_out: [f32; OUTPUTS] = std::array::from_fn(|k| out[k] - target.0[k]);
    let h = &act.hidden()[..units];
    // The error at every hidden unit, both layers, as seen from the
    // outputs (then, for the first layer, also through the second).
    let mut d = [0.0f32; MAX_HIDDEN + MAX_HIDDEN2];
    let [w1, b1, w_mid, b_mid, w2, b2] = parameters_mut(net);
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
    Probs(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::surgery::tests::deep;
    use rand::SeedableRng;
    use rand_xoshiro::Xoshiro256PlusPlus;
    use sheshbesh_engine::evaluation::inputs::Layout;
    use sheshbesh_engine::Position;

    #[test]
    fn training_moves_the_output_towards_the_target() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(2);
        let mut net = Net::random(Layout::V2.inputs(), 32, &mut rng);
        let mut act = net.activations();
        let x = SparseInputs::encode(&Position::start(), Layout::V2);
        let target = Probs([0.9, 0.3, 0.05, 0.1, 0.01]);
        let err = |p: Probs| -> f32 { p.0.iter().zip(target.0).map(|(a, b)| (a - b).abs()).sum() };
        let before = err(net.eval(&x, &mut act));
        for _ in 0..200 {
            train(&mut net, &x, &target, 0.05, &mut act);
        }
        let after = err(net.eval(&x, &mut act));
        assert!(after < before * 0.1, "{before} -> {after}");
    }

    /// The training step follows the gradient of the cross-entropy: each
    /// weight moves by `alpha` times the loss's slope along it, measured
    /// here by finite differences on the dense reference, in every layer.
    #[test]
    fn training_steps_follow_the_gradient_through_both_layers() {
        let net = deep(32, 16, 8);
        let pos = Position::start();
        let x = SparseInputs::encode(&pos, Layout::V2);
        let dense = ndarray::Array2::from_shape_vec(
            (1, Layout::V2.inputs()),
            x.dense_of(Layout::V2.inputs()),
        )
        .unwrap();
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
            ("w1", Box::new(move |n| &mut n.params_mut().w1[[input, 5]])),
            ("b1", Box::new(|n| &mut n.params_mut().b1[9])),
            ("w_mid", Box::new(|n| &mut n.params_mut().w_mid[[3, 7]])),
            ("b_mid", Box::new(|n| &mut n.params_mut().b_mid[2])),
            (
                "w2 (first layer)",
                Box::new(|n| &mut n.params_mut().w2[[1, 4]]),
            ),
            (
                "w2 (second layer)",
                Box::new(|n| &mut n.params_mut().w2[[0, 32 + 5]]),
            ),
        ];
        let mut moved = net.clone();
        train(
            &mut moved,
            &x,
            &Probs(target),
            alpha,
            &mut net.activations(),
        );
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
}
