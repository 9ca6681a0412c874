//! 0-ply evaluation speed: every candidate of the fixture's contact cases
//! from gnubg's play, evaluated roll by roll as one batch each (as search
//! does), with the shipped weights, in floats (`zero_ply_batched`) and with
//! the 16-bit integer first layer (`zero_ply_batched_int16`). Reports
//! evaluations per second per core.
//! A second group times the dense ndarray matrix product on the same
//! positions, the reference the sparse path replaces.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use ndarray::Array2;
use sheshbesh_benches::{fixture_cases, shipped_evaluator};
use sheshbesh_engine::evaluation::evaluator::Evaluator;
use sheshbesh_engine::evaluation::inputs::SparseInputs;
use sheshbesh_engine::evaluation::net::FirstLayer;
use sheshbesh_engine::{rules::movegen, MoveList, Position, Probs};

fn bench_eval(c: &mut Criterion) {
    let ev = shipped_evaluator();
    let mut cases = fixture_cases(&["gnubg0"]);
    cases.retain(|(p, _)| p.is_contact());
    let mut list = MoveList::new();
    let batches: Vec<Vec<Position>> = cases
        .iter()
        .take(2000)
        .map(|(p, d)| {
            movegen::generate(p, *d, &mut list);
            list.iter().map(|c| c.position.swapped()).collect()
        })
        .collect();
    let total: usize = batches.iter().map(Vec::len).sum();
    eprintln!(
        "{} batches, {total} positions, {} kernels ({} integer sums)",
        batches.len(),
        sheshbesh_engine::evaluation::net::kernel_name(),
        sheshbesh_engine::evaluation::net::int_kernel_name()
    );
    let mut group = c.benchmark_group("eval");
    group.throughput(Throughput::Elements(total as u64));
    let mut out = vec![Probs::default(); 1024];
    group.bench_function("zero_ply_batched", |b| {
        b.iter(|| {
            for batch in &batches {
                ev.eval_batch(black_box(batch), &mut out[..batch.len()]);
            }
            black_box(out[0])
        })
    });
    // The same with the 16-bit integer first layer.
    let int16 = shipped_evaluator().with_first_layer(FirstLayer::Int16);
    group.bench_function("zero_ply_batched_int16", |b| {
        b.iter(|| {
            for batch in &batches {
                int16.eval_batch(black_box(batch), &mut out[..batch.len()]);
            }
            black_box(out[0])
        })
    });
    // The dense reference: the same positions as ndarray matrices, in the
    // input layout the shipped weights read.
    let n = ev.layout.inputs();
    let dense: Vec<Array2<f32>> = batches
        .iter()
        .map(|batch| {
            let mut m = Array2::zeros((batch.len(), n));
            for (mut row, p) in m.rows_mut().into_iter().zip(batch) {
                let x = SparseInputs::encode(p, ev.layout);
                row.assign(&ndarray::Array1::from(x.dense_of(n)));
            }
            m
        })
        .collect();
    group.bench_function("dense_ndarray_reference", |b| {
        b.iter(|| {
            let mut s = 0.0;
            for m in &dense {
                s += ev.contact.eval_dense(black_box(m.view()))[[0, 0]];
            }
            black_box(s)
        })
    });
    group.finish();
}

criterion_group!(benches, bench_eval);
criterion_main!(benches);
