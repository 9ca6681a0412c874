//! What every rendering of an annotation shows alike: the players'
//! names, the words of decision kinds and wins, and the per-player
//! figures.

use sheshbesh_engine::analysis::annotate::{self, Annotation, Kind};
use sheshbesh_engine::rules::scoring::WinKind;

/// A player's name, or "player N" when the file gives none.
pub fn name_of(ann: &Annotation, p: usize) -> String {
    let n = &ann.players[p].name;
    if n.is_empty() {
        format!("player {p}")
    } else {
        n.clone()
    }
}

/// A decision kind's word in JSON and anchors.
pub fn kind_word(k: Kind) -> &'static str {
    match k {
        Kind::Checker => "checker",
        Kind::Cube => "cube",
    }
}

/// A win's word in JSON and the HTML report.
pub fn kind_of_win(k: WinKind) -> &'static str {
    match k {
        WinKind::Single => "single",
        WinKind::Gammon => "gammon",
        WinKind::Backgammon => "backgammon",
    }
}

/// The per-player figures: label, first player, second player.
pub fn rows(ann: &Annotation) -> Vec<(&'static str, String, String)> {
    let (a, b) = (&ann.players[0], &ann.players[1]);
    let both = |f: &dyn Fn(&annotate::PlayerStats) -> String| (f(a), f(b));
    let mut out = Vec::new();
    let mut add = |label, (x, y)| out.push((label, x, y));
    add(
        "Unforced checker plays",
        both(&|p| p.checker_decisions.to_string()),
    );
    add(
        "Checker error rate (mEMG)",
        both(&|p| format!("{:.1}", p.checker_error_rate())),
    );
    add("Cube decisions", both(&|p| p.cube_decisions.to_string()));
    add(
        "Cube error rate (mEMG)",
        both(&|p| format!("{:.1}", p.cube_error_rate())),
    );
    add(
        "Error rate (mEMG/decision)",
        both(&|p| format!("{:.1}", p.error_rate())),
    );
    add("PR", both(&|p| format!("{:.1}", p.pr())));
    add(
        "Doubtful / bad / very bad",
        both(&|p| format!("{} / {} / {}", p.marks[0], p.marks[1], p.marks[2])),
    );
    add("Luck (EMG)", both(&|p| format!("{:+.3}", p.luck)));
    add("Points won", both(&|p| p.points.to_string()));
    add(
        "Luck-adjusted result (points)",
        (
            format!("{:+.2}", a.luck_adjusted(b)),
            format!("{:+.2}", b.luck_adjusted(a)),
        ),
    );
    add("Rating", both(&|p| p.rating().to_string()));
    out
}

/// A real match annotated once for the renderers' tests.
#[cfg(test)]
pub mod sample {
    use std::path::PathBuf;
    use std::sync::OnceLock;

    use sheshbesh_engine::analysis::annotate::{self, Annotation, Settings, Thresholds};
    use sheshbesh_engine::cube::decision::PlayEquity;
    use sheshbesh_engine::formats::match_files;

    /// A 2-point match of 1 game with checker plays, doubles and an
    /// answer, annotated at 0-ply by the shipped net: its path, the
    /// annotation and the settings.
    pub fn annotated() -> &'static (PathBuf, Annotation, Settings) {
        static SAMPLE: OnceLock<(PathBuf, Annotation, Settings)> = OnceLock::new();
        SAMPLE.get_or_init(|| {
            let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("../data/matches/02_galaxy_2pt_match8062348.mat");
            let m = match_files::load(&path).expect("the sample match reads");
            let ev = crate::nets::load(None).expect("the shipped weights load");
            let settings = Settings {
                ply: 0,
                thresholds: Thresholds::default(),
                checker: PlayEquity::Cubeful,
            };
            let ann = annotate::annotate(&m, &ev, &settings).expect("the sample annotates");
            (path, ann, settings)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_figure_has_a_value_for_each_player() {
        let (_, ann, _) = sample::annotated();
        let all = rows(ann);
        assert_eq!(all.len(), 11);
        for (label, a, b) in all {
            assert!(!a.is_empty() && !b.is_empty(), "{label}");
        }
        assert_ne!(name_of(ann, 0), name_of(ann, 1));
    }
}
