//! One self-play game and the TD(lambda) update it teaches.
//!
//! Both sides play greedily by 0-ply equity. Every position where a side
//! was on roll is recorded with the value of the play chosen from it (from
//! the mover's side). When the game ends, each recorded position gets its
//! lambda-return, `G_t = (1 - lambda) v_t + lambda flip(G_{t+1})`, ending
//! in the exact result, and the net takes one gradient step towards it.
//! Updating after the game (the offline forward view of TD(lambda)) keeps
//! every step sparse, where eligibility traces would touch every weight on
//! every move.

use rand::Rng;
use rand_xoshiro::Xoshiro256PlusPlus;
use sheshbesh_engine::evaluation::evaluator::{best_candidate, Evaluator, NetClass, NetEvaluator};
use sheshbesh_engine::evaluation::inputs::SparseInputs;
use sheshbesh_engine::rules::movegen::{generate, MoveList};
use sheshbesh_engine::{Dice, Position, Probs};

/// What one game taught.
#[derive(Clone, Copy, Debug, Default)]
pub struct GameStats {
    /// Positions trained on.
    pub plies: u32,
    /// Sum of squared win-probability errors before the updates.
    pub sq_error: f64,
}

/// Buffers reused from game to game.
#[derive(Default)]
pub struct Scratch {
    list: MoveList,
    values: Vec<Probs>,
    steps: Vec<(NetClass, SparseInputs, Probs)>,
    act: Option<sheshbesh_engine::evaluation::net::Activations>,
}

fn encoded(ev: &NetEvaluator, pos: &Position) -> SparseInputs {
    let mut x = SparseInputs::default();
    ev.encode_into(pos, &mut x);
    x
}

/// A roll of two fair dice.
pub(crate) fn roll(rng: &mut Xoshiro256PlusPlus) -> Dice {
    Dice::new(rng.gen_range(1..=6), rng.gen_range(1..=6)).expect("1..6")
}

/// Plays one game with `ev` against itself and trains it on the game.
pub fn play_and_learn(
    ev: &mut NetEvaluator,
    rng: &mut Xoshiro256PlusPlus,
    lambda: f32,
    alpha: f32,
    s: &mut Scratch,
) -> GameStats {
    s.steps.clear();
    let mut pos = Position::start();
    let mut dice = loop {
        let d = roll(rng);
        if !d.is_double() {
            break d;
        }
    };
    loop {
        generate(&pos, dice, &mut s.list);
        let (i, v) = best_candidate(&*ev, s.list.as_slice(), &mut s.values);
        // Bear-offs the databases know need no learning.
        if ev.exact(&pos).is_none() {
            s.steps.push((ev.class_of(&pos), encoded(ev, &pos), v));
        }
        let after = s.list.as_slice()[i].position;
        if after.me.off() == 15 {
            break;
        }
        pos = after.swapped();
        dice = roll(rng);
    }
    if s.steps.is_empty() {
        return GameStats::default();
    }
    // Lambda-returns, from the end back.
    let mut g = s.steps.last().expect("not empty").2;
    let n = s.steps.len();
    for t in (0..n - 1).rev() {
        let v = s.steps[t].2;
        let next = g.flipped();
        for k in 0..5 {
            g.0[k] = (1.0 - lambda) * v.0[k] + lambda * next.0[k];
        }
        s.steps[t].2 = g;
    }
    let act = s.act.get_or_insert_with(|| ev.contact.activations());
    let mut stats = GameStats::default();
    for (class, x, target) in &s.steps {
        let before = crate::backprop::train(ev.net_mut(*class), x, target, alpha, act);
        stats.sq_error += f64::from((before.win() - target.win()).powi(2));
        stats.plies += 1;
    }
    stats
}
