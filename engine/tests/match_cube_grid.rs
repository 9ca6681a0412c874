//! The match cube model against gnubg 1.07's cube equities on a grid of
//! positions (race, contact, blitz, prime, back game) x every score of a
//! 7-point match x cube 1, 2 and 4 and its owner, committed as
//! `data/fixtures/match_cube_grid_gnubg.json` with the script that made it
//! (`gen_match_cube_grid.py`).
//!
//! gnubg's own cubeless probabilities are fed to our model, so the test
//! sees the model alone, not the nets. Against gnubg 0-ply (its model on
//! the same probabilities) it checks that we price what gnubg prices; its
//! 2-ply cubeful search plays the cube at the inner plies, so it also sees
//! what a live cube is worth at scores where a model has to reason about
//! it (the taker's immediate redouble), and there the model must follow
//! the search.

use serde_json::Value;
use sheshbesh_engine::cube::decision::{owner_of, score_of};
use sheshbesh_engine::cube::match_cube::{
    emg_of, match_decision, CubeLife, CubePoints, Shares, Solver,
};
use sheshbesh_engine::cube::met::Met;
use sheshbesh_engine::formats::{match_id, position_id};
use sheshbesh_engine::Probs;

/// One case of the grid at one ply: gnubg's equities beside ours.
struct Case {
    kind: String,
    what: String,
    /// gnubg's no double (its cubeful equity when the player on roll has
    /// no cube to turn), double/take when it may double.
    gnubg: (f32, Option<f32>),
    ours: (f32, Option<f32>),
}

fn cases(ply: u32) -> Vec<Case> {
    cases_with(ply, CubePoints::Realised)
}

/// The grid's cases at gnubg's `ply`, ours priced with `points`.
fn cases_with(ply: u32, points: CubePoints) -> Vec<Case> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../data/fixtures/match_cube_grid_gnubg.json"
    );
    let fixture: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut out = Vec::new();
    for c in fixture["cases"].as_array().unwrap() {
        let pos = position_id::decode(c["position_id"].as_str().unwrap()).unwrap();
        let state = match_id::decode(c["match_id"].as_str().unwrap()).unwrap();
        let g = &c[format!("ply{ply}")];
        let p: Vec<f32> = g["probs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap() as f32)
            .collect();
        let probs = Probs([p[0], p[1], p[2], p[3], p[4]]);
        let score = score_of(&state, state.on_roll);
        let owner = owner_of(state.cube, state.on_roll);
        let cube = state.cube.value() as u32;
        let met = Met::kazaross_xg2();
        let d = match_decision(met, score, cube, owner, &probs, CubeLife::of(&pos)).unwrap();
        let gnubg = match g.get("nd") {
            Some(nd) => (
                nd.as_f64().unwrap() as f32,
                Some(g["dt"].as_f64().unwrap() as f32),
            ),
            None => (g["cubeful"].as_f64().unwrap() as f32, None),
        };
        let (nd, dt) = match points {
            CubePoints::Realised => (d.no_double, d.double_take),
            CubePoints::Live => {
                let m = Solver::new(met, Shares::of(&probs), CubeLife::of(&pos))
                    .with_points(points)
                    .cube_mwc(score, cube, owner, probs.win());
                let emg = |v| emg_of(met, score, cube, v);
                (emg(m.no_double), emg(m.double_take))
            }
        };
        let ours = (nd, gnubg.1.map(|_| dt));
        out.push(Case {
            kind: c["kind"].as_str().unwrap().to_string(),
            what: format!(
                "{} {} cube {} owner {}{}",
                c["xgid"].as_str().unwrap(),
                c["name"].as_str().unwrap(),
                cube,
                c["owner"],
                if c["crawford"].as_bool().unwrap() {
                    " Crawford"
                } else {
                    ""
                }
            ),
            gnubg,
            ours,
        });
    }
    out
}

/// The largest difference and the mean absolute difference of a kind's
/// equities (no double and double/take together).
fn report(cases: &[Case], kind: Option<&str>) -> (f32, f32, String) {
    let (mut worst, mut sum, mut n, mut at) = (0.0f32, 0.0f32, 0, String::new());
    for c in cases.iter().filter(|c| kind.is_none_or(|k| c.kind == k)) {
        let mut diffs = vec![(c.ours.0 - c.gnubg.0).abs()];
        if let (Some(a), Some(b)) = (c.ours.1, c.gnubg.1) {
            diffs.push((a - b).abs());
        }
        for d in diffs {
            sum += d;
            n += 1;
            if d > worst {
                worst = d;
                at = format!(
                    "{}: gnubg nd {:+.4} dt {:?}, ours nd {:+.4} dt {:?}",
                    c.what, c.gnubg.0, c.gnubg.1, c.ours.0, c.ours.1
                );
            }
        }
    }
    (worst, sum / n.max(1) as f32, at)
}

/// The case of `xgid` (its start) at `ply`.
fn case<'a>(cases: &'a [Case], xgid: &str) -> &'a Case {
    cases.iter().find(|c| c.what.starts_with(xgid)).unwrap()
}

#[test]
fn the_model_on_gnubgs_probabilities_follows_gnubgs_2_ply_cube() {
    let cases = cases(2);
    assert_eq!(cases.len(), 1302, "every case of the grid is read");
    // Mean absolute differences of no double and double/take, in EMG.
    // Before the immediate redouble entered the model: 0.027 over all,
    // race 0.035, contact 0.043, back game 0.039.
    let (_, all, _) = report(&cases, None);
    assert!(all < 0.016, "mean difference {all:.4}");
    let (_, race, _) = report(&cases, Some("race"));
    assert!(race < 0.015, "race: mean difference {race:.4}");
    for kind in ["contact", "blitz", "prime", "back game"] {
        let (largest, mean, at) = report(&cases, Some(kind));
        assert!(
            mean < 0.04,
            "{kind}: mean {mean:.4}, largest {largest:.4} at {at}"
        );
    }
    // 2-away 4-away, a race. The 4-away taker
    // redoubles at once, so the doubler's double/take is about its
    // winning chance; the efficiency mix with a dead cube gave +0.31
    // where gnubg 2-ply gives -0.23.
    let c = case(
        &cases,
        "XGID=--BBCCC-B--------b-dccba--:0:0:1:00:5:3:0:7:10",
    );
    let (ours, gnubg) = (c.ours.1.unwrap(), c.gnubg.1.unwrap());
    assert!(
        (ours - gnubg).abs() < 0.03,
        "double/take ours {ours:+.4}, gnubg {gnubg:+.4}"
    );
}

/// Where no side redoubles at once our model is close to gnubg's 0-ply
/// model: on gnubg's 0-ply probabilities, with the cube centred at even
/// scores, the equities agree within 0.04 EMG (the rest is the cube
/// efficiency of races and the table's rounding).
#[test]
fn the_model_prices_centred_cubes_as_gnubgs_0_ply_at_even_scores() {
    let cases = cases(0);
    let even: Vec<&Case> = cases
        .iter()
        .filter(|c| {
            c.what.contains("cube 1 owner 0")
                && ["3:3:0", "2:2:0", "1:1:0", "0:0:0"]
                    .iter()
                    .any(|s| c.what.contains(s))
        })
        .collect();
    assert_eq!(even.len(), 4 * 6);
    for c in even {
        let dt = (c.ours.1.unwrap() - c.gnubg.1.unwrap()).abs();
        let nd = (c.ours.0 - c.gnubg.0).abs();
        // Back games differ more (up to 0.114 at 4-away 4-away): gnubg
        // prices their big gammon shares otherwise; the 2-ply test above
        // covers them against gnubg's search.
        let tolerance = if c.kind == "back game" { 0.12 } else { 0.04 };
        assert!(nd.max(dt) < tolerance, "{}: nd {nd:.4}, dt {dt:.4}", c.what);
    }
}

/// With live take and cash points (a search's leaves) the model is
/// gnubg's 0-ply model: fed gnubg's 0-ply chances, it gives gnubg 0-ply's
/// equities within 0.002 EMG in 1,030 of the grid's 1,302 cases, against
/// 862 with the realised points. The rest are where a side redoubles at
/// once (its no double nearer its double than gnubg 0-ply's, as rollouts
/// have it: 1,082 agreed before that) or plays on past its cash point
/// after the Crawford game, which the model prices otherwise on purpose
/// (the tests above).
#[test]
fn with_live_points_the_model_is_gnubgs_0_ply_model() {
    let agreeing = |points| {
        cases_with(0, points)
            .iter()
            .filter(|c| {
                let nd = (c.ours.0 - c.gnubg.0).abs();
                let dt = match (c.ours.1, c.gnubg.1) {
                    (Some(a), Some(b)) => (a - b).abs(),
                    _ => 0.0,
                };
                nd.max(dt) <= 0.002
            })
            .count()
    };
    let (live, realised) = (agreeing(CubePoints::Live), agreeing(CubePoints::Realised));
    assert!(live >= 1025, "{live} of 1302 within 0.002 with live points");
    assert!(
        realised < 900,
        "{realised} of 1302 within 0.002 with realised points"
    );
}
