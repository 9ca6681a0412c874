//! # sheshbesh-trainer
//!
//! Teaches Sheshbesh's networks from our own play only: no target comes
//! from another engine.
//!
//! - [`selfplay`]: TD(lambda) on games the nets play against themselves,
//!   run by [`train`] in parallel rounds with checkpoints and periodic
//!   strength checks;
//! - expert iteration ([`expert`]): positions sampled from self-play
//!   ([`labels`]), labelled by our own deeper search (their values, or
//!   whole decisions: [`decisions`]), fitted by plain descent or [`adam`];
//! - [`backprop`]: the backward pass the engine's inference-only nets
//!   lack; [`surgery`]: nets made from nets (ensembles, averages, a second
//!   hidden layer); [`checkpoint`]: weights files with their training
//!   record; [`card`]: a weights file's facts as its model card shows
//!   them; [`schedule`]: learning rates;
//! - [`calibrate`]: a net fitted to its own rollouts (each output's
//!   logit rescaled, or the whole net), the chances cube decisions price;
//!   [`classes`]: the kinds of position (back games, blitzes, holding
//!   games) that calibration and expert rounds can be spent on;
//! - [`prefilter`]: the small net that ranks a roll's plays for a
//!   rollout's luck pass, distilled from the contact net's values;
//! - [`jobs`]: the jobs that start from a checkpoint, each with its own
//!   config: rounds of expert iteration, a round's labelling handed out in
//!   pieces, calibration.
//!
//! The `sheshbesh train` subcommands and the Python cluster start these
//! jobs and do nothing more; `docs/experiments/`
//! records what each was used for and what it measured.

pub mod adam;
pub mod backprop;
pub mod calibrate;
pub mod card;
pub mod checkpoint;
pub mod classes;
pub mod decisions;
pub mod expert;
pub mod jobs;
pub mod labels;
pub mod prefilter;
pub mod schedule;
pub mod selfplay;
pub mod surgery;
pub mod train;
