//! Rollouts that decide cubes and matches, checked against GNU
//! Backgammon's own cube rollouts (`data/fixtures/cube_rollouts_gnubg.json`,
//! made by `data/fixtures/gen_cube_rollouts.py`), and the rollout options'
//! bad input.

use std::process::Command;

fn sheshbesh(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_sheshbesh"))
        .args(args)
        .output()
        .expect("run sheshbesh");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn json(args: &[&str]) -> serde_json::Value {
    let (code, out, err) = sheshbesh(args);
    assert_eq!(code, 0, "{args:?}: {err}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{args:?}: {e}: {out}"))
}

fn f(v: &serde_json::Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

#[test]
fn cube_rollouts_agree_with_gnubgs_on_clear_positions() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../data/fixtures/cube_rollouts_gnubg.json"
    );
    let fixture: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("fixture")).expect("JSON");
    let positions = fixture["positions"].as_array().expect("positions");
    assert!(positions.len() >= 7);
    for p in positions {
        let xgid = p["xgid"].as_str().unwrap();
        let name = p["name"].as_str().unwrap();
        let ours = json(&["cube", xgid, "--rollout", "--trials", "648", "--json"]);
        // The same verdict, in gnubg's words.
        assert_eq!(ours["action"], p["action"], "{name}: {ours}");
        assert_eq!(ours["match_play"], !name.starts_with("money"), "{name}");
        // The same equities (EMG at a match score): within three combined
        // standard errors where the dice decide (the openings); within
        // 0.02 in races, money or match (their errors are tiny, and the two
        // programs' 0-ply cube decisions inside the trials differ; a match
        // race priced by the cube model at the bear-off instead of played
        // out was 0.03 to 0.05 low); within 0.05 per unit of cube in the
        // blitz, where the nets' gammon chances differ (doubled, the same
        // difference in gammons moves double/take twice as far).
        for (key, cube) in [("no_double", 1.0), ("double_take", 2.0)] {
            let (a, b) = (f(&ours[key]), f(&p[key]));
            let se = f(&ours["se"][key]).hypot(f(&p[&format!("{key}_se")]));
            let allowed = if name.contains("opening") {
                3.0 * se
            } else if name.contains("race") {
                0.02
            } else {
                0.05 * cube
            };
            assert!(
                (a - b).abs() <= allowed,
                "{name} {key}: ours {a} gnubg {b} (allowed {allowed})"
            );
        }
        assert_eq!(f(&ours["double_pass"]), 1.0);
        assert_eq!(ours["trials"], 648);
    }
}

#[test]
fn match_rollouts_report_mwc_and_emg() {
    // 3-away 4-away in a 5-point match: cubeless and cubeful rollouts
    // report EMG and MWC, which the table ties together.
    let xgid = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:2:1:0:5:10";
    let v = json(&["rollout", xgid, "--trials", "144", "--cubeful", "--json"]);
    for key in ["emg", "mwc", "cubeful_equity", "cubeful_mwc", "equity"] {
        assert!(v[key].is_number(), "{key}: {v}");
        assert!(f(&v["se"][key]) > 0.0, "{key}: {v}");
    }
    // MWC is in 0..1 and EMG grows with it.
    let (mwc, cmwc) = (f(&v["mwc"]), f(&v["cubeful_mwc"]));
    assert!((0.0..=1.0).contains(&mwc) && (0.0..=1.0).contains(&cmwc));
    assert_eq!(
        f(&v["emg"]) > f(&v["cubeful_equity"]),
        mwc > cmwc,
        "EMG and MWC disagree: {v}"
    );
    // Money play has neither.
    let m = json(&["rollout", "start", "--trials", "36", "--cubeful", "--json"]);
    assert!(m["mwc"].is_null() && m["cubeful_mwc"].is_null() && m["cubeful_equity"].is_number());
}

#[test]
fn move_rollouts_name_their_figure_and_show_chances_and_mwc() {
    // A roll's plays rolled out: each row has the five chances, and the
    // header names what the plays are compared by; at a match score the
    // MWC stands beside it. Money play has no MWC column.
    let at_score = "4Ls3IACMd4OAIQ:cAmqAAAACAAE";
    for (args, figure, mwc) in [
        (vec![at_score, "42"], "cubeless EMG", true),
        (vec![at_score, "42", "--cubeful"], "cubeful EMG", true),
        (vec!["4Ls3IACMd4OAIQ", "42"], "cubeless equity", false),
        (
            vec!["4Ls3IACMd4OAIQ", "42", "--cubeful"],
            "cubeful equity",
            false,
        ),
    ] {
        let mut all = vec!["rollout"];
        all.extend(&args);
        all.extend(["--trials", "36", "--moves", "2", "--quiet"]);
        let (code, out, err) = sheshbesh(&all);
        assert_eq!(code, 0, "{args:?}: {err}");
        let lines: Vec<&str> = out.lines().collect();
        assert!(
            lines[0].contains(&format!("the plays by {figure};")),
            "{out}"
        );
        assert_eq!(lines[1].contains("MWC"), mwc, "{out}");
        assert_eq!(lines.len(), 4, "{out}");
        for row in &lines[2..] {
            // The rank, win, g, bg, lose g, bg, the figure and its error,
            // [MWC,] trials.
            let numbers = row
                .split_whitespace()
                .filter(|w| w.trim_end_matches('%').parse::<f64>().is_ok())
                .count();
            assert_eq!(numbers, if mwc { 10 } else { 9 }, "{row}");
            assert_eq!(row.contains('%'), mwc, "{row}");
        }
    }
}

#[test]
fn cube_rollouts_refuse_a_cube_the_player_cannot_turn() {
    // The opponent owns the cube (money), and the Crawford game.
    for (xgid, why) in [
        (
            "XGID=-b----E-C---eE---c-e----B-:1:-1:1:00:0:0:0:0:10",
            "the opponent owns the cube",
        ),
        (
            "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:4:2:1:5:10",
            "the Crawford game has no cube",
        ),
    ] {
        let (code, out, err) = sheshbesh(&["cube", xgid, "--rollout", "--trials", "36"]);
        assert_eq!(code, 2, "{xgid}: {out}{err}");
        assert!(out.is_empty());
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(why), "{err}");
    }
    let (code, _, err) = sheshbesh(&["cube", "start", "--rollout", "--level", "huge"]);
    assert_eq!(code, 2);
    assert!(err.contains("bad level \"huge\""), "{err}");
}

#[test]
fn a_rolled_out_table_is_written_read_back_and_resumed() {
    let dir = std::env::temp_dir().join(format!("sheshbesh-met-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("t.xml");
    let out_s = out.to_str().unwrap();
    let args = [
        "met",
        "--generate",
        "--rollout",
        "--length",
        "2",
        "--trials",
        "36",
        "--out",
        out_s,
        "--json",
    ];
    let v = json(&args);
    assert_eq!(v["length"], 2);
    assert!(f(&v["largest_se"]) > 0.0 && f(&v["largest_difference"]["value"]) < 0.2);
    let pre = &v["pre_crawford"];
    // The two players' chances add up to one; 1-away 1-away is even.
    assert_eq!(f(&pre[0][0]), 0.5);
    assert!((f(&pre[0][1]) + f(&pre[1][0]) - 1.0).abs() < 1e-4, "{v}");
    // The file is a table our reader (and gnubg's) takes.
    let back = json(&["met", "--table", out_s, "--json"]);
    assert_eq!(back["pre_crawford"], v["pre_crawford"]);
    // Every opening is kept: a rerun rolls nothing out and says the same.
    let cells = std::fs::read_to_string(dir.join("t.xml.cells")).unwrap();
    assert_eq!(cells.lines().count(), 5, "{cells}");
    assert_eq!(json(&args)["pre_crawford"], v["pre_crawford"]);
    // Other settings do not resume silently from it.
    let (code, _, err) = sheshbesh(&[
        "met",
        "--generate",
        "--rollout",
        "--length",
        "2",
        "--trials",
        "72",
        "--out",
        out_s,
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("made with 36 trials"), "{err}");
    // A damaged progress file is refused, not read as a table: a win
    // chance above 1, an opening no 2-point table has, a cell twice.
    let first = cells.lines().next().unwrap().to_string();
    let v: serde_json::Value = serde_json::from_str(&first).unwrap();
    let mwc = v["mwc"].to_string();
    for (damaged, why) in [
        (
            first.replacen(&format!("\"mwc\":{mwc}"), "\"mwc\":7.5", 1),
            "win chance 7.5",
        ),
        (first.replacen("\"away\":", "\"away\":9", 1), "no opening"),
        (format!("{first}\n{cells}"), "twice"),
    ] {
        std::fs::write(dir.join("t.xml.cells"), &damaged).unwrap();
        let (code, _, err) = sheshbesh(&args);
        assert_eq!(code, 2, "{damaged}");
        assert!(err.contains(why), "{err}");
    }
    let (code, _, err) = sheshbesh(&["met", "--generate", "--rollout"]);
    assert_eq!(code, 2);
    assert!(err.contains("--out"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_recorded_rollout_table_is_near_kazaross() {
    // data/met/Sheshbesh-rollout-7.xml, our own 7-point table from
    // cubeful match rollouts: within 1.5% of Kazaross-XG2 everywhere, as
    // its README records (1.23% at 2-away 4-away).
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../data/met/Sheshbesh-rollout-7.xml"
    );
    let ours = json(&["met", "--table", path, "--json"]);
    let kazaross = json(&["met", "--length", "7", "--json"]);
    assert_eq!(ours["length"], 7);
    let (a, b) = (&ours["pre_crawford"], &kazaross["pre_crawford"]);
    let mut worst = 0.0f64;
    for i in 0..7 {
        for j in 0..7 {
            worst = worst.max((f(&a[i][j]) - f(&b[i][j])).abs());
            assert!((f(&a[i][j]) + f(&a[j][i]) - 1.0).abs() < 1e-4);
        }
    }
    assert!(worst < 0.015 && worst > 0.01, "largest difference {worst}");
}
