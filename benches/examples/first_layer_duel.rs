//! Strength of the 16-bit integer first layer: the shipped nets choosing
//! at 0 ply with `FirstLayer::Int16` against the same nets in floats,
//! cubeless money games on duplicate dice (each dice stream played twice,
//! sides swapped), points per game for the integer layer with its
//! standard error.
//!
//! Usage: cargo run --release -p sheshbesh-benches --example first_layer_duel [PAIRS] [SEED]

use sheshbesh_benches::shipped_evaluator;
use sheshbesh_engine::analysis::duel::duel_parallel;
use sheshbesh_engine::evaluation::net::FirstLayer;
use sheshbesh_engine::search::chooser::Greedy;

fn main() {
    let mut args = std::env::args().skip(1);
    let pairs: u64 = args
        .next()
        .map_or(10_000, |a| a.parse().expect("PAIRS is a count"));
    let seed: u64 = args
        .next()
        .map_or(903, |a| a.parse().expect("SEED is a number"));
    let float = shipped_evaluator();
    let int16 = shipped_evaluator().with_first_layer(FirstLayer::Int16);
    let r = duel_parallel(|| Greedy::new(&int16), || Greedy::new(&float), pairs, seed);
    println!(
        "int16 against float, 0 ply: {:+.4} ± {:.4} points a game ({} games, seed {seed})",
        r.ppg, r.se, r.games
    );
}
