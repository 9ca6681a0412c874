//! `annotate --json`: a file's annotation, or its error, as one JSON
//! document.

use std::path::Path;

use serde_json::{json, Value};
use sheshbesh_engine::analysis::annotate::{Annotation, Settings};
use sheshbesh_engine::cube::decision::mwc_of_emg;
use sheshbesh_engine::{formats::match_id, formats::position_id, Player};

use super::figures::{kind_of_win, kind_word};
use crate::output::rounded;

/// One decision of `annotate --json`, fields in the order of the file's
/// other objects (alphabetical, as JSON maps print).
#[derive(serde::Serialize)]
struct DecisionJson<'a> {
    best: &'a str,
    dice: Option<String>,
    equity: f64,
    equity_loss: f64,
    game: u32,
    kind: &'static str,
    line: usize,
    luck: Option<f64>,
    mark: &'static str,
    match_id: String,
    #[serde(rename = "move")]
    move_number: u32,
    mwc: Option<f64>,
    played: &'a str,
    player: &'a str,
    position_id: String,
}

/// A file's `annotate --json` document.
#[derive(serde::Serialize)]
struct FileJson<'a> {
    decisions: Vec<DecisionJson<'a>>,
    file: String,
    games: usize,
    length: u32,
    players: Vec<Value>,
    ply: u32,
    /// What checker plays were valued by: "cubeful" or "cubeless".
    checker_equity: &'static str,
    results: Vec<Value>,
}

/// A file's `annotate --json` document as text. The decisions, by far its
/// largest part, are written from typed records rather than built as a
/// JSON tree, which for a long match costs many times the text's size.
pub fn json_text(
    path: &Path,
    result: &std::result::Result<Annotation, String>,
    settings: &Settings,
) -> String {
    let file = path.display().to_string();
    let ann = match result {
        Ok(a) => a,
        Err(e) => return json!({"file": file, "error": e}).to_string(),
    };
    let players: Vec<Value> = ann
        .players
        .iter()
        .enumerate()
        .map(|(i, p)| {
            json!({
                "name": p.name,
                "error_rate": rounded(p.error_rate(), 1),
                "checker_error_rate": rounded(p.checker_error_rate(), 1),
                "cube_error_rate": rounded(p.cube_error_rate(), 1),
                "pr": rounded(p.pr(), 1),
                "marks": {"doubtful": p.marks[0], "bad": p.marks[1], "very bad": p.marks[2]},
                "luck": rounded(p.luck, 3),
                "luck_adjusted": rounded(p.luck_adjusted(&ann.players[1 - i]), 3),
                "rating": p.rating(),
                "points": p.points,
                "checker_decisions": p.checker_decisions,
                "cube_decisions": p.cube_decisions,
            })
        })
        .collect();
    let decisions: Vec<DecisionJson> = ann
        .decisions
        .iter()
        .map(|d| DecisionJson {
            game: d.game,
            move_number: d.move_number,
            player: &ann.players[d.player].name,
            kind: kind_word(d.kind),
            position_id: position_id::encode(&d.position),
            match_id: match_id::encode(&d.state),
            dice: d.dice.map(|x| x.to_string()),
            played: &d.played,
            best: &d.best,
            equity: rounded(d.equity, 3),
            equity_loss: rounded(d.equity_loss, 3),
            mwc: (!d.state.is_money())
                .then(|| mwc_of_emg(d.equity, &d.state, Player::from_bit(d.player as u32)).ok())
                .flatten()
                .map(|x| rounded(x, 3)),
            mark: d.mark.word(),
            luck: d.luck.map(|x| rounded(x, 3)),
            line: d.line,
        })
        .collect();
    let results: Vec<Value> = ann
        .results
        .iter()
        .map(|r| {
            json!({
                "game": r.game,
                "winner": ann.players[r.winner].name,
                "points": r.points,
                "kind": kind_of_win(r.kind),
                "dropped": r.dropped,
                "resigned": r.resigned,
            })
        })
        .collect();
    serde_json::to_string(&FileJson {
        decisions,
        file,
        games: ann.games,
        length: ann.length,
        players,
        ply: settings.ply,
        checker_equity: settings.checker.word(),
        results,
    })
    .expect("annotation serializes")
}

#[cfg(test)]
mod tests {
    use super::super::figures::sample;
    use super::*;

    #[test]
    fn a_file_is_one_document_with_every_decision_and_an_error_is_an_object() {
        let (path, ann, settings) = sample::annotated();
        let doc: Value =
            serde_json::from_str(&json_text(path, &Ok(ann.clone()), settings)).unwrap();
        assert_eq!(doc["length"], 2);
        assert_eq!(doc["ply"], 0);
        assert_eq!(doc["checker_equity"], "cubeful");
        assert_eq!(doc["players"].as_array().unwrap().len(), 2);
        let decisions = doc["decisions"].as_array().unwrap();
        assert_eq!(decisions.len(), ann.decisions.len());
        for (d, j) in ann.decisions.iter().zip(decisions) {
            assert_eq!(j["kind"], kind_word(d.kind));
            assert_eq!(j["mark"], d.mark.word());
            assert_eq!(j["position_id"], position_id::encode(&d.position));
            let mwc = j["mwc"].as_f64().expect("a match decision has its MWC");
            assert!((0.0..=1.0).contains(&mwc), "{j}");
        }
        let results = doc["results"].as_array().unwrap();
        assert_eq!(results.len(), ann.results.len());

        let failed = json_text(path, &Err("line 3: no".into()), settings);
        let doc: Value = serde_json::from_str(&failed).unwrap();
        assert_eq!(doc["error"], "line 3: no");
        assert_eq!(doc["file"], path.display().to_string());
    }
}
