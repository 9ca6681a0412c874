//! # sheshbesh-engine
//!
//! Backgammon (shesh-besh) analysis as a library that prints nothing. It is
//! built in layers, each a folder, each importing only the layers below it
//! (a test, `tests/layers.rs`, keeps it so):
//!
//! 1. [`rules`]: bitboard [`Position`], dice, moves, legal-move generation,
//!    scoring under every rule option, match state;
//! 2. [`formats`]: Position and Match IDs, XGID, FIBS, move notation, `.mat`
//!    and SGF match files, the atomic file writer;
//! 3. [`evaluation`]: the network's inputs and inference, the weights file,
//!    the evaluator, bear-off databases, pubeval;
//! 4. [`search`]: n-ply search with move filters, the play chooser;
//! 5. [`cube`]: money and match cube decisions, match equity tables;
//! 6. [`rollout`]: Monte Carlo rollouts, cubeless and cubeful;
//! 7. [`analysis`]: match annotation and duels;
//! 8. [`play`]: the engine as a player, sessions, chouette, verifiable dice.
//!
//! A position read by [`formats`] is valued by [`evaluation`], looked ahead
//! by [`search`], priced with the cube by [`cube`] and [`rollout`], and
//! judged or played by [`analysis`] and [`play`]. The `sheshbesh` binary
//! reads input, calls these and renders the answers; the trainer crate
//! teaches the nets. `docs/ARCHITECTURE.md` has the map.
//!
//! ```
//! use sheshbesh_engine::{Dice, MoveList, Position, rules::movegen, formats::position_id};
//! let start = Position::start();
//! let mut list = MoveList::new();
//! movegen::generate(&start, Dice::new(3, 1).unwrap(), &mut list);
//! assert_eq!(list.len(), 16);
//! assert_eq!(position_id::encode(&start), "4HPwATDgc/ABMA");
//! ```

pub mod rules;

pub mod formats;

pub mod evaluation;

pub mod search;

pub mod cube;

pub mod rollout;

pub mod analysis;

pub mod play;

pub use evaluation::probs::Probs;
pub use rules::dice::Dice;
pub use rules::error::{ParseError, PositionError};
pub use rules::match_state::{CubeState, GameState, MatchState, Player};
pub use rules::movegen::{Candidate, MoveList};
pub use rules::moves::{Move, Step};
pub use rules::position::{Checkers, Position};
