//! pubeval: Tesauro's public linear move ranker, the classic baseline
//! opponent. Weights are the published ones (`data/pubeval/`); the encoding
//! follows its description there. It ranks plays, it does not estimate
//! probabilities.

use std::sync::OnceLock;

use crate::rules::movegen::Candidate;
use crate::rules::position::Position;

struct Weights {
    contact: [f32; 122],
    race: [f32; 122],
}

fn weights() -> &'static Weights {
    static W: OnceLock<Weights> = OnceLock::new();
    W.get_or_init(|| {
        let v: serde_json::Value =
            serde_json::from_str(include_str!("../../../data/pubeval/pubeval_weights.json"))
                .expect("shipped pubeval weights are valid JSON");
        let read = |k: &str| -> [f32; 122] {
            let a = v[k].as_array().expect("weights array");
            let mut w = [0f32; 122];
            for (i, x) in a.iter().enumerate() {
                w[i] = x.as_f64().expect("number") as f32;
            }
            w
        };
        Weights {
            contact: read("contact_wc"),
            race: read("race_wr"),
        }
    })
}

/// pubeval's score of the board `after` a play, seen from the mover
/// (`after.me`); `race` picks the race weights (decided on the board
/// before the play).
pub fn score(after: &Position, race: bool) -> f32 {
    if after.me.off() == 15 {
        return 99_999_999.0;
    }
    let w = if race {
        &weights().race
    } else {
        &weights().contact
    };
    let mut s = 0f32;
    for j in 1..=24usize {
        // Point j counted from the mover's far end: the mover's point 25-j.
        let p = 25 - j;
        let mine = i32::from(after.me.at(p));
        let n = if mine > 0 {
            mine
        } else {
            -i32::from(after.opp.at(25 - p))
        };
        let k = 5 * (j - 1);
        match n {
            -1 => s += w[k],
            1 => s += w[k + 1],
            n if n >= 2 => {
                s += w[k + 2];
                if n == 3 {
                    s += w[k + 3];
                } else if n >= 4 {
                    s += w[k + 4] * (n - 3) as f32 / 2.0;
                }
            }
            _ => {}
        }
    }
    s += w[120] * f32::from(after.opp.bar()) / 2.0;
    s += w[121] * f32::from(after.me.off()) / 15.0;
    s
}

/// The index of pubeval's choice among `candidates` (legal plays from
/// `before`); the first of equal scores.
pub fn choose(before: &Position, candidates: &[Candidate]) -> usize {
    let race = !before.is_contact();
    let mut best = 0;
    let mut best_score = f32::NEG_INFINITY;
    for (i, c) in candidates.iter().enumerate() {
        let s = score(&c.position, race);
        if s > best_score {
            best = i;
            best_score = s;
        }
    }
    best
}
