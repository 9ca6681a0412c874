//! Layer 8, play: the engine as a player ([`agent`]), a game or match
//! under every rule option driven step by step ([`session`]), the chouette,
//! and verifiable dice. Front ends (the CLI, UBGI, gnubg's external player)
//! ask these and render the answers.

pub mod agent;
pub mod chouette;
pub mod seat;
pub mod session;
pub mod verifiable_dice;
