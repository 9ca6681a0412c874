//! Every Match ID annotation writes reads back as the same match state,
//! one the readers accept:
//! each decision of every committed real match file, and the 1-point
//! match and `[Crawford "Off"]` cases where a Crawford flag was once set
//! at scores that have no Crawford game.

use sheshbesh_engine::analysis::annotate::{annotate, Settings};
use sheshbesh_engine::evaluation::evaluator::Evaluator;
use sheshbesh_engine::formats::{match_id, matfile, sgf};
use sheshbesh_engine::{MatchState, Position, Probs};

/// A cheap evaluator: the pip count decides, no gammons. The IDs do not
/// depend on how well the plays are judged.
struct Pips;

impl Evaluator for Pips {
    fn eval_batch(&self, positions: &[Position], out: &mut [Probs]) {
        for (p, o) in positions.iter().zip(out) {
            let (me, opp) = p.pips();
            let lead = opp as f32 - me as f32;
            *o = Probs([1.0 / (1.0 + (-lead / 12.0).exp()), 0.0, 0.0, 0.0, 0.0]);
        }
    }
}

fn settings() -> Settings {
    Settings {
        ply: 0,
        ..Settings::default()
    }
}

/// The match states of every decision of the file, each checked.
fn ids_read_back(name: &str, text: &str) -> Vec<MatchState> {
    let m = if name.ends_with(".sgf") {
        sgf::parse(text)
    } else {
        matfile::parse(text)
    }
    .unwrap_or_else(|e| panic!("{name}: line {}: {}", e.line, e.reason));
    let a = annotate(&m, &Pips, &settings()).unwrap_or_else(|e| panic!("{name}: {e}"));
    for d in &a.decisions {
        let id = match_id::encode(&d.state);
        // What every reader of a Match ID refuses.
        if let Some(why) = d.state.impossibility() {
            panic!("{name} game {} move {}: {id}: {why}", d.game, d.move_number);
        }
        let mut back = match_id::decode(&id)
            .unwrap_or_else(|e| panic!("{name} game {} move {}: {id}: {e}", d.game, d.move_number));
        // A Match ID has no beaver bit, and its dice are in either order.
        back.beavers = d.state.beavers;
        let sorted = |d: Option<sheshbesh_engine::Dice>| d.map(|d| d.high_first());
        assert_eq!(sorted(back.dice), sorted(d.state.dice), "{name}: {id}");
        back.dice = d.state.dice;
        assert_eq!(back, d.state, "{name} game {}: {id}", d.game);
    }
    a.decisions.iter().map(|d| d.state).collect()
}

#[test]
fn every_match_id_of_the_committed_matches_reads_back() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../data/matches");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "mat" || x == "sgf"))
        .collect();
    files.sort();
    assert!(files.len() >= 20, "{files:?}");
    let mut ids = 0;
    for f in &files {
        let text = String::from_utf8_lossy(&std::fs::read(f).unwrap()).into_owned();
        ids += ids_read_back(&f.display().to_string(), &text).len();
    }
    assert!(ids > 2000, "{ids} decisions");
}

#[test]
fn no_crawford_game_at_one_away_one_away_or_with_the_rule_off() {
    let one_point = "1 point match\n\n Game 1\n a : 0                       b : 0\n  1) 31: 8/5 6/5                 52: 13/11 13/8\n  2) 43: 24/20 13/10\n      Wins 1 point\n";
    assert!(!ids_read_back("one.mat", one_point).is_empty());
    let off = "; [Crawford \"Off\"]\n\n3 point match\n\n Game 1\n a : 2                       b : 0\n  1) 31: 8/5 6/5                 52: 13/11 13/8\n  2) 43: 24/20 13/10\n      Wins 1 point\n";
    let states = ids_read_back("off.mat", off);
    assert!(!states.is_empty() && states.iter().all(|s| !s.crawford));
}
