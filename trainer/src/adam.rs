//! Adam (Kingma and Ba, 2015): gradient steps scaled weight by weight by
//! running averages of the gradient and of its square.
//!
//! Fitting labels is a supervised problem over a fixed set, where plain
//! per-position descent at the small rates a trained net tolerates barely
//! moves the error; Adam's per-weight scaling takes large steps along the
//! rarely-used weights (an input seen in few positions) and small ones along
//! the busy ones.

use crate::backprop::{self, parameters_mut, Gradient};
use sheshbesh_engine::evaluation::evaluator::{NetClass, NetEvaluator};
use sheshbesh_engine::evaluation::inputs::SparseInputs;
use sheshbesh_engine::evaluation::net::Net;
use sheshbesh_engine::Probs;

/// The optimizer's state for one net.
#[derive(Clone, Debug)]
pub struct Adam {
    m: Gradient,
    v: Gradient,
    steps: i32,
}

/// Decay of the gradient's running mean.
const BETA1: f32 = 0.9;
/// Decay of the running mean of its square.
const BETA2: f32 = 0.999;
/// Keeps the step finite where a weight never had a gradient.
const EPSILON: f32 = 1e-8;

impl Adam {
    /// Fresh state for `net`.
    pub fn new(net: &Net) -> Adam {
        Adam {
            m: Gradient::zeros(net),
            v: Gradient::zeros(net),
            steps: 0,
        }
    }

    /// One step of `net` against `grad` (a sum over `count` positions) at
    /// learning rate `alpha`.
    pub fn step(&mut self, net: &mut Net, grad: &Gradient, count: usize, alpha: f32) {
        self.steps += 1;
        let scale = 1.0 / count.max(1) as f32;
        // Bias correction: the running means start at zero.
        let c1 = 1.0 - BETA1.powi(self.steps);
        let c2 = 1.0 - BETA2.powi(self.steps);
        let rate = alpha * c2.sqrt() / c1;
        for (((w, g), m), v) in parameters_mut(net)
            .into_iter()
            .zip(&grad.0)
            .zip(&mut self.m.0)
            .zip(&mut self.v.0)
        {
            for (((w, &g), m), v) in w.iter_mut().zip(g).zip(m.iter_mut()).zip(v.iter_mut()) {
                let g = g * scale;
                *m = BETA1 * *m + (1.0 - BETA1) * g;
                *v = BETA2 * *v + (1.0 - BETA2) * g * g;
                *w -= rate * *m / (v.sqrt() + EPSILON);
            }
        }
    }
}

/// Adam on batches for each net of an evaluator: every net's state and the
/// gradient of the positions of the current batch that it evaluates, made
/// on first use.
#[derive(Default)]
pub struct BatchFit {
    nets: Vec<NetFit>,
}

/// One net's part of a [`BatchFit`].
struct NetFit {
    class: NetClass,
    adam: Adam,
    grad: Gradient,
    count: usize,
}

impl BatchFit {
    /// Adds the gradient of the cross-entropy between the outputs for `x`
    /// and `target` to the batch of the net of `class`; returns the outputs
    /// ([`crate::backprop::backward`]).
    pub fn backward(
        &mut self,
        ev: &mut NetEvaluator,
        class: NetClass,
        x: &SparseInputs,
        target: &Probs,
        act: &mut sheshbesh_engine::evaluation::net::Activations,
    ) -> Probs {
        let net = ev.net_mut(class);
        let k = match self.nets.iter().position(|n| n.class == class) {
            Some(k) => k,
            None => {
                self.nets.push(NetFit {
                    class,
                    adam: Adam::new(net),
                    grad: Gradient::zeros(net),
                    count: 0,
                });
                self.nets.len() - 1
            }
        };
        let n = &mut self.nets[k];
        n.count += 1;
        backprop::backward(net, x, target, act, &mut n.grad)
    }

    /// Steps every net that had positions in the batch, at rate `alpha`,
    /// and starts a new batch.
    pub fn step(&mut self, ev: &mut NetEvaluator, alpha: f32) {
        for n in self.nets.iter_mut().filter(|n| n.count > 0) {
            n.adam.step(ev.net_mut(n.class), &n.grad, n.count, alpha);
            n.grad.clear();
            n.count = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_xoshiro::Xoshiro256PlusPlus;
    use sheshbesh_engine::evaluation::inputs::SparseInputs;
    use sheshbesh_engine::rules::movegen::{generate, MoveList};
    use sheshbesh_engine::{Dice, Position, Probs};

    #[test]
    fn adam_fits_a_few_targets_closely() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(4);
        let mut net = Net::random(
            sheshbesh_engine::evaluation::inputs::Layout::V2.inputs(),
            32,
            &mut rng,
        );
        let mut list = MoveList::new();
        generate(&Position::start(), Dice::new(3, 1).unwrap(), &mut list);
        let positions = [Position::start(), list.as_slice()[0].position.swapped()];
        let xs: Vec<SparseInputs> = positions
            .iter()
            .map(|p| SparseInputs::encode(p, sheshbesh_engine::evaluation::inputs::Layout::V2))
            .collect();
        let targets = [
            Probs([0.7, 0.2, 0.01, 0.1, 0.01]),
            Probs([0.4, 0.1, 0.02, 0.3, 0.05]),
        ];
        let mut act = net.activations();
        let mut adam = Adam::new(&net);
        let mut grad = Gradient::zeros(&net);
        let error = |net: &mut Net, act: &mut _| -> f32 {
            xs.iter()
                .zip(&targets)
                .map(|(x, t)| (net.eval(x, act).win() - t.win()).abs())
                .fold(0.0, f32::max)
        };
        let before = error(&mut net, &mut act);
        for _ in 0..300 {
            grad.clear();
            for (x, t) in xs.iter().zip(&targets) {
                backprop::backward(&mut net, x, t, &mut act, &mut grad);
            }
            adam.step(&mut net, &grad, xs.len(), 0.01);
        }
        let after = error(&mut net, &mut act);
        assert!(before > 0.05, "{before}");
        assert!(after < 0.005, "{before} -> {after}");
    }
}
