//! Layer 2, the formats: how positions, matches and moves are written down
//! (gnubg's Position and Match IDs, XG's XGID, FIBS boards, move notation,
//! Jellyfish `.mat` and gnubg SGF match files, whose story is checked
//! against the rules, found in folders and read from disk by `match_files`),
//! and the one atomic file writer. Reading and writing
//! only; no judgement of play.

pub mod base64;
pub mod fibs;
pub mod files;
pub mod match_files;
pub mod match_id;
pub mod matfile;
pub mod notation;
pub mod position_id;
pub mod sgf;
pub mod story;
pub mod xgid;
