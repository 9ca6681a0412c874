//! Our pubeval against gnubg's copy: on every case of the committed fixture
//! (made by `data/fixtures/gen_pubeval.py`), both pick the same play.

use std::io::{BufRead, BufReader};

use flate2::read::GzDecoder;
use sheshbesh_engine::{evaluation::pubeval, formats::position_id, rules::movegen, Dice};

#[test]
fn pubeval_picks_gnubgs_play() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../data/fixtures/pubeval_gnubg.txt.gz"
    );
    let file = std::fs::File::open(path).unwrap();
    let (mut n, mut differ) = (0, Vec::new());
    for line in BufReader::new(GzDecoder::new(file)).lines() {
        let line = line.unwrap();
        let p: Vec<&str> = line.split_whitespace().collect();
        let pos = position_id::decode(p[0]).unwrap();
        let dice: Dice = p[1].parse().unwrap();
        let moves = movegen::legal_moves(&pos, dice);
        let pick = &moves[pubeval::choose(&pos, &moves)];
        if position_id::encode(&pick.position.swapped()) != p[2] {
            differ.push(format!("{} {} ours {}", p[0], p[1], pick.mv));
        }
        n += 1;
    }
    assert!(n > 2000);
    assert!(
        differ.is_empty(),
        "{} of {n} differ: {:?}",
        differ.len(),
        &differ[..differ.len().min(5)]
    );
}
