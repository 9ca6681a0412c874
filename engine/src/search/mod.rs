//! Layer 4, search: n-ply lookahead with gnubg-style move filters, plays
//! compared by a [`valuation::Valuation`] (money equity, or EMG at a match
//! score), and the
//! [`chooser::Chooser`] trait through which anything that picks a play (a
//! search, pubeval, a random player, a test double) is used.

pub mod chooser;
pub mod ply;
pub mod valuation;
