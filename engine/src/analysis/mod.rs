//! Layer 7, analysis: judging whole matches (annotation: every checker
//! play and cube decision, luck, error rates, ratings) and duels between
//! players on duplicate dice (the strength yardstick).

pub mod annotate;
pub mod duel;
