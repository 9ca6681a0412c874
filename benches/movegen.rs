//! Move generation over a fixed set of (position, roll) cases from real play
//! (the gnubg fixture's game categories: random, gnubg 0-ply and mixed
//! self-play), one call per case, reusing one `MoveList` as search does.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use sheshbesh_benches::fixture_cases;
use sheshbesh_engine::{rules::movegen, MoveList};

fn bench_movegen(c: &mut Criterion) {
    let mut group = c.benchmark_group("movegen");
    for (name, cats) in [
        ("real_play", &["random", "gnubg0", "mixed"][..]),
        ("contact_gnubg_play", &["gnubg0"][..]),
    ] {
        let mut cases = fixture_cases(cats);
        if name == "contact_gnubg_play" {
            cases.retain(|(p, _)| p.is_contact());
        }
        let mut list = MoveList::new();
        let results: usize = cases
            .iter()
            .map(|(p, d)| {
                movegen::generate(p, *d, &mut list);
                list.len()
            })
            .sum();
        eprintln!(
            "{name}: {} cases, {results} resulting positions ({:.1} per call)",
            cases.len(),
            results as f64 / cases.len() as f64
        );
        group.throughput(Throughput::Elements(cases.len() as u64));
        group.bench_function(name, |b| {
            b.iter(|| {
                let mut n = 0usize;
                for (p, d) in &cases {
                    movegen::generate(black_box(p), *d, &mut list);
                    n += list.len();
                }
                black_box(n)
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench_movegen);
criterion_main!(benches);
