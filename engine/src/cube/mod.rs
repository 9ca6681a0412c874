//! Layer 5, the cube: money cube theory (Janowski), n-ply cubeful money
//! equities, match equity tables and cube decisions at a match score, and
//! [`decision`], the one place that turns a position and a match state
//! into a cube action and match-aware equities (EMG, MWC).

pub mod cubeful;
pub mod decision;
pub mod match_cube;
pub mod match_cubeful;
pub mod met;
pub mod money;
