use sheshbesh_engine::*;
use std::io::BufRead;
use std::time::Instant;
fn main() {
    let f = std::fs::File::open("/work/main/data/fixtures/movegen_gnubg.txt.gz").unwrap();
    let cases: Vec<(Position, Dice)> = std::io::BufReader::new(flate2::read::GzDecoder::new(f))
        .lines()
        .filter_map(|l| {
            let l = l.unwrap();
            let mut it = l.split_whitespace();
            let c = it.next()?;
            if c == "random" || c == "gnubg0" || c == "mixed" {
                Some((
                    position_id::decode(it.next()?).ok()?,
                    it.next()?.parse().ok()?,
                ))
            } else {
                None
            }
        })
        .collect();
    let mut list = MoveList::new();
    let reps = 50;
    for dbl in [false, true] {
        let sub: Vec<_> = cases
            .iter()
            .filter(|(_, d)| d.is_double() == dbl)
            .cloned()
            .collect();
        let t = Instant::now();
        let mut n = 0;
        for _ in 0..reps {
            for (p, d) in &sub {
                movegen::generate(p, *d, &mut list);
                n += list.len();
            }
        }
        println!(
            "doubles={dbl}: {} cases {:.1} ns/call {:.1} results/call",
            sub.len(),
            t.elapsed().as_nanos() as f64 / (reps * sub.len()) as f64,
            n as f64 / (reps * sub.len()) as f64
        );
    }
}
