//! Anything that picks a play of a roll: a search at some depth, the
//! 0-ply net ([`Greedy`]), pubeval, a random player, or a test double.
//! Duels, rollouts and the engine's own play take a [`Chooser`], so any of
//! them can stand in for another.

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::evaluation::evaluator::{best_candidate, Evaluator};
use crate::evaluation::probs::Probs;
use crate::evaluation::pubeval;
use crate::rules::movegen::Candidate;
use crate::rules::position::Position;

/// Something that picks a play: an evaluator at some depth, pubeval, or a
/// test double.
pub trait Chooser {
    /// The index of the chosen play among `candidates` (legal plays of a
    /// roll from `before`, never empty).
    fn choose(&mut self, before: &Position, candidates: &[Candidate]) -> usize;
}

/// pubeval as a player.
#[derive(Clone, Copy, Debug, Default)]
pub struct Pubeval;

impl Chooser for Pubeval {
    fn choose(&mut self, before: &Position, candidates: &[Candidate]) -> usize {
        pubeval::choose(before, candidates)
    }
}

/// Uniformly random legal plays (a test double and a floor).
#[derive(Clone, Debug)]
pub struct RandomPlayer(Xoshiro256PlusPlus);

impl RandomPlayer {
    /// A random player with its own seed.
    pub fn new(seed: u64) -> RandomPlayer {
        RandomPlayer(Xoshiro256PlusPlus::seed_from_u64(seed))
    }
}

impl Chooser for RandomPlayer {
    fn choose(&mut self, _before: &Position, candidates: &[Candidate]) -> usize {
        self.0.gen_range(0..candidates.len())
    }
}

/// A player that takes the play with the best 0-ply equity.
pub struct Greedy<'a, E: Evaluator + ?Sized> {
    eval: &'a E,
    scratch: Vec<Probs>,
}

impl<'a, E: Evaluator + ?Sized> Greedy<'a, E> {
    /// Plays by `eval`.
    pub fn new(eval: &'a E) -> Self {
        Greedy {
            eval,
            scratch: Vec::new(),
        }
    }
}

impl<E: Evaluator + ?Sized> Chooser for Greedy<'_, E> {
    fn choose(&mut self, _before: &Position, candidates: &[Candidate]) -> usize {
        best_candidate(self.eval, candidates, &mut self.scratch).0
    }
}
