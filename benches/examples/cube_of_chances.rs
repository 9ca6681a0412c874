//! The 0-ply cube decision our cube model makes from given chances
//! instead of the net's: how much of a cube decision's error is the
//! chances' and how much the model's (`benches/cube_rollouts_ours.py`
//! feeds it a rollout's own chances).
//!
//! Reads lines `XGID win win-gammon win-backgammon lose-gammon
//! lose-backgammon` (the chances of the player on roll, as our JSON's
//! `probs`) and answers each with one JSON line: `action`, `no_double`,
//! `double_take`, `double_pass` (EMG at a match score, money equity per
//! unit of the cube otherwise), or `error`.
//!
//! Usage: cargo run --release -p sheshbesh-benches --example cube_of_chances < LINES

use std::io::{BufRead, Write};

use serde_json::{json, Value};
use sheshbesh_engine::cube::decision::cube_decision;
use sheshbesh_engine::evaluation::evaluator::Evaluator;
use sheshbesh_engine::evaluation::probs::Probs;
use sheshbesh_engine::formats::xgid;
use sheshbesh_engine::rules::position::Position;

/// An evaluator that gives every position the same chances: at 0 ply the
/// cube decision evaluates only the position itself.
struct Given(Probs);

impl Evaluator for Given {
    fn eval_batch(&self, _: &[Position], out: &mut [Probs]) {
        out.fill(self.0);
    }
}

fn answer(line: &str) -> Result<Value, String> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let [id, chances @ ..] = words.as_slice() else {
        return Err("an empty line".into());
    };
    let x = xgid::decode(id).map_err(|e| e.to_string())?;
    let p: Vec<f32> = chances
        .iter()
        .map(|w| w.parse::<f32>().map_err(|_| format!("bad chance {w:?}")))
        .collect::<Result<_, _>>()?;
    let [w, wg, wbg, lg, lbg] = p[..] else {
        return Err(format!(
            "expected 5 chances after the XGID, got {}",
            p.len()
        ));
    };
    let ok = |v: f32| (0.0..=1.0).contains(&v);
    if !(ok(w) && ok(wg) && ok(wbg) && ok(lg) && ok(lbg) && wbg <= wg && wg <= w)
        || !(lbg <= lg && lg <= 1.0 - w)
    {
        return Err(format!(
            "chances out of order or range: {w} {wg} {wbg} {lg} {lbg}"
        ));
    }
    let given = Given(Probs([w, wg, wbg, lg, lbg]));
    let (_, d) = cube_decision(&given, &x.position, &x.state, 0).map_err(|e| e.to_string())?;
    let redouble = x.state.cube.owner.is_some();
    let rounded = |v: f32| (f64::from(v) * 1e6).round() / 1e6;
    Ok(json!({
        "action": d.action.words(redouble),
        "no_double": rounded(d.no_double),
        "double_take": rounded(d.double_take),
        "double_pass": rounded(d.double_pass),
    }))
}

fn main() {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for (n, line) in std::io::stdin().lock().lines().enumerate() {
        let reply = match line {
            Ok(l) => answer(&l).unwrap_or_else(|e| json!({ "error": e })),
            Err(e) => json!({ "error": format!("line {}: {e}", n + 1) }),
        };
        writeln!(out, "{reply}").expect("stdout");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sheshbesh_benches::shipped_evaluator;

    /// Given the net's own chances, the answer is the net's 0-ply cube
    /// decision, in money and at a match score.
    #[test]
    fn the_nets_chances_give_the_nets_decision() {
        let ev = shipped_evaluator();
        for id in [
            "XGID=---BBBBaA-B--B---b-bBceb--:0:0:1:00:0:0:0:7:10",
            "XGID=---BBBBaA-B--B---b-bBceb--:0:0:1:00:0:0:0:0:10",
            "XGID=-b----E-C---eE---c-e----B-:1:1:1:00:2:4:0:7:10",
        ] {
            let x = xgid::decode(id).unwrap();
            let (p, d) = cube_decision(&ev, &x.position, &x.state, 0).unwrap();
            let line = format!("{id} {}", p.0.map(|v| v.to_string()).join(" "));
            let a = answer(&line).unwrap();
            assert_eq!(
                a["action"],
                d.action.words(x.state.cube.owner.is_some()),
                "{id}"
            );
            for (key, v) in [("no_double", d.no_double), ("double_take", d.double_take)] {
                let got = a[key].as_f64().unwrap();
                assert!(
                    (got - f64::from(v)).abs() < 2e-6,
                    "{id} {key}: {got} against {v}"
                );
            }
        }
    }

    #[test]
    fn bad_lines_are_named() {
        let id = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:2:4:0:7:10";
        for (line, says) in [
            ("", "empty"),
            ("XGID=nonsense 0.5 0.1 0 0.1 0", "XGID"),
            (&format!("{id} 0.5 0.1 0 0.1") as &str, "expected 5 chances"),
            (&format!("{id} 0.5 0.1 0 0.6 0"), "out of order"),
            (&format!("{id} 0.5 x 0 0.1 0"), "bad chance \"x\""),
        ] {
            let e = answer(line).unwrap_err();
            assert!(e.contains(says), "{line:?}: {e}");
        }
    }
}
