//! Layer 1, the rules: the board as bitboards, dice, moves and their
//! generation, scoring under every rule option, and the state of a match.
//! Everything above is built on these types; this layer imports nothing
//! of the engine's.

pub mod dice;
pub mod error;
pub mod match_state;
pub mod movegen;
pub mod moves;
pub mod perft;
pub mod position;
pub mod scoring;
