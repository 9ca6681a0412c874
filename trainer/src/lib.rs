//! # sheshbesh-trainer
//!
//! Self-play training of Sheshbesh's evaluation networks. The training loop
//! arrives with the evaluator; for now the crate re-exports the engine it
//! will train against so the workspace layout is in place.

pub use sheshbesh_engine as engine;
