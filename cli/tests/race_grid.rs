//! Race cube decisions at every score of a 7-point match: our 2-ply
//! equities against GNU Backgammon 1.07's cubeful rollouts of the same
//! decisions (`data/fixtures/race_grid_rollouts_gnubg.json`, made by
//! `gen_race_grid_rollouts.py`) and against its 2-ply evaluation (the
//! match cube grid, `match_cube_grid_gnubg.json`), and our verdicts in
//! the grid's back game against gnubg's rollouts of it.
//! `benches/race_grid.py` prints the full comparison.

use std::io::Write;
use std::process::{Command, Stdio};

use serde_json::Value;

fn fixture(name: &str) -> Value {
    let path = format!("{}/../data/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

/// `cube --batch --ply PLY` on each XGID: (no double, double/take).
fn ours(xgids: &[String], ply: u32) -> Vec<(f64, f64)> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_sheshbesh"))
        .args(["cube", "--batch", "--ply", &ply.to_string()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let input: String = xgids.iter().map(|x| format!("{x}\n")).collect();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    text.lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            let nd = v["no_double"].as_f64().unwrap_or_else(|| panic!("{l}"));
            (nd, v["double_take"].as_f64().unwrap())
        })
        .collect()
}

/// The larger of the two equities' distances.
fn distance(x: &(f64, f64), y: &(f64, f64)) -> f64 {
    (x.0 - y.0).abs().max((x.1 - y.1).abs())
}

/// The mean of [`distance`] over the cases.
fn mean_distance(a: &[(f64, f64)], b: &[(f64, f64)]) -> f64 {
    let d: f64 = a.iter().zip(b).map(|(x, y)| distance(x, y)).sum();
    d / a.len() as f64
}

/// A fixture of gnubg's rollouts of grid decisions: each case's XGID,
/// the rollout's (no double, double/take) and gnubg 2-ply's from the grid.
struct Rolled {
    xgids: Vec<String>,
    rolled: Vec<(f64, f64)>,
    gnubg_2_ply: Vec<(f64, f64)>,
}

fn rolled_out(name: &str) -> Rolled {
    let rollouts = fixture(name);
    let grid = fixture("match_cube_grid_gnubg.json");
    let cases = rollouts["cases"].as_array().unwrap();
    let xgids: Vec<String> = cases
        .iter()
        .map(|c| c["xgid"].as_str().unwrap().to_string())
        .collect();
    let rolled = cases
        .iter()
        .map(|c| {
            (
                c["no_double"].as_f64().unwrap(),
                c["double_take"].as_f64().unwrap(),
            )
        })
        .collect();
    let gnubg_2_ply = xgids
        .iter()
        .map(|x| {
            let c = grid["cases"]
                .as_array()
                .unwrap()
                .iter()
                .find(|c| c["xgid"] == x.as_str())
                .unwrap();
            (
                c["ply2"]["nd"].as_f64().unwrap(),
                c["ply2"]["dt"].as_f64().unwrap(),
            )
        })
        .collect();
    Rolled {
        xgids,
        rolled,
        gnubg_2_ply,
    }
}

#[test]
fn our_2_ply_prices_race_cubes_nearer_gnubgs_rollouts_than_its_2_ply() {
    let Rolled {
        xgids,
        rolled,
        gnubg_2_ply,
    } = rolled_out("race_grid_rollouts_gnubg.json");
    assert_eq!(xgids.len(), 180, "every race cube decision of the grid");
    let mine = ours(&xgids, 2);
    assert_eq!(mine.len(), xgids.len(), "one answer per line");
    let (to_rollouts, gnubg_to_rollouts) = (
        mean_distance(&mine, &rolled),
        mean_distance(&gnubg_2_ply, &rolled),
    );
    // 2026-12-05: ours 0.0185, gnubg 2-ply 0.0222 (0-ply: ours 0.049).
    assert!(
        to_rollouts <= gnubg_to_rollouts && to_rollouts < 0.019,
        "mean distance from gnubg's rollouts: ours {to_rollouts:.4}, gnubg 2-ply {gnubg_to_rollouts:.4}"
    );
    // And near gnubg's 2-ply where its search and its rollouts agree.
    let mut near = 0;
    for (((x, ours), theirs), rolled) in xgids.iter().zip(&mine).zip(&gnubg_2_ply).zip(&rolled) {
        if distance(ours, theirs) <= 0.02 {
            near += 1;
        } else {
            // Where we part from gnubg 2-ply, its own rollout sides with us.
            assert!(
                distance(ours, rolled) < distance(theirs, rolled),
                "{x}: ours {ours:?}, gnubg 2-ply {theirs:?}, its rollout {rolled:?}"
            );
        }
    }
    assert!(near >= 160, "{near} of 180 within 0.02 of gnubg 2-ply");
}

/// Double when doubling beats not doubling, the taker's best answer (a
/// pass is worth 1) taken.
fn doubles((no_double, double_take): (f64, f64)) -> bool {
    double_take.min(1.0) > no_double
}

/// The grid's back game (`back_game_grid_rollouts_gnubg.json`): our
/// equities are far from gnubg's rollouts there (mostly the net's
/// chances, see docs/experiments/2026-12-07-a-blitz-net.md), but our
/// verdicts must stay at least as right as gnubg 2-ply's.
#[test]
fn our_2_ply_back_game_verdicts_match_gnubgs_rollouts_as_often_as_its_2_ply() {
    let Rolled {
        xgids,
        rolled,
        gnubg_2_ply,
    } = rolled_out("back_game_grid_rollouts_gnubg.json");
    assert_eq!(xgids.len(), 90, "every back-game cube decision of the grid");
    let mine = ours(&xgids, 2);
    assert_eq!(mine.len(), xgids.len(), "one answer per line");
    let right = |ev: &[(f64, f64)]| {
        ev.iter()
            .zip(&rolled)
            .filter(|(e, r)| doubles(**e) == doubles(**r))
            .count()
    };
    let (ours_right, gnubg_right) = (right(&mine), right(&gnubg_2_ply));
    // 2026-12-07: ours 81 of 90, gnubg 2-ply 75.
    assert!(
        ours_right >= gnubg_right && ours_right >= 78,
        "verdicts as gnubg's rollouts: ours {ours_right}, gnubg 2-ply {gnubg_right} of 90"
    );
    // A taker that would pass the other side's free redouble is worth no
    // more than that pass: the largest distance from the rollouts was
    // 0.655 (2-away 7-away, double/take) while the model let the other
    // side play on to a perfect cash; 0.454 since.
    let largest = mine
        .iter()
        .zip(&rolled)
        .map(|(x, y)| distance(x, y))
        .fold(0.0, f64::max);
    assert!(
        largest < 0.5,
        "largest distance from gnubg's rollouts {largest:.3}"
    );
}
