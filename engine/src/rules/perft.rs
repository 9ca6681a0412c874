//! Deterministic move-generation signature (like a chess engine's perft):
//! how many distinct positions are reached from the opening after each ply.
//!
//! Ply 1 plays the 15 opening rolls (no doubles, as the opening rule
//! allows); later plies play all 21 rolls. Positions are counted by their
//! Position ID key, with the next player on roll; a pass counts as a ply.

use rustc_hash::FxHashSet;

use crate::rules::dice::Dice;
use crate::rules::movegen::{generate, MoveList};
use crate::rules::position::Position;

/// Distinct positions after plies 1..=depth from the opening.
pub fn distinct_positions(depth: usize) -> Vec<usize> {
    let mut list = MoveList::new();
    let mut frontier: Vec<Position> = vec![Position::start()];
    let mut counts = Vec::with_capacity(depth);
    for ply in 0..depth {
        let last = ply + 1 == depth;
        let mut seen: FxHashSet<u128> = FxHashSet::default();
        seen.reserve(frontier.len() * 200);
        let mut next = Vec::new();
        for pos in &frontier {
            for dice in Dice::all_21().filter(|d| ply > 0 || !d.is_double()) {
                generate(pos, dice, &mut list);
                for c in list.iter() {
                    let after = c.position.swapped();
                    if seen.insert(after.key()) && !last && !after.is_game_over() {
                        next.push(after);
                    }
                }
            }
        }
        counts.push(seen.len());
        frontier = next;
    }
    counts
}
