//! Layer 4, search: n-ply lookahead with gnubg-style move filters, and the
//! [`chooser::Chooser`] trait through which anything that picks a play (a
//! search, pubeval, a random player, a test double) is used.

pub mod chooser;
pub mod ply;
