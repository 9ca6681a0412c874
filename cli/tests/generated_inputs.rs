//! Generated hostile input to the binary, a family at a time: lines for
//! the `ubgi` co-process (each gets exactly one answer and the process
//! lives on) and values for every numeric flag of the analysis commands
//! (each is run or refused with one line naming the flag, never a panic,
//! never a run without end).

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use proptest::prelude::*;

const XGID: &str = "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10";
const FIBS: &str = "board:You:Opp:5:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:1:3:1:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:0";

/// One line for the co-process: garbage, an XGID or FIBS board with one
/// field changed to anything, or a good position.
fn line() -> impl Strategy<Value = String> {
    let any_value = prop_oneof![
        Just(i64::MIN.to_string()),
        Just(i64::MAX.to_string()),
        Just("18446744073709551616".to_string()),
        Just("NaN".to_string()),
        Just(String::new()),
        (-300i64..300).prop_map(|v| v.to_string()),
    ];
    prop_oneof![
        "\\PC{0,60}",
        (0usize..10, any_value.clone()).prop_map(|(k, v)| field_changed(XGID, k, &v)),
        (3usize..53, any_value).prop_map(|(k, v)| field_changed(FIBS, k, &v)),
        Just(XGID.to_string()),
        Just(FIBS.to_string()),
        Just("isready".to_string()),
    ]
    .prop_filter("a line that ends the session", |l| {
        !matches!(l.trim(), "quit" | "ubgi")
    })
}

/// `text` with its `k`th ':'-separated field replaced by `value`.
fn field_changed(text: &str, k: usize, value: &str) -> String {
    let mut fields: Vec<&str> = text.split(':').collect();
    fields[k] = value;
    fields.join(":")
}

/// Runs the binary with `args` and `stdin`, killed after `limit`: (exit
/// code, stdout, stderr), or `None` when it ran past the limit.
fn run(args: &[&str], stdin: &str, limit: Duration) -> Option<(Option<i32>, String, String)> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_sheshbesh"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    input.write_all(stdin.as_bytes()).unwrap();
    drop(input);
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > limit {
            child.kill().unwrap();
            child.wait().unwrap();
            return None;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let out = child.wait_with_output().unwrap();
    Some((
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    ))
}

/// 24 cases a test, or `PROPTEST_CASES` (a longer campaign by hand).
fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(24);
    ProptestConfig {
        cases,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn ubgi_answers_every_line_exactly_once(lines in proptest::collection::vec(line(), 1..25)) {
        let input = format!("ubgi\n{}\n", lines.join("\n"));
        let (code, out, err) = run(&["ubgi", "--ply", "0"], &input, Duration::from_secs(60))
            .expect("ubgi answered within a minute");
        prop_assert_eq!(code, Some(0), "{}", err);
        prop_assert!(!err.contains("panicked"), "{}", err);
        // The handshake's four lines, then one per line sent.
        prop_assert_eq!(out.lines().count(), 4 + lines.len(), "{}\n{}", out, err);
    }
}

/// A value for a numeric flag that a hostile or careless user might give.
const HOSTILE: &[&str] = &[
    "NaN",
    "inf",
    "-inf",
    "-1",
    "0",
    "-0",
    "1e309",
    "4294967296",
    "18446744073709551616",
    "",
    " 1",
    "0x10",
    "1.5",
    "3",
    "\u{0663}",
];

#[test]
fn every_numeric_flag_runs_or_names_what_is_wrong() {
    let dir = std::env::temp_dir().join(format!("sheshbesh-generated-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mat = dir.join("m.mat");
    std::fs::write(
        &mat,
        "3 point match\n Game 1\n a : 0   b : 0\n  1) 31: 8/5 6/5   42: 8/4 6/4\n",
    )
    .unwrap();
    let mat = mat.to_str().unwrap().to_string();
    let met_out = dir.join("met.xml");
    let met_out = met_out.to_str().unwrap().to_string();
    // (arguments before the flag, the flag): every other argument is cheap.
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["hint", "start", "31"], "--ply"),
        (vec!["eval", "start"], "--ply"),
        (vec!["cube", XGID], "--ply"),
        (
            vec!["rollout", "start", "--trials", "36", "--truncate", "2"],
            "--threads",
        ),
        (
            vec!["rollout", "start", "--threads", "1", "--truncate", "2"],
            "--trials",
        ),
        (vec!["rollout", "start", "--trials", "36"], "--truncate"),
        (
            vec!["rollout", "start", "--trials", "36", "--truncate", "2"],
            "--target-se",
        ),
        (
            vec!["rollout", "start", "--trials", "36", "--truncate", "2"],
            "--seed",
        ),
        (
            vec![
                "rollout",
                "start",
                "31",
                "--trials",
                "36",
                "--truncate",
                "2",
            ],
            "--moves",
        ),
        (vec!["met", "--score", "2,4"], "--cube"),
        (vec!["met"], "--length"),
        (
            vec![
                "met",
                "--generate",
                "--rollout",
                "--out",
                &met_out,
                "--length",
                "1",
                "--trials",
                "36",
                "--truncate",
                "2",
                "--threads",
                "1",
            ],
            "--seed",
        ),
        (vec!["annotate", &mat, "--ply", "0"], "--doubtful"),
        (vec!["annotate", &mat], "--ply"),
        (vec!["ubgi"], "--ply"),
    ];
    let mut failures = Vec::new();
    for (before, flag) in &cases {
        for value in HOSTILE {
            let mut args = before.clone();
            args.extend([*flag, value]);
            let shown = format!("sheshbesh {}", args.join(" "));
            match run(&args, "", Duration::from_secs(60)) {
                None => failures.push(format!("{shown}: still running after 60 s")),
                Some((code, _, err)) => {
                    let refused_well = err.lines().count() >= 1
                        && (err.starts_with("sheshbesh") || err.starts_with("error:"));
                    match code {
                        Some(0) => {}
                        Some(1 | 2) if refused_well => {}
                        _ => failures.push(format!("{shown}: exit {code:?}: {err}")),
                    }
                    if err.contains("panicked") {
                        failures.push(format!("{shown}: {err}"));
                    }
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
