//! `sheshbesh play` driven like a person would: in a tmux session, by
//! send-keys, reading the screen. Plays a whole 3-point match against the
//! engine (with a wrong move, a hint, an undo), then checks the saved
//! `.mat` file with `annotate` and every roll with `verify`.

use std::process::Command;
use std::time::{Duration, Instant};

fn tmux(args: &[&str]) -> String {
    let out = Command::new("tmux").args(args).output().unwrap();
    String::from_utf8_lossy(&out.stdout).to_string()
}

fn require_tmux() {
    let ok = Command::new("tmux").arg("-V").output().is_ok();
    assert!(
        ok,
        "tmux is not installed: `bash .ci/deps` installs it (apt-get install tmux)"
    );
}

struct Pane {
    name: String,
}

impl Pane {
    fn screen(&self) -> String {
        tmux(&["capture-pane", "-p", "-t", &self.name])
    }

    fn last_line(&self) -> String {
        self.screen()
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("")
            .to_string()
    }

    /// Types `keys` and Enter, then waits for the screen to change.
    fn send(&self, keys: &str) {
        let before = self.screen();
        if keys.is_empty() {
            tmux(&["send-keys", "-t", &self.name, "Enter"]);
        } else {
            tmux(&["send-keys", "-t", &self.name, "-l", keys]);
            tmux(&["send-keys", "-t", &self.name, "Enter"]);
        }
        let t = Instant::now();
        while self.screen() == before && t.elapsed() < Duration::from_secs(10) {
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Pane {
    fn drop(&mut self) {
        tmux(&["kill-session", "-t", &self.name]);
    }
}

#[test]
fn a_whole_match_in_tmux() {
    require_tmux();
    let dir = std::env::temp_dir().join(format!("sheshbesh-play-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mat = dir.join("match.mat");
    let seed = "5eed".repeat(16);
    let bin = env!("CARGO_BIN_EXE_sheshbesh");
    let cmd = format!(
        "{bin} play --match 3 --level intermediate --names Bot,Tester --seed {seed} --save {}; echo PLAY-EXITED; sleep 60",
        mat.display()
    );
    let pane = Pane {
        name: format!("sheshbesh-test-{}", std::process::id()),
    };
    tmux(&[
        "new-session",
        "-d",
        "-s",
        &pane.name,
        "-x",
        "160",
        "-y",
        "60",
        &cmd,
    ]);
    let start = Instant::now();
    let (mut tried_wrong, mut undone, mut hinted) = (false, false, false);
    let mut saw = Vec::new();
    loop {
        assert!(
            start.elapsed() < Duration::from_secs(240),
            "the match did not end in time; screen:\n{}",
            pane.screen()
        );
        let screen = pane.screen();
        if screen.contains("PLAY-EXITED") {
            break;
        }
        let last = pane.last_line();
        if last.ends_with("roll or double >") {
            pane.send("roll");
        } else if last.ends_with(&"your move with".to_string())
            || last.contains("your move with") && last.ends_with('>')
        {
            if !tried_wrong {
                tried_wrong = true;
                pane.send("1/2");
                saw.push(pane.screen().contains("Not played"));
            } else if !hinted {
                hinted = true;
                pane.send("hint");
                saw.push(pane.screen().contains("=1 "));
            } else {
                pane.send("=1");
            }
        } else if last.ends_with("to take it back >") {
            if !undone {
                undone = true;
                pane.send("undo");
                saw.push(pane.screen().contains("Taken back."));
            } else {
                pane.send("");
            }
        } else if last.ends_with("take or drop >") {
            pane.send("take");
        } else if last.contains("accept or reject") && last.ends_with('>') {
            pane.send("accept");
        } else {
            std::thread::sleep(Duration::from_millis(30));
        }
    }
    assert_eq!(
        saw,
        vec![true, true, true],
        "wrong move refused, hint shown, undo"
    );
    let screen = pane.screen();
    assert!(screen.contains(" the match."), "{screen}");
    // The saved match reads back, the winner has 3 points, and its rolls
    // verify against the seed the session revealed.
    let text = std::fs::read_to_string(&mat).unwrap();
    let file = sheshbesh_engine::formats::matfile::parse(&text).unwrap();
    assert_eq!(file.length, 3);
    for g in &file.games {
        sheshbesh_engine::formats::matfile::replay(g).unwrap();
    }
    let commitment = file.tag("DiceCommitment").unwrap().to_string();
    let out = Command::new(bin)
        .args(["verify", &seed, &commitment, mat.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let out = Command::new(bin)
        .args(["annotate", mat.to_str().unwrap(), "--ply", "0", "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let s = v.to_string();
    assert!(s.contains("Tester") && s.contains("Bot"));
    // A tampered roll fails verification with status 1.
    let tampered = dir.join("tampered.mat");
    let lines: Vec<String> = text.lines().map(String::from).collect();
    let i = lines
        .iter()
        .rposition(|l| l.trim_start().starts_with(|c: char| c.is_ascii_digit()) && l.contains(": "))
        .unwrap();
    let mut changed = lines.clone();
    // Rewrite the first roll on that line to another roll with the same
    // play impossible to keep: the check is on the dice alone.
    let line = &lines[i];
    let pos = line.find(": ").unwrap();
    let roll = &line[pos - 2..pos];
    let other = if roll == "66" { "11" } else { "66" };
    changed[i] = format!("{}{other}{}", &line[..pos - 2], &line[pos..]);
    std::fs::write(&tampered, changed.join("\n")).unwrap();
    let out = Command::new(bin)
        .args(["verify", &seed, &commitment, tampered.to_str().unwrap()])
        .output()
        .unwrap();
    let code = out.status.code();
    let msg =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(code == Some(1) || code == Some(2), "{msg}");
    let _ = std::fs::remove_dir_all(&dir);
}
