//! What an int16 first layer would cost in accuracy, before building one:
//! the shipped contact net with its first layer's weights and biases
//! rounded to the grid of a 16-bit integer whose range holds the largest
//! of them (the least rounding any int16 kernel with one scale does),
//! against the shipped net, on the plays of the move-generation fixture's
//! contact rolls (gnubg's own and mixed play): the same 0-ply choice, the
//! largest probability error. A kernel would round more: the inputs (most
//! of a play's changed inputs are fractions, not ones) and the sums.
//!
//! Usage: cargo run --release -p sheshbesh-benches --example quantization [ROLLS]

use sheshbesh_benches::{fixture_cases, shipped_evaluator};
use sheshbesh_engine::evaluation::evaluator::{argmax_equity, candidate_values};
use sheshbesh_engine::{rules::movegen, MoveList};

fn main() {
    let rolls: usize = std::env::args()
        .nth(1)
        .map(|a| a.parse().expect("ROLLS is a count"))
        .unwrap_or(20_000);
    let float = shipped_evaluator();
    let largest = float
        .contact
        .params()
        .w1
        .iter()
        .chain(float.contact.params().b1.iter())
        .fold(0f32, |m, w| m.max(w.abs()));
    let scale = f32::from(i16::MAX) / largest;
    let mut quantized = shipped_evaluator();
    let p = quantized.contact.params_mut();
    p.w1.mapv_inplace(|w| (w * scale).round() / scale);
    p.b1.mapv_inplace(|w| (w * scale).round() / scale);
    let mut cases = fixture_cases(&[]);
    cases.retain(|(p, _)| p.is_contact());
    let mut list = MoveList::new();
    let (mut a, mut b) = (Vec::new(), Vec::new());
    let (mut n, mut same, mut worst, mut sum, mut values) = (0usize, 0usize, 0f32, 0f64, 0usize);
    for (pos, dice) in cases.iter().take(rolls) {
        movegen::generate(pos, *dice, &mut list);
        if list.len() < 2 {
            continue;
        }
        candidate_values(&float, list.as_slice(), &mut a);
        candidate_values(&quantized, list.as_slice(), &mut b);
        n += 1;
        same += usize::from(argmax_equity(&a) == argmax_equity(&b));
        for (x, y) in a.iter().zip(&b) {
            for (u, v) in x.0.iter().zip(&y.0) {
                worst = worst.max((u - v).abs());
                sum += f64::from((u - v).abs());
                values += 1;
            }
        }
    }
    println!(
        "largest first-layer weight {largest:.2}: grid 1/{scale:.0}; {n} rolls with a choice: \
         same 0-ply play {same} ({:.2}%); probabilities: largest error {worst:.5}, mean {:.6}",
        100.0 * same as f64 / n as f64,
        sum / values as f64
    );
}
