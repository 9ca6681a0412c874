//! Shared inputs of Sheshbesh's criterion benchmarks: the fixed set of
//! (position, roll) cases from real play, read from the committed gnubg
//! move-generation fixture.

use std::io::{BufRead, BufReader};

use flate2::read::GzDecoder;
use sheshbesh_engine::{formats::position_id, Dice, Position};

/// The fixture's path, relative to this crate.
pub const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../data/fixtures/movegen_gnubg.txt.gz"
);

/// (position, roll) cases of the fixture whose category is in `categories`
/// (all when empty).
pub fn fixture_cases(categories: &[&str]) -> Vec<(Position, Dice)> {
    let file = std::fs::File::open(FIXTURE).expect("fixture present");
    BufReader::new(GzDecoder::new(file))
        .lines()
        .map(|l| l.expect("readable fixture"))
        .filter_map(|line| {
            let mut it = line.split_whitespace();
            let cat = it.next()?;
            if !categories.is_empty() && !categories.contains(&cat) {
                return None;
            }
            let pos = position_id::decode(it.next()?).ok()?;
            let dice: Dice = it.next()?.parse().ok()?;
            Some((pos, dice))
        })
        .collect()
}

/// The shipped weights' evaluator.
pub fn shipped_evaluator() -> sheshbesh_engine::evaluation::evaluator::NetEvaluator {
    let bytes = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../weights/sheshbesh.weights"
    ))
    .expect("shipped weights present");
    let set = sheshbesh_engine::evaluation::weights::decode(&bytes).expect("shipped weights load");
    sheshbesh_engine::evaluation::evaluator::NetEvaluator::from_weights(&set)
        .expect("contact and race nets")
}
