//! The text report of one annotated file: every analysed decision (marked
//! ones with the best play and the loss), the games' results and the
//! per-player figures.

use std::fmt::Write as _;
use std::path::Path;

use sheshbesh_engine::analysis::annotate::{Annotation, Mark, Settings};

use super::figures::{name_of, rows};
use crate::lang::Lang;

/// The match as text: every analysed decision, marked ones commented.
pub fn text(path: &Path, ann: &Annotation, settings: &Settings, lang: Lang) -> String {
    let (ply, checker) = (settings.ply, settings.checker.word());
    let mut s = String::new();
    let kind = if ann.length == 0 {
        "money session".to_string()
    } else {
        format!("{}-point match", ann.length)
    };
    let _ = writeln!(
        s,
        "{}: {kind}, {} vs {}, {} games, analysed at {ply}-ply, {checker} checker play",
        path.display(),
        name_of(ann, 0),
        name_of(ann, 1),
        ann.games
    );
    let width = (0..2).map(|p| name_of(ann, p).len()).max().unwrap_or(8);
    let mut game = None;
    for d in &ann.decisions {
        if game != Some(d.game) {
            game = Some(d.game);
            let sc = d.state.score;
            let _ = writeln!(
                s,
                "\nGame {} ({} {}, {} {})",
                d.game,
                name_of(ann, 0),
                sc[0],
                name_of(ann, 1),
                sc[1]
            );
        }
        let dice = d.dice.map(|x| x.to_string()).unwrap_or_default();
        let mut line = format!(
            "{:>4} {:<width$} {:>2}  {} {}",
            d.move_number,
            name_of(ann, d.player),
            dice,
            d.played,
            d.mark.sign()
        );
        if d.mark != Mark::None {
            let _ = write!(line, "   best: {} (-{:.3})", d.best, d.equity_loss);
        }
        s.push_str(line.trim_end());
        s.push('\n');
    }
    s.push('\n');
    for r in &ann.results {
        let how = if r.dropped {
            ", double dropped"
        } else if r.resigned {
            ", resigned"
        } else {
            ""
        };
        let _ = writeln!(
            s,
            "Game {}: {} wins {} point{}: {}{how}",
            r.game,
            name_of(ann, r.winner),
            r.points,
            if r.points == 1 { "" } else { "s" },
            lang.win(r.kind)
        );
    }
    s.push('\n');
    s.push_str(&summary(ann));
    s
}

/// The per-player table as text.
fn summary(ann: &Annotation) -> String {
    let mut s = String::new();
    let (n0, n1) = (name_of(ann, 0), name_of(ann, 1));
    let all = rows(ann);
    let w1 = all
        .iter()
        .map(|r| r.1.len())
        .max()
        .unwrap_or(0)
        .max(n0.len());
    let _ = writeln!(s, "{:<28}{n0:>w1$}   {n1}", "");
    for (label, x, y) in all {
        let _ = writeln!(s, "{label:<28}{x:>w1$}   {y}");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::super::figures::sample;
    use super::*;

    #[test]
    fn the_report_lists_every_decision_comments_the_marked_and_ends_with_figures() {
        let (path, ann, settings) = sample::annotated();
        let t = text(path, ann, settings, Lang::En);
        let first = t.lines().next().unwrap();
        assert!(first.starts_with(&path.display().to_string()), "{first}");
        assert!(
            first.contains(&format!(
                "2-point match, {} vs {}, 1 games, analysed at 0-ply, cubeful checker play",
                name_of(ann, 0),
                name_of(ann, 1)
            )),
            "{first}"
        );
        let marked = ann
            .decisions
            .iter()
            .filter(|d| d.mark != Mark::None)
            .count();
        assert!(marked > 0);
        assert_eq!(t.matches("   best: ").count(), marked);
        assert_eq!(t.matches("\nGame 1 (").count(), 1);
        let r = &ann.results[0];
        assert!(t.contains(&format!(
            "Game 1: {} wins {} point",
            name_of(ann, r.winner),
            r.points
        )));
        for (label, _, _) in rows(ann) {
            assert!(t.contains(label), "{label}");
        }
    }
}
