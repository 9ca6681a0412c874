//! Move generation against GNU Backgammon: for every (position, roll) case
//! in the committed fixture (made by `data/fixtures/gen_movegen.py` with
//! gnubg-nn), our set of resulting positions equals gnubg's exactly. Also
//! round-trips every position of the fixture through the Position ID.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader};

use flate2::read::GzDecoder;
use sheshbesh_engine::{formats::position_id, rules::movegen, Dice, MoveList};

const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../data/fixtures/movegen_gnubg.txt.gz"
);

#[test]
fn movegen_matches_gnubg_on_every_fixture_case() {
    let file = std::fs::File::open(FIXTURE).expect("fixture present");
    let mut list = MoveList::new();
    let mut cases = 0usize;
    let mut per_category: BTreeMap<String, usize> = BTreeMap::new();
    let mut failures = Vec::new();
    for line in BufReader::new(GzDecoder::new(file)).lines() {
        let line = line.unwrap();
        let mut it = line.split_whitespace();
        let cat = it.next().unwrap().to_string();
        let id = it.next().unwrap();
        let dice: Dice = it.next().unwrap().parse().unwrap();
        let expected: BTreeSet<String> = it.map(str::to_string).collect();
        let pos = position_id::decode(id).unwrap_or_else(|e| panic!("{line}: {e}"));
        assert_eq!(position_id::encode(&pos), id, "Position ID round trip");
        movegen::generate(&pos, dice, &mut list);
        let ours: BTreeSet<String> = if list.len() == 1 && list.as_slice()[0].mv.is_empty() {
            BTreeSet::new()
        } else {
            list.iter()
                .map(|c| position_id::encode(&c.position.swapped()))
                .collect()
        };
        if list.len() != ours.len().max(1) {
            failures.push(format!("{cat} {id} {dice}: duplicate results"));
        }
        if ours != expected {
            let missing: Vec<_> = expected.difference(&ours).collect();
            let extra: Vec<_> = ours.difference(&expected).collect();
            failures.push(format!(
                "{cat} {id} {dice}: missing {missing:?} extra {extra:?}"
            ));
        }
        cases += 1;
        *per_category.entry(cat).or_default() += 1;
    }
    assert!(cases >= 20_000, "fixture has only {cases} cases");
    assert!(
        failures.is_empty(),
        "{} of {cases} cases differ, e.g.:\n{}",
        failures.len(),
        failures
            .iter()
            .take(10)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
    eprintln!("{cases} cases agree with gnubg: {per_category:?}");
}
