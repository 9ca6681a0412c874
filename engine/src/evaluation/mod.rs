//! Layer 3, evaluation: a position's outcome probabilities at 0 ply. The
//! network's inputs and inference, the weights file, the evaluator that
//! picks a net by game phase, the play pre-filter, the exact bear-off databases, and pubeval as
//! a fixed yardstick. Training lives in the trainer crate, not here.

pub mod bearoff;
pub mod evaluator;
pub mod inputs;
pub mod net;
pub mod prefilter;
pub mod probs;
pub mod pubeval;
pub mod weights;
