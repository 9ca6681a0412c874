//! The command-line contract of docs/CLI.md, exercised on the binary.

use std::io::Write;
use std::process::{Command, Stdio};

fn sheshbesh(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_sheshbesh"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn show_json_has_the_promised_fields() {
    let (code, out, _) = sheshbesh(&["show", "start", "--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["position_id"], "4HPwATDgc/ABMA");
    assert_eq!(v["match_id"], "cAkAAAAAAAAA");
    assert_eq!(v["board"]["on_roll"].as_array().unwrap().len(), 26);
    assert_eq!(v["board"]["opponent"][6], 5);
    assert_eq!(v["pips"]["on_roll"], 167);
    assert!(v["xgid"]
        .as_str()
        .unwrap()
        .starts_with("XGID=-b----E-C---eE---c-e----B-:0:0:1:00"));
}

#[test]
fn show_draws_home_board_right_or_left() {
    let (_, right, _) = sheshbesh(&["show", "start"]);
    assert!(right.contains("+12-11-10--9--8--7-------6--5--4--3--2--1-+"));
    let (_, left, _) = sheshbesh(&["show", "start", "--home-left"]);
    assert!(left.contains("+-1--2--3--4--5--6-------7--8--9-10-11-12-+"));
}

#[test]
fn show_numbers_the_points_for_the_player_on_roll_and_gives_the_xgid() {
    // O on roll (XGID turn -1): O's 1 point is top right, as gnubg draws
    // it and as hints name O's plays.
    let xgid = "XGID=-b----E-C---eE---c-e----B-:0:0:-1:64:4:4:0:5:10";
    let (code, out, err) = sheshbesh(&["show", xgid]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[1].trim(), xgid);
    assert!(lines[2].starts_with(" +12-11-10--9--8--7-------6--5--4--3--2--1-+"));
    assert!(lines[14].starts_with(" +13-14-15-16-17-18------19-20-21-22-23-24-+"));
    assert!(lines[13].contains("O rolled 64"));
    // X on roll: X's numbers, X's 1 bottom right.
    let (_, out, _) = sheshbesh(&["show", &xgid.replace(":-1:", ":1:")]);
    assert!(out.lines().nth(2).unwrap().starts_with(" +13-14-15"));
}

#[test]
fn hint_without_a_roll_is_the_cube_decision() {
    // As gnubg's hint before the roll: the cube's answer.
    let (code, hint, err) = sheshbesh(&["hint", "4HPwATDgc/ABMA:cAmgAAAAAAAE", "--json"]);
    assert_eq!(code, 0, "{err}");
    let (_, cube, _) = sheshbesh(&["cube", "4HPwATDgc/ABMA:cAmgAAAAAAAE", "--json"]);
    assert_eq!(hint, cube);
    assert!(json_of(&hint)["action"].is_string());
    let (code, text, _) = sheshbesh(&["hint", "start"]);
    assert_eq!(code, 0);
    assert!(text.contains("Proper cube action:"), "{text}");
}

#[test]
fn moves_json_lists_every_play_with_ids() {
    let (code, out, _) = sheshbesh(&["moves", "4HPwATDgc/ABMA", "3-1", "--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let moves = v["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 16);
    assert!(moves.iter().any(|m| m["move"] == "8/5 6/5"));
    // A Position ID with a Match ID carrying dice needs no DICE word.
    let (code, out, _) = sheshbesh(&["moves", "4HPwATDgc/ABMA:cInlAAAAAAAE", "--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["dice"], "31");
    // XGID input, dice from the XGID.
    let (code, out, _) = sheshbesh(&[
        "moves",
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:3:0:10",
        "--json",
    ]);
    assert_eq!(code, 0, "{out}");
}

#[test]
fn no_legal_move_is_one_empty_entry() {
    // On the bar against a closed board.
    let (code, out, _) = sheshbesh(&["moves", "27bBAQDg/wMAYA", "31", "--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let moves = v["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 1);
    assert_eq!(moves[0]["move"], "");
}

#[test]
fn bad_input_is_one_line_exit_2_and_no_stdout() {
    for args in [
        &["moves", "4HPw", "31"][..],
        &["moves", "start", "07"],
        &["moves", "start", "7"],
        &["moves", "start", "x1"],
        &["show", "4HPwATDgc/AB!A"],
        &["show", "//////////////"],
        &["show", "4HPwATDgc/ABMA:cAkAAAAAAAA"],
        &["show", "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0"],
        &[
            "show",
            "XGID=-b----E-C---eE---c-e----B-:0:0:1:77:0:0:0:0:10",
        ],
        &["moves", "start"],
        &["met", "--score", "2,4", "--cube", "0"],
        &["met", "--score", "2,4", "--cube", "3"],
        &["hint", "start", "31", "--weights", "/dev/zero"],
    ] {
        let (code, out, err) = sheshbesh(args);
        assert_eq!(code, 2, "{args:?}");
        assert!(out.is_empty(), "{args:?} printed {out}");
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains("bad "), "{args:?}: {err}");
    }
}

#[test]
fn a_hidden_layer_the_net_cannot_have_is_refused_not_a_panic() {
    // The nets' kernels take hidden units in blocks; `--hidden 8` once
    // panicked deep in the trainer.
    let dir = std::env::temp_dir().join(format!("sheshbesh-hidden-{}", std::process::id()));
    let net = dir.join("net.weights");
    for flag in ["--hidden", "--race-hidden"] {
        for n in ["8", "0", "x"] {
            let (code, out, err) = sheshbesh(&[
                "train",
                "selfplay",
                "--checkpoint",
                net.to_str().unwrap(),
                "--games",
                "2",
                flag,
                n,
            ]);
            assert_eq!(code, 2, "{flag} {n}: {err}");
            assert!(out.is_empty(), "{flag} {n} printed {out}");
            assert_eq!(err.trim().lines().count(), 1, "{flag} {n}: {err}");
            assert!(
                err.contains(flag) && err.contains("give a multiple of"),
                "{flag} {n}: {err}"
            );
        }
    }
    assert!(!net.exists(), "nothing is written for a refused command");
}

#[test]
fn batch_answers_line_by_line_and_survives_bad_lines() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_sheshbesh"))
        .args(["moves", "--batch"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"start 31\nnonsense\n4HPwATDgc/ABMA 66\nstart 0\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let lines: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 4);
    assert_eq!(lines[0]["moves"].as_array().unwrap().len(), 16);
    assert!(lines[1]["error"].as_str().unwrap().contains("Position ID"));
    assert!(lines[2]["moves"].is_array());
    assert!(lines[3]["error"].as_str().unwrap().contains("dice"));
}

#[test]
fn bench_prints_the_signature() {
    let (code, out, _) = sheshbesh(&["bench", "--depth", "2", "--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["positions"], serde_json::json!([175, 71485]));
}

fn json_of(out: &str) -> serde_json::Value {
    serde_json::from_str(out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

#[test]
fn hint_ranks_every_legal_play_best_first() {
    let (code, out, err) = sheshbesh(&["hint", "start", "31", "--json", "--cubeless"]);
    assert_eq!(code, 0, "{err}");
    let v = json_of(&out);
    assert_eq!(v["equity"], "cubeless");
    let moves = v["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 16);
    let eq: Vec<f64> = moves
        .iter()
        .map(|m| m["equity"].as_f64().unwrap())
        .collect();
    assert!(eq.windows(2).all(|w| w[0] >= w[1]), "{eq:?}");
    for m in moves {
        let p: Vec<f64> = m["probs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect();
        assert_eq!(p.len(), 5);
        assert!(p[1] <= p[0] && p[2] <= p[1] && p[3] <= 1.0 - p[0] && p[4] <= p[3]);
        let e = 2.0 * p[0] - 1.0 + p[1] - p[3] + p[2] - p[4];
        assert!((e - m["equity"].as_f64().unwrap()).abs() < 1e-4);
    }
    // By default the same plays ranked by cubeful equity: with the cube
    // centred close to the cubeless one, and labelled.
    let (code, out, err) = sheshbesh(&["hint", "start", "31", "--json"]);
    assert_eq!(code, 0, "{err}");
    let cubeful = json_of(&out);
    assert_eq!(cubeful["equity"], "cubeful");
    let cubeful = cubeful["moves"].as_array().unwrap();
    assert_eq!(cubeful.len(), moves.len());
    assert_eq!(cubeful[0]["move"], moves[0]["move"]);
    let e0 = |m: &serde_json::Value| m["equity"].as_f64().unwrap();
    assert!(
        (e0(&cubeful[0]) - e0(&moves[0])).abs() < 0.05,
        "{cubeful:?}"
    );
    // The same plays as `moves` lists.
    let (_, listed, _) = sheshbesh(&["moves", "start", "31", "--json"]);
    let mut a: Vec<String> = json_of(&listed)["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["position_id"].as_str().unwrap().to_string())
        .collect();
    let mut b: Vec<String> = moves
        .iter()
        .map(|m| m["position_id"].as_str().unwrap().to_string())
        .collect();
    a.sort();
    b.sort();
    assert_eq!(a, b);
}

/// `--first-layer int16` evaluates with the integer first layer: the
/// same ranking of the opening 3-1 as the floats, equities a little
/// apart; a value it does not know is one clear line.
#[test]
fn hint_with_the_integer_first_layer_ranks_as_the_floats() {
    let moves_of = |extra: &[&str]| -> Vec<(String, f64)> {
        let mut args = vec!["hint", "start", "31", "--json", "--ply", "1"];
        args.extend(extra);
        let (code, out, err) = sheshbesh(&args);
        assert_eq!(code, 0, "{err}");
        json_of(&out)["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| {
                let play = m["move"].as_str().unwrap().to_string();
                (play, m["equity"].as_f64().unwrap())
            })
            .collect()
    };
    let float = moves_of(&[]);
    let int16 = moves_of(&["--first-layer", "int16"]);
    assert_eq!(float[0].0, int16[0].0);
    assert!(float.iter().zip(&int16).any(|(a, b)| a.1 != b.1));
    for (play, eq) in &float {
        let other = int16.iter().find(|(p, _)| p == play).expect("every play");
        assert!(
            (eq - other.1).abs() < 0.005,
            "{play}: {eq} against {}",
            other.1
        );
    }
    let (code, _, err) = sheshbesh(&["hint", "start", "31", "--first-layer", "int8"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("invalid value 'int8' for '--first-layer"),
        "{err}"
    );
}

#[test]
fn hint_searches_deeper_on_request() {
    let (code, out, err) = sheshbesh(&["hint", "start", "64", "--ply", "1", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v = json_of(&out);
    assert_eq!(v["moves"][0]["ply"], 1);
    let (code, _, err) = sheshbesh(&["hint", "start", "64", "--ply", "9"]);
    assert_eq!(code, 2);
    assert!(err.contains("bad --ply"), "{err}");
}

#[test]
fn eval_reports_probabilities_equities_and_the_cube() {
    let (code, out, err) = sheshbesh(&["eval", "start", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v = json_of(&out);
    assert_eq!(v["probs"].as_array().unwrap().len(), 5);
    for k in ["no_double", "double_take", "double_pass"] {
        assert!(v["cubeful"][k].is_number(), "{k}");
    }
    assert!(v["cube_action"].as_str().unwrap().contains("double"));
}

#[test]
fn bear_offs_are_valued_exactly() {
    use sheshbesh_engine::{formats::position_id, Position};
    // One checker on my 6 point against one on the opponent's ace point: I
    // win with any roll of 6 pips or more, 27 of 36.
    let mut me = [0u8; 24];
    me[5] = 1;
    let mut opp = [0u8; 24];
    opp[0] = 1;
    let pos = Position::from_sides(&me, 0, &opp, 0).unwrap();
    let id = position_id::encode(&pos);
    let (code, out, err) = sheshbesh(&["eval", &id, "--json"]);
    assert_eq!(code, 0, "{err}");
    let win = json_of(&out)["probs"][0].as_f64().unwrap();
    assert!((win - 27.0 / 36.0).abs() < 1e-4, "{win}");
}

#[test]
fn hint_batch_answers_line_by_line() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_sheshbesh"))
        .args(["hint", "--batch"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"start 31\nstart 77\n4HPwATDgc/ABMA 6-5\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let lines: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(json_of)
        .collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0]["moves"].as_array().unwrap().len(), 16);
    assert!(lines[1]["error"].as_str().unwrap().contains("dice"));
    assert_eq!(lines[2]["moves"][0]["move"], "24/13");
}

#[test]
fn a_tiny_training_run_writes_weights_that_load() {
    let dir = std::env::temp_dir().join(format!("shb-cli-train-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let ck = dir.join("tiny.weights");
    let ck_s = ck.to_str().unwrap();
    let tiny = |path: &str, extra: &[&str]| {
        let mut args = vec![
            "train",
            "selfplay",
            "--checkpoint",
            path,
            "--games",
            "64",
            "--hidden",
            "32",
            "--race-hidden",
            "32",
            "--check-every",
            "0",
            "--quiet",
        ];
        args.extend_from_slice(extra);
        sheshbesh(&args)
    };
    let (code, out, err) = tiny(ck_s, &["--json"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(json_of(&out)["games"], 64);
    let (code, _, err) = sheshbesh(&["hint", "start", "31", "--weights", ck_s]);
    assert_eq!(code, 0, "{err}");
    // A second run on other seeds, folded with the first into one net.
    let other = dir.join("other.weights");
    let both = dir.join("both.weights");
    let (other_s, both_s) = (other.to_str().unwrap(), both.to_str().unwrap());
    assert_eq!(tiny(other_s, &["--seed", "2"]).0, 0);
    let fold = |op: &str, files: &[&str], out: &str| {
        let mut args = vec!["train", "weights", op];
        args.extend_from_slice(files);
        args.extend_from_slice(&["--out", out]);
        sheshbesh(&args)
    };
    let (code, out, err) = fold("ensemble", &[ck_s, other_s], both_s);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("64 contact hidden units"), "{out}");
    let (code, out, err) = sheshbesh(&["eval", "start", "--weights", both_s, "--json"]);
    assert_eq!(code, 0, "{err}");
    let win = json_of(&out)["probs"][0].as_f64().unwrap();
    assert!(win > 0.0 && win < 1.0, "{out}");
    let (code, _, _) = fold("ensemble", &[ck_s], both_s);
    assert_eq!(code, 2, "one file is no ensemble");
    let mean = dir.join("mean.weights");
    let (code, out, err) = fold("average", &[ck_s, other_s], mean.to_str().unwrap());
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("averaged 2 files"), "{out}");
    // A new run with a second hidden layer trains and evaluates.
    let deep = dir.join("deep.weights");
    let deep_s = deep.to_str().unwrap();
    let (code, _, err) = tiny(deep_s, &["--hidden2", "12"]);
    assert_ne!(code, 0, "12 is not a multiple of 8");
    assert!(err.contains("multiple of 8"), "{err}");
    let (code, out, err) = tiny(deep_s, &["--hidden2", "16", "--fresh", "--json"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(json_of(&out)["games"], 64);
    // A round of expert iteration on decisions labels, fits and checks.
    let cache = dir.join("labels");
    let expert = |epochs: &str, extra: &[&str]| {
        let mut args = vec![
            "train",
            "expert",
            "--checkpoint",
            ck_s,
            "--labels",
            "decisions:4",
            "--ply",
            "1",
            "--positions",
            "40",
            "--epochs",
            epochs,
            "--batch",
            "16",
            "--alpha",
            "0.0003",
            "--check-pairs",
            "10",
            "--cache",
            cache.to_str().unwrap(),
            "--quiet",
        ];
        args.extend_from_slice(extra);
        sheshbesh(&args)
    };
    let (_, before, _) = sheshbesh(&["eval", "start", "--weights", ck_s, "--json"]);
    let (code, _, err) = expert("2", &["--json"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("\"held_out_regret\""), "{err}");
    assert!(cache.join("round-1.decisions").exists());
    let (_, after, _) = sheshbesh(&["eval", "start", "--weights", ck_s, "--json"]);
    assert_ne!(
        json_of(&before)["probs"],
        json_of(&after)["probs"],
        "the fit moved it"
    );
    // `--epochs 0` labels only (here: reads the round's labels back) and
    // leaves the nets as they are.
    let (code, _, err) = expert("0", &[]);
    assert_eq!(code, 0, "{err}");
    let (_, unfitted, _) = sheshbesh(&["eval", "start", "--weights", ck_s, "--json"]);
    assert_eq!(json_of(&after)["probs"], json_of(&unfitted)["probs"]);
    // `--sample FILE` labels the listed positions, not self-play's; a bad
    // line is refused by its number.
    let listed = ["4HPwATDgc/ABMA", "jGfkASjg8wcBMA", "4HPhASHgc/ABMA"];
    let sample = dir.join("sample.ids");
    let text = format!(
        "# real play\n\n{}\n{}:cAkAAAAAAAAA\n{}\n",
        listed[0], listed[1], listed[2]
    );
    std::fs::write(&sample, text).unwrap();
    let sampled = dir.join("sampled");
    let by_sample = |file: &std::path::Path, cache: &std::path::Path, extra: &[&str]| {
        let mut args = vec![
            "train",
            "expert",
            "--checkpoint",
            ck_s,
            "--labels",
            "search",
            "--ply",
            "0",
            "--positions",
            "40",
            "--epochs",
            "0",
            "--check-pairs",
            "1",
            "--cache",
            cache.to_str().unwrap(),
            "--sample",
            file.to_str().unwrap(),
            "--quiet",
        ];
        args.extend_from_slice(extra);
        sheshbesh(&args)
    };
    // The boards a label file holds (sorted Position IDs).
    let ids_in = |file: &std::path::Path| {
        let text = std::fs::read_to_string(file).unwrap();
        let mut ids: Vec<String> = text
            .lines()
            .filter(|l| !l.starts_with('#'))
            .map(|l| l.split(' ').next().unwrap().to_string())
            .collect();
        ids.sort();
        ids
    };
    // The boards a run labelled, read from its cache.
    let labelled_in = |cache: &std::path::Path| {
        ids_in(
            &std::fs::read_dir(cache)
                .unwrap()
                .next()
                .unwrap()
                .unwrap()
                .path(),
        )
    };
    let (code, _, err) = by_sample(&sample, &sampled, &[]);
    assert_eq!(code, 0, "{err}");
    let mut want = listed.to_vec();
    want.sort();
    assert_eq!(labelled_in(&sampled), want);
    // `--sample-walk 1` labels the boards one turn on from them instead.
    let walked = dir.join("walked");
    let (code, _, err) = by_sample(&sample, &walked, &["--sample-walk", "1"]);
    assert_eq!(code, 0, "{err}");
    let boards = labelled_in(&walked);
    assert_eq!(boards.len(), 3);
    assert_ne!(boards, want);
    std::fs::write(&sample, "4HPwATDgc/ABMA\n\nnot-an-id\n").unwrap();
    let (code, _, err) = by_sample(&sample, &sampled, &[]);
    assert_ne!(code, 0);
    assert!(err.contains("line 3"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    // Calibration: sampled positions rolled out, each output of the
    // contact net rescaled to them, the record kept in the checkpoint; a
    // second run reads the same labels back and finds the saved net where
    // the first left it.
    let labels = dir.join("calibration.labels");
    let calibrate_to = |labels: &std::path::Path, extra: &[&str]| {
        let mut args = vec![
            "train",
            "calibrate",
            "--checkpoint",
            ck_s,
            "--labels",
            labels.to_str().unwrap(),
            "--positions",
            "200",
            "--trials",
            "4",
            "--json",
        ];
        args.extend_from_slice(extra);
        sheshbesh(&args)
    };
    let calibrate = |extra: &[&str]| calibrate_to(&labels, extra);
    let (code, out, err) = calibrate(&[]);
    assert_eq!(code, 0, "{err}");
    let c = json_of(&out);
    assert!(c["labels"].as_u64().unwrap() > 50, "{out}");
    assert_eq!(c["net"], "contact");
    assert!(labels.exists());
    let (_, calibrated, _) = sheshbesh(&["eval", "start", "--weights", ck_s, "--json"]);
    assert_ne!(json_of(&after)["probs"], json_of(&calibrated)["probs"]);
    let (code, out, err) = calibrate(&[]);
    assert_eq!(code, 0, "{err}");
    let again = json_of(&out);
    assert_eq!(again["labels"], c["labels"]);
    for k in 0..5 {
        let (was, is) = (&c["after"][k]["rmse"], &again["before"][k]["rmse"]);
        assert!(
            (was.as_f64().unwrap() - is.as_f64().unwrap()).abs() < 1e-4,
            "{c} {again}"
        );
    }
    // The whole net fitted to the same labels, held by anchors.
    let (_, before_net, _) = sheshbesh(&["eval", "start", "--weights", ck_s, "--json"]);
    let (code, out, err) = calibrate(&["--fit", "net", "--epochs", "2"]);
    assert_eq!(code, 0, "{err}");
    assert!(json_of(&out)["fit"]["Net"]["epochs"] == 2, "{out}");
    let (_, after_net, _) = sheshbesh(&["eval", "start", "--weights", ck_s, "--json"]);
    assert_ne!(json_of(&before_net)["probs"], json_of(&after_net)["probs"]);
    let record = std::fs::read(&ck).unwrap();
    let text = String::from_utf8_lossy(&record);
    assert_eq!(text.matches("train calibrate").count(), 3);
    // `--sample FILE` rolls out the listed positions, not self-play's.
    std::fs::write(&sample, listed.join("\n")).unwrap();
    let real = dir.join("real.labels");
    let by_list = ["--sample", sample.to_str().unwrap()];
    let (code, _, err) = calibrate_to(&real, &by_list);
    assert_eq!(code, 0, "{err}");
    assert_eq!(ids_in(&real), want);
    std::fs::write(&sample, "4HPwATDgc/ABMA\nnot-an-id\n").unwrap();
    std::fs::remove_file(&real).unwrap();
    let (code, _, err) = calibrate_to(&real, &by_list);
    assert_ne!(code, 0);
    assert!(err.contains("line 2"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    // Impossible combinations are refused by the parser, naming the flag.
    let (code, _, err) = sheshbesh(&["train", "calibrate", "--labels", "x", "--anchors", "1000"]);
    assert_eq!(code, 2);
    assert!(err.contains("--anchors"), "{err}");
    let (code, _, err) = sheshbesh(&["train", "expert", "--labels", "search", "--reanchor"]);
    assert_ne!(code, 0);
    assert!(err.contains("--reanchor is for decision labels"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    let (code, _, err) = sheshbesh(&["train", "expert", "--labels", "rollouts:5"]);
    assert_eq!(code, 2);
    assert!(err.contains("--labels"), "{err}");
    let (code, _, err) = sheshbesh(&["train", "expert", "--labels", "search", "--shard", "0/2"]);
    assert_eq!(code, 2);
    assert!(err.contains("--cache"), "{err}");
    let (code, out, _) = sheshbesh(&["train", "--help"]);
    assert_eq!(code, 0);
    assert!(out.contains("selfplay") && out.contains("expert") && out.contains("weights"));
    // A damaged file is refused with a reason.
    let mut bytes = std::fs::read(&ck).unwrap();
    let n = bytes.len();
    bytes[n - 10] ^= 1;
    std::fs::write(&ck, &bytes).unwrap();
    let (code, out, err) = sheshbesh(&["hint", "start", "31", "--weights", ck_s]);
    assert_eq!(code, 2);
    assert!(out.is_empty());
    assert!(
        err.contains("bad weights") && err.contains("checksum"),
        "{err}"
    );
    std::fs::write(&ck, b"nonsense").unwrap();
    let (code, _, err) = sheshbesh(&["eval", "start", "--weights", ck_s]);
    assert_eq!(code, 2);
    assert!(err.contains("magic"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn cube_json_has_the_promised_fields_in_money_and_match_play() {
    let (code, out, err) = sheshbesh(&["cube", "start", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v = json_of(&out);
    for k in [
        "no_double",
        "double_take",
        "double_pass",
        "take_point",
        "cash_point",
    ] {
        assert!(v[k].is_number(), "{k}: {v}");
    }
    assert_eq!(v["double_pass"], 1.0);
    assert_eq!(v["probs"].as_array().unwrap().len(), 5);
    assert!(v["action"].as_str().unwrap().contains("ouble"));
    // gnubg's vector: 11-point match at 3-8, player 1 (3-away) owns a
    // 4-cube and is on roll: a single win takes the match already.
    let (code, out, err) = sheshbesh(&["cube", "2+4OAADb3Q0AAA:UglgATAAQAAE", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v = json_of(&out);
    assert_eq!(v["match_play"], true);
    assert_eq!(v["action"], "No redouble, dead cube", "{v}");
    assert!((v["double_pass"].as_f64().unwrap() - 1.0).abs() < 1e-4);
    // The Crawford game: no cube.
    let (code, out, err) = sheshbesh(&["cube", "sHNwADbYboMBIA:sAG7AEAAEAAE", "--json"]);
    assert_eq!(code, 0, "{err}");
    assert!(json_of(&out)["action"]
        .as_str()
        .unwrap()
        .contains("no access"));
}

#[test]
fn met_prints_kazaross_and_its_facts() {
    let (code, out, err) = sheshbesh(&["met", "--json", "--score", "2,2"]);
    assert_eq!(code, 0, "{err}");
    let v = json_of(&out);
    assert_eq!(v["length"], 25);
    let pre = v["pre_crawford"].as_array().unwrap();
    // Symmetry: M[i][j] + M[j][i] = 1.
    let at = |i: usize, j: usize| pre[i][j].as_f64().unwrap();
    for (i, j) in (0..25).flat_map(|i| (0..25).map(move |j| (i, j))) {
        let s = at(i, j) + at(j, i);
        assert!((s - 1.0).abs() < 2e-4, "{i},{j}: {s}");
    }
    assert_eq!(v["post_crawford"][1], 0.48803);
    // At 2-away 2-away a double is for the match: take point = MWC of
    // 2-away against a 1-away leader in the Crawford game.
    assert!((v["score"]["take_point_opp"].as_f64().unwrap() - 0.32264).abs() < 1e-4);
    let (code, _, err) = sheshbesh(&["met", "--score", "0,3"]);
    assert_eq!(code, 2);
    assert!(err.contains("bad score"), "{err}");
}

#[test]
fn met_generate_compares_with_kazaross() {
    let (code, out, err) = sheshbesh(&["met", "--generate", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v = json_of(&out);
    let d = v["largest_difference"]["value"].as_f64().unwrap();
    assert!(d > 0.0 && d < 0.06, "{d}");
}

#[test]
fn rollouts_are_reproducible_across_thread_counts() {
    let args = |t: &'static str| {
        vec![
            "rollout",
            "start",
            "--trials",
            "72",
            "--truncate",
            "4",
            "--seed",
            "3",
            "--threads",
            t,
            "--json",
        ]
    };
    let (code, a, err) = sheshbesh(&args("1"));
    assert_eq!(code, 0, "{err}");
    let (_, b, _) = sheshbesh(&args("2"));
    assert_eq!(a, b);
    let v = json_of(&a);
    assert_eq!(v["trials"], 72);
    assert!(v["se"]["equity"].as_f64().unwrap() > 0.0);
    assert_eq!(v["probs"].as_array().unwrap().len(), 5);
}

#[test]
fn rollout_of_a_roll_compares_plays() {
    let (code, out, err) = sheshbesh(&[
        "rollout",
        "start",
        "31",
        "--trials",
        "72",
        "--truncate",
        "2",
        "--moves",
        "3",
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v = json_of(&out);
    assert_eq!(v["moves"].as_array().unwrap().len(), 3);
}

#[test]
fn rollout_of_a_position_with_its_roll_compares_that_rolls_plays() {
    // An XGID carrying 31: the plays of 31, as `hint` reads it, not the
    // position before the roll.
    let xgid = "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10";
    let args = |more: &[&'static str]| {
        let mut v = vec![
            "rollout",
            xgid,
            "--trials",
            "36",
            "--truncate",
            "2",
            "--moves",
            "2",
            "--json",
        ];
        v.extend(more);
        v
    };
    let (code, out, err) = sheshbesh(&args(&[]));
    assert_eq!(code, 0, "{err}");
    let v = json_of(&out);
    assert_eq!(v["dice"], "31");
    assert_eq!(v["moves"].as_array().unwrap().len(), 2);
    // DICE given overrides the position's.
    let (_, out, _) = sheshbesh(&args(&["42"]));
    assert_eq!(json_of(&out)["dice"], "42");
}

#[test]
fn rollout_batch_answers_each_line() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_sheshbesh"))
        .args(["rollout", "--batch", "--trials", "36", "--truncate", "2"])
        .args(["--moves", "2"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(
        child.stdin.as_mut().unwrap(),
        b"start\nnonsense\nstart 31\n",
    )
    .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let lines: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0]["trials"], 36);
    assert!(lines[1]["error"]
        .as_str()
        .unwrap()
        .starts_with("bad Position ID"));
    assert_eq!(lines[2]["moves"].as_array().unwrap().len(), 2);
}

/// A scratch directory for one test.
fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("sheshbesh-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

const SMALL_MATCH: &str = "; [Site \"test\"]\n\n 3 point match\n\n Game 1\n alice : 0                 bob : 0\n  1) 62: 24/18 13/11        61: 24/18 6/5\n  2) 43: 13/9 13/10         52: 13/8 13/11\n  3)  Doubles => 2           Takes\n  4) 31: 8/5 6/5            44: 13/9(2) 6/2(2)\n";

#[test]
fn annotate_json_has_the_promised_fields() {
    let dir = scratch("annotate-json");
    let f = dir.join("small.mat");
    std::fs::write(&f, SMALL_MATCH).unwrap();
    let (code, out, err) = sheshbesh(&["annotate", f.to_str().unwrap(), "--ply", "0", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["length"], 3);
    let players = v["players"].as_array().unwrap();
    assert_eq!(players[0]["name"], "alice");
    for key in [
        "error_rate",
        "checker_error_rate",
        "cube_error_rate",
        "pr",
        "marks",
        "luck",
    ] {
        assert!(!players[1][key].is_null(), "{key}");
    }
    let decisions = v["decisions"].as_array().unwrap();
    assert!(decisions
        .iter()
        .any(|d| d["kind"] == "cube" && d["played"] == "Double"));
    assert!(decisions
        .iter()
        .any(|d| d["kind"] == "cube" && d["played"] == "Take"));
    let d = decisions.iter().find(|d| d["kind"] == "checker").unwrap();
    for key in [
        "game",
        "move",
        "player",
        "position_id",
        "match_id",
        "dice",
        "played",
        "best",
        "equity_loss",
        "equity",
        "mwc",
        "mark",
    ] {
        assert!(!d[key].is_null(), "{key}");
    }
    assert_eq!(d["played"], "24/18 13/11");
    // The mover's match-winning chance before each decision: a chance.
    for d in decisions {
        let w = d["mwc"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&w), "{w}");
    }
}

#[test]
fn annotate_batch_reports_every_file_and_writes_html() {
    let dir = scratch("annotate-batch");
    std::fs::write(dir.join("a.mat"), SMALL_MATCH).unwrap();
    // An illegal play on line 7 (61 cannot bear off).
    let bad = SMALL_MATCH.replace("61: 24/18 6/5", "61: 6/off 6/5");
    std::fs::write(dir.join("b.mat"), bad).unwrap();
    let html = dir.join("html");
    let (code, out, _) = sheshbesh(&[
        "annotate",
        dir.to_str().unwrap(),
        "--ply",
        "0",
        "--html",
        html.to_str().unwrap(),
    ]);
    assert_eq!(code, 1, "one file failed");
    assert!(out.contains("a.mat") && out.contains("ok:"), "{out}");
    assert!(
        out.contains("b.mat") && out.contains("FAILED: line 7"),
        "{out}"
    );
    assert!(out.contains("2 files: 1 annotated, 1 failed"));
    // A heading, each file's line (its players named with their figures),
    // then the count.
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 4, "{out}");
    assert!(lines[0].starts_with("file") && lines[0].ends_with("result"));
    assert!(
        lines[1].contains("ok: alice ") && lines[1].contains(", bob "),
        "{out}"
    );
    let page = std::fs::read_to_string(html.join("a.html")).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>") && page.contains("alice"));
    // The report players expect: results, the match's graph, every
    // decision game by game.
    for part in [
        "<h2>Games</h2>",
        "id=\"graph\"",
        "<h2>Decisions</h2>",
        "<polyline",
    ] {
        assert!(page.contains(part), "{part}");
    }
    assert!(!html.join("b.html").exists());
}

#[test]
fn the_report_draws_an_answer_to_a_double_from_the_takers_side() {
    // Match 05, game 2: fcamilovski takes lasse's double where a pass was
    // better. The diagram and caption are the taker's: its name, its
    // pips at the bottom; the doubler's on top.
    let dir = scratch("annotate-take");
    let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../data/matches/05_galaxy_5pt_match2430002.mat");
    let html = dir.join("r.html");
    let (code, _, err) = sheshbesh(&[
        "annotate",
        file.to_str().unwrap(),
        "--ply",
        "0",
        "--html",
        html.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let page = std::fs::read_to_string(&html).unwrap();
    // The position is kept from the doubler's side, as gnubg's IDs are.
    let doubler = sheshbesh_engine::formats::position_id::decode("hucaAwjYtokDIA").unwrap();
    let (doubler_pips, taker_pips) = doubler.pips();
    let caption = format!(
        "fcamilovski (bottom, pips {taker_pips}) to answer the double of lasse (top, pips {doubler_pips})"
    );
    assert!(page.contains(&caption), "{caption}");
    assert!(page.contains("<th>Take</th><th>Pass</th><th>Proper answer</th>"));
}

#[test]
fn annotate_reads_sgf_like_mat() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/matches");
    let (mat, sgf) = (
        dir.join("20_gnubg108_charlot1-charlot2_7p.mat"),
        dir.join("21_gnubg108_charlot1-charlot2_7p_analysed.sgf"),
    );
    let run = |f: &std::path::Path| {
        let (code, out, err) =
            sheshbesh(&["annotate", f.to_str().unwrap(), "--ply", "0", "--json"]);
        assert_eq!(code, 0, "{err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        (
            v["players"].clone(),
            v["decisions"].as_array().unwrap().len(),
        )
    };
    assert_eq!(run(&mat), run(&sgf));
}

#[test]
fn annotate_reads_result_lines_with_a_losses_cell() {
    // BackgammonGalaxy's dialect: the last line numbered, the winner's
    // cell "Wins", the loser's "Losses" ("24)  Losses 2 point   Wins 2
    // point and the match" when the right player won). The same game with
    // the plain "Wins" line gives the same annotation.
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/matches");
    let plain = std::fs::read_to_string(dir.join("02_galaxy_2pt_match8062348.mat")).unwrap();
    let mut lines: Vec<&str> = plain.lines().collect();
    assert_eq!(
        lines.pop().map(str::trim),
        Some("Wins 2 point and the match")
    );
    let with_losses = format!(
        "{}\n 23)  Wins 2 point and the match       Losses 2 point\n",
        lines.join("\n")
    );
    let tmp = std::env::temp_dir().join(format!("losses-{}.mat", std::process::id()));
    std::fs::write(&tmp, with_losses).unwrap();
    let run = |f: &std::path::Path| {
        let (code, out, err) =
            sheshbesh(&["annotate", f.to_str().unwrap(), "--ply", "0", "--json"]);
        assert_eq!(code, 0, "{err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        (v["players"].clone(), v["results"].clone())
    };
    let (a, b) = (run(&tmp), run(&dir.join("02_galaxy_2pt_match8062348.mat")));
    std::fs::remove_file(&tmp).unwrap();
    assert_eq!(a, b);
    assert_eq!(a.1[0]["points"], 2, "{:?}", a.1);
}

#[test]
fn annotate_bad_input_names_file_and_line() {
    let dir = scratch("annotate-bad");
    let f = dir.join("bad.mat");
    std::fs::write(
        &f,
        "3 point match\n Game 1\n a : 0   b : 0\n  1) 77: 13/6\n",
    )
    .unwrap();
    // A file that fails is exit status 1, with or without --json.
    let (code, _, err) = sheshbesh(&["annotate", f.to_str().unwrap(), "--ply", "0"]);
    assert_eq!(code, 1);
    assert!(err.contains("bad.mat") && err.contains("line 4"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    let missing = dir.join("missing.mat");
    for json in [false, true] {
        let mut args = vec!["annotate", missing.to_str().unwrap()];
        args.extend(json.then_some("--json"));
        let (code, _, err) = sheshbesh(&args);
        assert_eq!(code, 1, "{args:?}: {err}");
    }
    // A bad flag is bad input: exit status 2.
    let (code, _, _) = sheshbesh(&["annotate", f.to_str().unwrap(), "--ply", "9"]);
    assert_eq!(code, 2);
    // The help names every kind of file it reads.
    let (_, help, _) = sheshbesh(&["annotate", "--help"]);
    for kind in [".mat", ".txt", "SGF"] {
        assert!(help.contains(kind), "{kind}: {help}");
    }
}

#[test]
fn annotate_every_real_match_file() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/matches");
    let (code, out, err) = sheshbesh(&["annotate", dir.to_str().unwrap(), "--ply", "0", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let files = v.as_array().unwrap();
    for f in files {
        let name = f["file"].as_str().unwrap();
        assert!(name.ends_with(".mat") || name.ends_with(".sgf"), "{name}");
        assert!(f["error"].is_null(), "{name}: {}", f["error"]);
        assert!(!f["decisions"].as_array().unwrap().is_empty(), "{name}");
    }
    // Every match file of the folder, and not its SOURCES.txt.
    assert_eq!(files.len(), 25);
    // Named on the command line, a file is read whatever it looks like.
    let (code, _, err) = sheshbesh(&["annotate", dir.join("SOURCES.txt").to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(err.contains("line "), "{err}");
}

#[test]
fn play_engine_against_engine_finishes_a_match_in_hebrew_words() {
    let dir = std::env::temp_dir().join(format!("sheshbesh-cli-play-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mat = dir.join("m.mat");
    let seed = "0123456789abcdef".repeat(4);
    let out = Command::new(env!("CARGO_BIN_EXE_sheshbesh"))
        .args([
            "play",
            "--players",
            "engine,engine",
            "--match",
            "3",
            "--level",
            "beginner",
            "--lang",
            "he",
            "--israeli",
            "--seed",
            &seed,
            "--save",
            mat.to_str().unwrap(),
        ])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "{text}");
    assert!(text.contains("wins the match"), "{text}");
    assert!(text.contains("אכלתי לך") || text.contains("מארס"), "{text}");
    let file = std::fs::read_to_string(&mat).unwrap();
    assert!(file.contains("; [Israeli \"On\"]"));
    // Replaying the same seed gives the same match.
    let again = Command::new(env!("CARGO_BIN_EXE_sheshbesh"))
        .args([
            "play",
            "--players",
            "engine,engine",
            "--match",
            "3",
            "--level",
            "beginner",
            "--israeli",
            "--seed",
            &seed,
            "--save",
            dir.join("m2.mat").to_str().unwrap(),
        ])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(again.status.success());
    assert_eq!(std::fs::read_to_string(dir.join("m2.mat")).unwrap(), file);
    // verify: the right seed passes, a wrong commitment fails (status 1), a
    // malformed seed is bad input (status 2).
    let commitment = file
        .lines()
        .find_map(|l| l.strip_prefix("; [DiceCommitment \""))
        .and_then(|l| l.strip_suffix("\"]"))
        .unwrap()
        .to_string();
    let (code, out, _) = sheshbesh(&[
        "verify",
        &seed,
        &commitment,
        mat.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(code, 0, "{out}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(v["rolls_checked"].as_u64().unwrap() > 20);
    let (code, _, _) = sheshbesh(&["verify", &seed, &"0".repeat(64)]);
    assert_eq!(code, 1);
    let (code, _, err) = sheshbesh(&["verify", "xyz", &commitment]);
    assert_eq!(code, 2);
    assert!(err.contains("bad seed"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_chouette_with_a_person_in_a_seat_settles_a_game() {
    let dir = std::env::temp_dir().join(format!("sheshbesh-cli-chouette-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mat = dir.join("c.mat");
    let mut child = Command::new(env!("CARGO_BIN_EXE_sheshbesh"))
        .args([
            "play",
            "--chouette",
            "3",
            "--players",
            "human,engine,engine",
            "--names",
            "ann,ben,cy",
            "--games",
            "1",
            "--level",
            "intermediate",
            "--seed",
            &"42".repeat(32),
            "--save",
            mat.to_str().unwrap(),
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    // Whatever is asked, this answers it within three lines: a hinted play
    // and its confirmation, or "no".
    let script = "=1\n\nn\n".repeat(400);
    child
        .stdin
        .take()
        .unwrap()
        .write_all(script.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "{text}");
    assert!(text.contains("=== Chouette game 1:"), "{text}");
    let table: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.contains("game  session"))
        .skip(1)
        .take(3)
        .collect();
    assert_eq!(table.len(), 3, "{text}");
    let sum: i64 = table
        .iter()
        .map(|l| l.split_whitespace().nth(1).unwrap().parse::<i64>().unwrap())
        .sum();
    assert_eq!(sum, 0, "{text}");
    let file = std::fs::read_to_string(&mat).unwrap();
    assert!(file.contains(" Game 1"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn play_refuses_bad_options_before_printing_anything() {
    for args in [
        &["play", "--players", "engine,engine"][..],
        &["play", "--chouette", "2"][..],
        &["play", "--seed", "zz"][..],
        &["play", "--players", "human"][..],
        &["play", "--names", "a,b,c"][..],
        &["play", "--names", "a : b,c"][..],
        &["play", "--names", "a\nb"][..],
        &["play", "--chouette", "3", "--names", "a,b,c,d"][..],
    ] {
        let (code, out, err) = sheshbesh(args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(out.is_empty(), "{args:?} printed {out}");
        assert!(err.starts_with("sheshbesh: bad "), "{args:?}: {err}");
    }
}

#[test]
#[cfg(unix)]
fn output_into_a_closed_pipe_ends_quietly() {
    // The reading end is closed before the command writes (`... | head`
    // having quit).
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = Command::new(env!("CARGO_BIN_EXE_sheshbesh"))
        .args(["eval", "start"])
        .stdout(writer)
        .output()
        .unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn hint_ranks_plays_by_the_match_score() {
    // 4-4 in a 5-point match (double match point: gammons count nothing,
    // so the MWC is the win chance): gnubg 0-ply ranks 24/14 first and the
    // gammonish 8/2 6/2 fourth; in money play the gammons 8/2 6/2 wins
    // bring it closer to the best play than at DMP.
    let hint = |xgid: &str, ply: &str| {
        let (code, out, err) = sheshbesh(&["hint", xgid, "--ply", ply, "--json"]);
        assert_eq!(code, 0, "{err}");
        json_of(&out)
    };
    // How far `play` trails the best play, in equity (EMG at a match score).
    let gap = |v: &serde_json::Value, play: &str| {
        let moves = v["moves"].as_array().unwrap();
        let equity = |m: &serde_json::Value| m["equity"].as_f64().unwrap();
        let played = moves.iter().find(|m| m["move"] == play).unwrap();
        equity(&moves[0]) - equity(played)
    };
    let (dmp_xgid, money_xgid) = (
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:64:4:4:0:5:10",
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:64:0:0:0:0:10",
    );
    let dmp = hint(dmp_xgid, "0");
    assert_eq!(dmp["moves"][0]["move"], "24/14");
    let mwc = |m: &serde_json::Value| m["mwc"].as_f64().unwrap();
    let moves = dmp["moves"].as_array().unwrap();
    assert!((0.45..0.6).contains(&mwc(&moves[0])), "{}", mwc(&moves[0]));
    for m in moves {
        let win = m["probs"][0].as_f64().unwrap();
        assert!(
            (mwc(m) - win).abs() < 1e-5,
            "DMP: MWC is the win chance: {m}"
        );
    }
    assert!(moves.windows(2).all(|w| mwc(&w[0]) >= mwc(&w[1])));
    let money = hint(money_xgid, "0");
    assert!(money["moves"][0]["mwc"].is_null(), "no MWC in money play");
    let (money_gap, dmp_gap) = (gap(&money, "8/2 6/2"), gap(&dmp, "8/2 6/2"));
    assert!(
        money_gap < dmp_gap,
        "the gammonish play trails by less where gammons count: money {money_gap}, DMP {dmp_gap}"
    );
    // The same ranking at 1 ply, and the engine's own choice agrees.
    let dmp1 = hint(dmp_xgid, "1");
    assert_ne!(dmp1["moves"][0]["move"], "8/2 6/2");
}

#[test]
fn plays_that_all_leave_a_cash_rank_by_cubeless_equity() {
    // A 5-point match at 0-0 (held-out match, gnubg 2-ply's choice
    // bar/24 6/3*): after most 31s the opponent doubles us out at 0-ply,
    // so those plays are all worth -1 cubeful. Among them the better
    // cubeless chances come first, as gnubg breaks such ties.
    let hint = |more: &[&str]| {
        let mut args = vec!["hint", "jPPEARSwr2AAXA:MIGlAAAAAAAE", "31", "--json"];
        args.extend(more);
        let (code, out, err) = sheshbesh(&args);
        assert_eq!(code, 0, "{err}");
        json_of(&out)
    };
    let (cubeful, cubeless) = (hint(&[]), hint(&["--cubeless"]));
    let moves = cubeful["moves"].as_array().unwrap();
    let equity = |m: &serde_json::Value| m["equity"].as_f64().unwrap();
    let tied: Vec<String> = moves
        .iter()
        .filter(|m| equity(m) == -1.0)
        .map(|m| m["move"].to_string())
        .collect();
    assert!(tied.len() >= 3, "{cubeful}");
    // The tied plays stand together, after any play worth more, in the
    // order of their cubeless equities.
    let start = moves.iter().position(|m| equity(m) == -1.0).unwrap();
    assert!(moves[..start].iter().all(|m| equity(m) > -1.0), "{cubeful}");
    let together: Vec<String> = moves[start..start + tied.len()]
        .iter()
        .map(|m| m["move"].to_string())
        .collect();
    assert_eq!(together, tied);
    let by_cubeless: Vec<String> = cubeless["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["move"].to_string())
        .filter(|m| tied.contains(m))
        .collect();
    assert_eq!(tied, by_cubeless);
    assert_eq!(moves[0]["move"], "bar/24 6/3*");
}

/// Runs the binary with `args`, feeding `input`; its stdout lines.
fn coprocess(args: &[&str], input: &[u8]) -> Vec<String> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_sheshbesh"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{:?}", out.status);
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(String::from)
        .collect()
}

#[test]
fn every_coprocess_line_gets_one_answer_and_the_session_goes_on() {
    // A byte that is not UTF-8, a blank line and an overlong line each get
    // their own answer; the lines after them are answered as usual.
    let long = [b"start ".to_vec(), b"1".repeat(70_000), b"\n".to_vec()].concat();
    let input = [b"start 31\n\xff\n\n".to_vec(), long, b"start 66\n".to_vec()].concat();
    let lines = coprocess(&["hint", "--ply", "0", "--batch"], &input);
    assert_eq!(lines.len(), 5, "{lines:?}");
    assert!(json_of(&lines[0])["moves"].is_array());
    assert!(json_of(&lines[1])["error"]
        .as_str()
        .unwrap()
        .contains("UTF-8"));
    assert!(json_of(&lines[2])["error"].is_string());
    assert!(json_of(&lines[3])["error"]
        .as_str()
        .unwrap()
        .contains("longer"));
    assert_eq!(json_of(&lines[4])["dice"], "66");
    let lines = coprocess(&["ubgi", "--ply", "0"], b"ubgi\n\xff\n\nisready\n");
    assert_eq!(
        lines,
        [
            "id name Sheshbesh",
            "id author the Sheshbesh developers",
            &format!("id version {}", env!("CARGO_PKG_VERSION")),
            "readyok",
            "sorry",
            "sorry",
            "readyok"
        ]
    );
}

#[test]
fn a_panicking_file_would_not_lose_the_others_and_non_ascii_results_are_read() {
    let dir = scratch("annotate-sgf-utf8");
    let bad = dir.join("x.sgf");
    std::fs::write(&bad, "(;FF[4]GM[6]MI[length:5]RE[\u{e9}+1]\n;B[43lplo]\n)").unwrap();
    let good = dir.join("g.mat");
    std::fs::write(
        &good,
        "3 point match\n Game 1\n a : 0   b : 0\n  1) 31: 8/5 6/5\n",
    )
    .unwrap();
    let (code, out, err) = sheshbesh(&[
        "annotate",
        bad.to_str().unwrap(),
        good.to_str().unwrap(),
        "--ply",
        "0",
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v = json_of(&out);
    assert_eq!(v.as_array().unwrap().len(), 2);
    assert!(
        v.as_array().unwrap().iter().all(|f| f["error"].is_null()),
        "{out}"
    );
}

#[test]
fn impossible_positions_and_states_are_refused_in_one_line() {
    let start = "-b----E-C---eE---c-e----B-";
    for (input, field) in [
        ("AAAAAAAAAAAAAA".to_string(), "borne off"),
        (
            format!("XGID={}:0:0:1:00:0:0:0:5:10", "-".repeat(26)),
            "borne off",
        ),
        (format!("XGID={start}:0:0:1:00:0:0:1:5:10"), "Crawford"),
        (format!("XGID={start}:0:0:1:00:4:4:1:5:10"), "Crawford"),
        (
            format!("XGID={start}:0:0:1:00:0:0:0:1000:10"),
            "match equity table",
        ),
        ("4HPw\nATDgc/ABMA".to_string(), "Position ID"),
    ] {
        let (code, out, err) = sheshbesh(&["eval", &input]);
        assert_eq!(code, 2, "{input}");
        assert!(out.is_empty());
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(err.contains(field), "{input}: {err}");
    }
    // An XGID without its prefix may start with '-': it is no flag.
    let (code, out, err) = sheshbesh(&["eval", &format!("{start}:0:0:1:00:0:0:0:0:10"), "--json"]);
    assert_eq!(code, 0, "{err}");
    assert!(json_of(&out)["probs"].is_array());
    // A command-line error is one line too.
    let (code, _, err) = sheshbesh(&["hint", "start", "31", "--frobnicate"]);
    assert_eq!(code, 2);
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains("--frobnicate"), "{err}");
}

#[test]
fn a_chouette_file_verifies_and_annotates() {
    let dir = scratch("chouette-verify");
    let mat = dir.join("c.mat");
    let seed = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";
    let (code, out, err) = sheshbesh(&[
        "play",
        "--chouette",
        "3",
        "--players",
        "engine,engine,engine",
        "--games",
        "2",
        "--level",
        "beginner",
        "--seed",
        seed,
        "--save",
        mat.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let commitment = out
        .lines()
        .find_map(|l| l.strip_prefix("Dice commitment (SHA-256 of the secret seed): "))
        .unwrap()
        .to_string();
    let text = std::fs::read_to_string(&mat).unwrap();
    assert!(text.contains("[Jacoby \"Off\"]"), "{text}");
    let (code, out, err) = sheshbesh(&["verify", seed, &commitment, mat.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    let (code, _, err) = sheshbesh(&["annotate", mat.to_str().unwrap(), "--ply", "0"]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn a_money_session_with_beavers_and_automatic_doubles_annotates_to_its_score() {
    // Our own saves with the money options read back: the cube that
    // opening ties doubled is found from each game, and the points add up
    // to the session's.
    let dir = scratch("auto-doubles");
    let mat = dir.join("s.mat");
    let seed = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";
    let (code, out, err) = sheshbesh(&[
        "play",
        "--players",
        "engine,engine",
        "--games",
        "12",
        "--auto-doubles",
        "2",
        "--beavers",
        "--level",
        "beginner",
        "--seed",
        seed,
        "--save",
        mat.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let score = out
        .lines()
        .filter_map(|l| l.strip_prefix("Score: "))
        .next_back()
        .unwrap()
        .to_string();
    let points: Vec<u64> = score
        .split(", ")
        .map(|side| side.rsplit(' ').next().unwrap().parse().unwrap())
        .collect();
    let text = std::fs::read_to_string(&mat).unwrap();
    assert!(text.contains("Doubles => 4"), "{text}");
    let (code, json, err) = sheshbesh(&["annotate", mat.to_str().unwrap(), "--ply", "0", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let won: Vec<u64> = (0..2)
        .map(|p| v["players"][p]["points"].as_u64().unwrap())
        .collect();
    assert_eq!(won, points, "{score}");
}

#[test]
fn an_interrupted_rollout_prints_its_partial_result_and_exits_130() {
    let child = Command::new(env!("CARGO_BIN_EXE_sheshbesh"))
        .args([
            "rollout", "start", "--trials", "1000000", "--seed", "1", "--json",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let killed = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130));
    let v = json_of(&String::from_utf8(out.stdout).unwrap());
    assert_eq!(v["interrupted"], true);
    let trials = v["trials"].as_u64().unwrap();
    assert!(trials > 0 && trials < 1_000_000, "{trials}");
}

#[test]
fn show_keeps_each_players_colour_and_says_what_waits() {
    // O (player 0) redoubles: the board is drawn with X at the bottom as
    // gnubg draws it, and the status says who must answer.
    let xgid = "XGID=-b----E-C---eE---c-e----B-:1:-1:-1:D:3:5:0:9:10";
    let (code, out, err) = sheshbesh(&["show", xgid]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("O doubles (cube to 4): X to take or drop"),
        "{out}"
    );
    // A resignation offered by player 0, player 1 to answer.
    let (code, out, _) = sheshbesh(&["show", "2+4OAADb3Q0AAA:MEngABAACAAE"]);
    assert_eq!(code, 0);
    assert!(out.contains("offers to resign a gammon"), "{out}");
    // The IDs are the position's own, whoever is on roll.
    assert!(out.contains("Position ID: 2+4OAADb3Q0AAA"), "{out}");
}

#[test]
fn every_command_refuses_a_ply_deeper_than_the_engine_searches() {
    // One limit everywhere: before, ubgi and external took --ply 99 and
    // never answered.
    let file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../data/matches/05_galaxy_5pt_match2430002.mat"
    );
    for args in [
        &["hint", "start", "31"][..],
        &["eval", "start"],
        &["cube", "start"],
        &["annotate", file],
        &["rollout", "start"],
        &["ubgi"],
        &["external", "--listen", "127.0.0.1:0"],
        &["met", "--generate", "--rollout", "--out", "unused.xml"],
        &[
            "train",
            "expert",
            "--checkpoint",
            "unused",
            "--labels",
            "search",
        ],
    ] {
        let args: Vec<&str> = args.iter().copied().chain(["--ply", "99"]).collect();
        let (code, _, err) = sheshbesh(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert_eq!(
            err.trim(),
            "sheshbesh: bad --ply \"99\": give 0 to 4",
            "{args:?}"
        );
    }
}

#[test]
fn rollout_counts_are_bounded_and_numbers_real() {
    for (flag, value) in [
        ("--threads", "100000"),
        ("--threads", "0"),
        ("--moves", "0"),
        ("--trials", "0"),
        ("--target-se", "NaN"),
        ("--target-se", "0"),
    ] {
        let (code, _, err) = sheshbesh(&["rollout", "start", "31", flag, value]);
        assert_eq!(code, 2, "{flag} {value}: {err}");
        assert!(
            err.starts_with(&format!("sheshbesh: bad {flag} \"{value}\": ")),
            "{flag} {value}: {err}"
        );
    }
}

/// What `args` draw on a terminal's stderr (run under `script`, which
/// gives them one), escape sequences removed.
fn on_a_terminal(args: &[&str]) -> String {
    let command = std::iter::once(env!("CARGO_BIN_EXE_sheshbesh"))
        .chain(args.iter().copied())
        .map(|a| format!("'{a}'"))
        .collect::<Vec<_>>()
        .join(" ");
    let out = Command::new("script")
        .args(["-qfc", &format!("{command} > /dev/null"), "/dev/null"])
        .output()
        .expect("script (util-linux) runs");
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout).replace('\r', "\n");
    let mut plain = String::new();
    let mut escape = false;
    for c in text.chars() {
        match (escape, c) {
            (false, '\u{1b}') => escape = true,
            (true, c) if c.is_ascii_alphabetic() => escape = false,
            (true, _) => {}
            (false, c) => plain.push(c),
        }
    }
    plain
}

#[test]
fn long_jobs_show_their_progress_and_the_time_left() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/matches");
    let one = dir.join("05_galaxy_5pt_match2430002.mat");
    let shown = on_a_terminal(&["annotate", one.to_str().unwrap(), "--ply", "1"]);
    assert!(
        shown.contains("/183 rolls") && shown.contains(" left"),
        "{shown}"
    );
    let shown = on_a_terminal(&["rollout", "start", "--trials", "1296", "--truncate", "5"]);
    assert!(
        shown.contains("/1296 trials") && shown.contains(" left"),
        "{shown}"
    );
}

#[test]
fn a_weights_files_card_is_printed_and_a_bad_file_refused_in_one_line() {
    let shipped = concat!(env!("CARGO_MANIFEST_DIR"), "/../weights/sheshbesh.weights");
    let (code, out, _) = sheshbesh(&["train", "weights", "card", shipped]);
    assert_eq!(code, 0);
    assert!(
        out.contains("| nets | contact 236-512-5, race 236-128-5"),
        "{out}"
    );
    let card =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../weights/README.md"))
            .unwrap();
    assert!(
        card.contains(&out),
        "the model card holds what the command prints"
    );
    let readme = concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md");
    let (code, out, err) = sheshbesh(&["train", "weights", "card", readme]);
    assert_eq!((code, out.as_str()), (2, ""));
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("not a Sheshbesh weights file"), "{err}");
}
