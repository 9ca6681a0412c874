//! What the 16-bit integer first layer costs in accuracy: the shipped
//! nets evaluating with `FirstLayer::Int16` against the same nets in
//! floats, on the plays of every roll of the move-generation fixture
//! (positions of gnubg's own and mixed play, contact and race) and of
//! every checker play of the real matches in `data/matches` and
//! `data/heldout`: the same 0-ply choice, the largest and mean
//! probability error.
//!
//! Usage: cargo run --release -p sheshbesh-benches --example quantization [ROLLS]

use sheshbesh_benches::{fixture_cases, shipped_evaluator};
use sheshbesh_engine::evaluation::evaluator::{argmax_equity, candidate_values};
use sheshbesh_engine::evaluation::net::FirstLayer;
use sheshbesh_engine::{rules::movegen, MoveList};

fn main() {
    let rolls: usize = std::env::args()
        .nth(1)
        .map(|a| a.parse().expect("ROLLS is a count"))
        .unwrap_or(usize::MAX);
    let float = shipped_evaluator();
    let quantized = shipped_evaluator().with_first_layer(FirstLayer::Int16);
    let mut cases = fixture_cases(&[]);
    cases.extend(match_plays());
    let mut list = MoveList::new();
    let (mut a, mut b) = (Vec::new(), Vec::new());
    let (mut n, mut same, mut worst, mut sum, mut values) = (0usize, 0usize, 0f32, 0f64, 0usize);
    let mut positions = 0;
    for (pos, dice) in cases.iter().take(rolls) {
        movegen::generate(pos, *dice, &mut list);
        positions += list.len();
        candidate_values(&float, list.as_slice(), &mut a);
        candidate_values(&quantized, list.as_slice(), &mut b);
        for (x, y) in a.iter().zip(&b) {
            for (u, v) in x.0.iter().zip(&y.0) {
                worst = worst.max((u - v).abs());
                sum += f64::from((u - v).abs());
                values += 1;
            }
        }
        if list.len() < 2 {
            continue;
        }
        n += 1;
        same += usize::from(argmax_equity(&a) == argmax_equity(&b));
    }
    println!(
        "{} rolls, {positions} positions valued; {n} rolls with a choice: same 0-ply play {same} \
         ({:.2}%); probabilities: largest error {worst:.5}, mean {:.6}",
        cases.len().min(rolls),
        100.0 * same as f64 / n as f64,
        sum / values as f64
    );
}

/// The roll and the board before it of every checker play of the
/// committed real matches.
fn match_plays() -> Vec<(
    sheshbesh_engine::Position,
    sheshbesh_engine::rules::dice::Dice,
)> {
    use sheshbesh_engine::formats::matfile;
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut out = Vec::new();
    for dir in ["data/matches", "data/heldout"] {
        let mut files: Vec<_> = std::fs::read_dir(root.join(dir))
            .expect("the match folders")
            .map(|e| e.expect("a folder entry").path())
            .filter(|p| p.extension().is_some_and(|e| e == "mat"))
            .collect();
        files.sort();
        for path in files {
            let text = std::fs::read_to_string(&path).expect("a match file");
            let file = matfile::parse(&text).expect("a readable match");
            for game in &file.games {
                let plays = matfile::replay(game).expect("legal plays");
                out.extend(plays.iter().map(|p| (p.before, p.dice)));
            }
        }
    }
    out
}
