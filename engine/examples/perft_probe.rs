use sheshbesh_engine::*;
use std::time::Instant;
fn main() {
    let mut list = MoveList::new();
    let mut frontier = vec![Position::start()];
    for ply in 0..2 {
        let mut next = std::collections::HashSet::new();
        for p in &frontier {
            for d in Dice::all_21().filter(|d| ply > 0 || !d.is_double()) {
                movegen::generate(p, d, &mut list);
                for c in list.iter() {
                    next.insert(c.position.swapped());
                }
            }
        }
        frontier = next.into_iter().collect();
    }
    let t = Instant::now();
    let mut n = 0usize;
    let mut calls = 0;
    for p in &frontier {
        for d in Dice::all_21() {
            movegen::generate(p, d, &mut list);
            n += list.len();
            calls += 1;
        }
    }
    println!("movegen {calls} calls {n} results {:?}", t.elapsed());
    let t = Instant::now();
    let mut x = 0u128;
    for p in &frontier {
        for d in Dice::all_21() {
            movegen::generate(p, d, &mut list);
            for c in list.iter() {
                x ^= c.position.swapped().key();
            }
        }
    }
    println!("with key {:?} {x}", t.elapsed());
}
