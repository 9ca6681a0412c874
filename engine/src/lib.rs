//! # sheshbesh-engine
//!
//! The rules of backgammon (shesh-besh) as a library: a bitboard
//! [`Position`], legal-move generation ([`movegen`]), move notation, gnubg's
//! Position and Match IDs, XG's XGID, FIBS boards, scoring and match state.
//! It prints nothing; the `sheshbesh` binary is a thin layer over it.
//!
//! ```
//! use sheshbesh_engine::{Dice, MoveList, Position, movegen, position_id};
//! let start = Position::start();
//! let mut list = MoveList::new();
//! movegen::generate(&start, Dice::new(3, 1).unwrap(), &mut list);
//! assert_eq!(list.len(), 16);
//! assert_eq!(position_id::encode(&start), "4HPwATDgc/ABMA");
//! ```

pub mod agent;
pub mod annotate;
pub mod bearoff;
pub mod chouette;
pub mod cube;
pub mod cubeful;
pub mod dice;
pub mod duel;
pub mod error;
pub mod evaluator;
pub mod fibs;
pub mod inputs;
pub mod match_cube;
pub mod match_id;
pub mod match_state;
pub mod matfile;
pub mod met;
pub mod movegen;
pub mod moves;
pub mod net;
pub mod notation;
pub mod perft;
pub mod position;
pub mod position_id;
pub mod probs;
pub mod pubeval;
pub mod rollout;
pub mod rules;
pub mod search;
pub mod session;
pub mod sgf;
pub mod verifiable_dice;
pub mod weights;
pub mod xgid;

pub use dice::Dice;
pub use error::{ParseError, PositionError};
pub use match_state::{CubeState, GameState, MatchState, Player};
pub use movegen::{Candidate, MoveList};
pub use moves::{Move, Step};
pub use position::{Checkers, Position};
pub use probs::Probs;
