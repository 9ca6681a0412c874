//! The command-line contract of shared/CLI.md, exercised on the binary.

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
    ] {
        let (code, out, err) = sheshbesh(args);
        assert_eq!(code, 2, "{args:?}");
        assert!(out.is_empty(), "{args:?} printed {out}");
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains("bad "), "{args:?}: {err}");
    }
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
