//! # sheshbesh-trainer
//!
//! Self-play training of Sheshbesh's networks: TD(lambda) on games the net
//! plays against itself ([`selfplay`]), run in parallel rounds with
//! checkpoints and periodic strength checks ([`train`]). Nothing here
//! learns from another engine: every target comes from our own play.

pub mod adam;
pub mod checkpoint;
pub mod decisions;
pub mod distill;
pub mod schedule;
pub mod selfplay;
pub mod train;
