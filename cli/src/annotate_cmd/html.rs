//! `annotate --html`: a self-contained report page (no network access
//! needed) with the per-player figures, the results, a graph of the match,
//! every decision, and a board diagram of each marked one.

use std::fmt::Write as _;
use std::path::Path;

use sheshbesh_engine::analysis::annotate::{Annotation, Decision, Kind, Mark, Settings};
use sheshbesh_engine::cube::decision::mwc_of_emg;
use sheshbesh_engine::{formats::match_id, formats::position_id, Move, Player};

use super::figures::{kind_of_win, kind_word, name_of, rows};
use crate::svg::{self, CubePlace, Diagram};

/// Each player's colour in the graph and the tables' keys: the first
/// player's, then the second's.
const COLOURS: [&str; 2] = ["#1f6fb2", "#d35400"];

/// Whether a decision is one a reader looks for: every checker play, and
/// a cube decision that was acted on or cost something (a right "No
/// double" in a close spot is shown only on request).
fn shown(d: &Decision) -> bool {
    d.kind == Kind::Checker
        || d.played != "No double"
        || d.equity_loss > 0.0
        || d.mark != Mark::None
}

/// The match's name: its players and length.
fn match_name(ann: &Annotation) -> String {
    let kind = if ann.length == 0 {
        "money session".to_string()
    } else {
        format!("{}-point match", ann.length)
    };
    format!("{} vs {}, {kind}", name_of(ann, 0), name_of(ann, 1))
}

/// `s` escaped for HTML text and attributes.
fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The move of a decision's alternative named `play`, if it is listed.
fn alt_move(d: &Decision, play: &str) -> Option<Move> {
    let after = d.alternatives.iter().find(|a| a.play == play)?.after;
    let dice = d.dice?;
    sheshbesh_engine::rules::movegen::legal_moves(&d.position, dice)
        .into_iter()
        .find(|c| c.position == after)
        .map(|c| c.mv)
}

/// The id a decision's diagram is found by.
fn anchor(d: &Decision) -> String {
    format!(
        "g{}m{}p{}{}",
        d.game,
        d.move_number,
        d.player,
        kind_word(d.kind)
    )
}

/// Where the graph's point of a decision leads: its diagram when it is
/// marked (only marked decisions have one), else its row in the table.
fn link(d: &Decision) -> String {
    if d.mark == Mark::None {
        format!("r{}", anchor(d))
    } else {
        anchor(d)
    }
}

/// What a diagram shows besides the board: who is on roll and who is not,
/// the dice, cube, score and pips.
fn caption(ann: &Annotation, d: &Decision) -> String {
    let mover = name_of(ann, d.player);
    let other = name_of(ann, 1 - d.player);
    let (pm, po) = d.decider_board().pips();
    let cube = match d.state.cube.owner {
        None => format!("cube {} centred", d.state.cube.value()),
        Some(p) => format!(
            "cube {} owned by {}",
            d.state.cube.value(),
            name_of(ann, p.index())
        ),
    };
    let score = if ann.length == 0 {
        "money".to_string()
    } else {
        format!(
            "score {} {} - {} {} of {}",
            name_of(ann, 0),
            d.state.score[0],
            d.state.score[1],
            name_of(ann, 1),
            ann.length
        )
    };
    let dice = d.dice.map(|x| format!("rolled {x}; ")).unwrap_or_default();
    let facing = if d.is_answer() {
        "to answer the double of"
    } else {
        "to play against"
    };
    format!(
        "{mover} (bottom, pips {pm}) {facing} {other} (top, pips {po}); {dice}{cube}; {score}; played {}, best {}",
        d.played, d.best
    )
}

/// Every game: the score before it (and whether it is the Crawford
/// game), its result, and each player's figures in it.
fn results_html(s: &mut String, ann: &Annotation) {
    let names = [esc(&name_of(ann, 0)), esc(&name_of(ann, 1))];
    let _ = writeln!(
        s,
        "<h2>Games</h2>\n<table id=\"games\"><tr><th>game</th><th>score before ({0} - {1})</th><th>winner</th><th>points</th><th>how</th><th>{0}: mEMG/decision</th><th>{0}: marked</th><th>{1}: mEMG/decision</th><th>{1}: marked</th></tr>",
        names[0], names[1]
    );
    let mut games: Vec<u32> = ann.decisions.iter().map(|d| d.game).collect();
    games.extend(ann.results.iter().map(|r| r.game));
    games.sort_unstable();
    games.dedup();
    for g in games {
        let of_game: Vec<&Decision> = ann.decisions.iter().filter(|d| d.game == g).collect();
        let score = of_game.first().map_or(String::new(), |d| {
            let st = &d.state;
            let crawford = if st.crawford { " (Crawford)" } else { "" };
            if ann.length == 0 {
                String::new()
            } else {
                format!("{} - {}{crawford}", st.score[0], st.score[1])
            }
        });
        let (winner, points, how) = match ann.results.iter().find(|r| r.game == g) {
            Some(r) => (
                names[r.winner].clone(),
                r.points.to_string(),
                format!(
                    "{}{}{}",
                    kind_of_win(r.kind),
                    if r.dropped { ", double dropped" } else { "" },
                    if r.resigned { ", resigned" } else { "" }
                ),
            ),
            None => (String::new(), String::new(), "unfinished".to_string()),
        };
        let figures = |p: usize| {
            let mine: Vec<&&Decision> = of_game.iter().filter(|d| d.player == p).collect();
            let loss: f32 = mine.iter().map(|d| d.equity_loss).sum();
            let marked = mine.iter().filter(|d| d.mark != Mark::None).count();
            let rate = if mine.is_empty() {
                "-".to_string()
            } else {
                format!("{:.1}", 1000.0 * loss / mine.len() as f32)
            };
            format!("<td>{rate}</td><td>{marked}</td>")
        };
        let _ = writeln!(
            s,
            "<tr><td>{g}</td><td>{score}</td><td>{winner}</td><td>{points}</td><td>{how}</td>{}{}</tr>",
            figures(0),
            figures(1)
        );
    }
    s.push_str("</table>\n");
}

/// The first player's match-winning chance (equity in money play) before
/// each decision, as a line across the match: games separated, a dot for
/// each decision shown in the decider's colour (its tooltip names it; it
/// links to its diagram or row), very bad decisions ringed red and big
/// luck (a quarter point or more) ringed violet. It scales to the page's
/// width.
fn graph_html(s: &mut String, ann: &Annotation) {
    let money = ann.length == 0;
    let points: Vec<(f32, &Decision)> = ann
        .decisions
        .iter()
        .map(|d| {
            let mine = if money {
                d.equity
            } else {
                mwc_of_emg(d.equity, &d.state, Player::from_bit(d.player as u32)).unwrap_or(0.5)
            };
            let first = match (d.player, money) {
                (0, _) => mine,
                (_, true) => -mine,
                (_, false) => 1.0 - mine,
            };
            (first, d)
        })
        .collect();
    if points.len() < 2 {
        return;
    }
    let (w, h, pad) = (900.0f32, 260.0f32, 34.0f32);
    let (lo, hi) = if money { (-2.0f32, 2.0f32) } else { (0.0, 1.0) };
    let x = |i: usize| pad + (w - 2.0 * pad) * i as f32 / (points.len() - 1) as f32;
    let y = |v: f32| h - pad - (h - 2.0 * pad) * ((v.clamp(lo, hi) - lo) / (hi - lo));
    let what = if money {
        "equity"
    } else {
        "match-winning chance"
    };
    let names = [esc(&name_of(ann, 0)), esc(&name_of(ann, 1))];
    let _ = writeln!(
        s,
        "<h2>The match</h2>\n<p class=\"key\">{}'s {what} before each decision. Dots: decisions of<span style=\"background:{}\"></span>{}<span style=\"background:{}\"></span>{}; ringed red: very bad, violet: big luck. Hover a dot for the decision, click it to go there.</p>",
        names[0], COLOURS[0], names[0], COLOURS[1], names[1]
    );
    let _ = write!(
        s,
        "<svg id=\"graph\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {w} {h}\" style=\"width:100%;max-width:1400px;height:auto\" role=\"img\"><rect width=\"{w}\" height=\"{h}\" fill=\"#fafafa\" stroke=\"#ccc\"/>"
    );
    let mid = y((lo + hi) / 2.0);
    let (top_label, mid_label, bottom_label) = if money {
        ("+2", "0", "-2")
    } else {
        ("100%", "50%", "0%")
    };
    let _ = write!(
        s,
        "<line x1=\"{pad}\" y1=\"{mid:.1}\" x2=\"{:.1}\" y2=\"{mid:.1}\" stroke=\"#999\" stroke-dasharray=\"4 3\"/><text x=\"4\" y=\"{:.1}\" font-size=\"10\">{mid_label}</text>",
        w - pad,
        mid + 3.0
    );
    // Game lines, each labelled where the label has room.
    let mut last_label = f32::NEG_INFINITY;
    for (i, pair) in points.windows(2).enumerate() {
        if pair[0].1.game != pair[1].1.game {
            let gx = (x(i) + x(i + 1)) / 2.0;
            let _ = write!(
                s,
                "<line x1=\"{gx:.1}\" y1=\"{pad}\" x2=\"{gx:.1}\" y2=\"{:.1}\" stroke=\"#ddd\"/>",
                h - pad
            );
            let label = format!("game {}", pair[1].1.game);
            let width = 5.5 * label.len() as f32;
            if gx - last_label > width + 4.0 && gx + width < w {
                let _ = write!(
                    s,
                    "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"10\" fill=\"#777\">{label}</text>",
                    gx + 2.0,
                    pad - 8.0
                );
                last_label = gx;
            }
        }
    }
    let line: Vec<String> = points
        .iter()
        .enumerate()
        .map(|(i, (v, _))| format!("{:.1},{:.1}", x(i), y(*v)))
        .collect();
    let _ = write!(
        s,
        "<polyline fill=\"none\" stroke=\"#2c3e50\" stroke-width=\"1.2\" points=\"{}\"/>",
        line.join(" ")
    );
    for (i, (v, d)) in points.iter().enumerate() {
        if !shown(d) {
            continue;
        }
        let ring = if d.mark == Mark::VeryBad {
            " stroke=\"#c0392b\" stroke-width=\"2.5\""
        } else if d.luck.is_some_and(|l| l.abs() >= 0.25) {
            " stroke=\"#8e44ad\" stroke-width=\"2.5\""
        } else {
            ""
        };
        let r = if ring.is_empty() { 2.6 } else { 4.5 };
        let dice = d.dice.map(|x| format!(" {x}")).unwrap_or_default();
        let tip = format!(
            "Game {}, move {}: {}{dice} {} (loss {:.3}){}",
            d.game,
            d.move_number,
            name_of(ann, d.player),
            d.played,
            d.equity_loss,
            if d.mark == Mark::None {
                String::new()
            } else {
                format!(", {}", d.mark.word())
            }
        );
        let _ = write!(
            s,
            "<a href=\"#{}\"><circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"{r}\" fill=\"{}\"{ring}><title>{}</title></circle></a>",
            link(d),
            x(i),
            y(*v),
            COLOURS[d.player],
            esc(&tip)
        );
    }
    let _ = writeln!(
        s,
        "<text x=\"4\" y=\"{:.1}\" font-size=\"10\">{top_label}</text><text x=\"4\" y=\"{:.1}\" font-size=\"10\">{bottom_label}</text></svg>",
        pad + 4.0,
        h - pad
    );
}

/// Every decision of every game: played, best, loss, mark, luck; marked
/// ones link to their diagram. Right "No double"s in close spots are
/// hidden until the reader asks for every decision (a checkbox, no
/// script).
fn decisions_html(s: &mut String, ann: &Annotation) {
    let hidden = ann.decisions.iter().filter(|d| !shown(d)).count();
    let _ = writeln!(
        s,
        "<h2>Decisions</h2>\n<input type=\"checkbox\" id=\"every\"><label for=\"every\"> show every decision ({hidden} right \"No double\"s in close spots hidden)</label>"
    );
    let mut game = None;
    for d in &ann.decisions {
        if game != Some(d.game) {
            if game.is_some() {
                s.push_str("</table>\n");
            }
            game = Some(d.game);
            let result = ann
                .results
                .iter()
                .find(|r| r.game == d.game)
                .map(|r| format!(": {} wins {}", name_of(ann, r.winner), r.points))
                .unwrap_or_default();
            let _ = writeln!(
                s,
                "<h3>Game {}{}</h3>\n<table><tr><th>move</th><th>player</th><th>dice</th><th>played</th><th>best</th><th>loss</th><th>mark</th><th>luck</th></tr>",
                d.game,
                esc(&result)
            );
        }
        let played = if d.mark == Mark::None {
            esc(&d.played)
        } else {
            format!("<a href=\"#{}\">{}</a>", anchor(d), esc(&d.played))
        };
        let _ = writeln!(
            s,
            "<tr id=\"r{}\"{}><td>{}</td><td>{}</td><td>{}</td><td>{played}</td><td>{}</td><td>{:.3}</td><td>{}</td><td>{}</td></tr>",
            anchor(d),
            if shown(d) { "" } else { " class=\"minor\"" },
            d.move_number,
            esc(&name_of(ann, d.player)),
            d.dice.map(|x| x.to_string()).unwrap_or_default(),
            esc(&d.best),
            d.equity_loss,
            if d.mark == Mark::None { "" } else { d.mark.word() },
            d.luck.map(|l| format!("{l:+.3}")).unwrap_or_default()
        );
    }
    if game.is_some() {
        s.push_str("</table>\n");
    }
}

/// The cube of a diagram, drawn in its owner's place (bottom: the player
/// the board is seen from): an offered cube on the doubler's side, none
/// in the Crawford game.
fn cube_of(d: &Decision) -> Option<(u32, CubePlace)> {
    let st = &d.state;
    if st.crawford {
        return None;
    }
    let value = st.cube.value() as u32;
    if d.is_answer() {
        // Seen from the taker, the doubler is on top.
        return Some((2 * value, CubePlace::Top));
    }
    Some(match st.cube.owner {
        None => (value, CubePlace::Middle),
        Some(p) if p.index() == d.player => (value, CubePlace::Bottom),
        Some(_) => (value, CubePlace::Top),
    })
}

/// A checker play's candidates (the best five, and the play made when it
/// is not among them): the ply each was searched at, the mover's chances
/// after it, its equity and what it loses.
fn candidates_html(s: &mut String, d: &Decision, checker: &str) {
    let _ = writeln!(
        s,
        "<table class=\"candidates\"><tr><th>play</th><th>ply</th><th>win</th><th>g</th><th>bg</th><th>lose</th><th>g</th><th>bg</th><th>{checker} EMG</th><th>loss</th></tr>"
    );
    let top = d
        .alternatives
        .iter()
        .map(|x| x.equity)
        .fold(f32::NEG_INFINITY, f32::max);
    for (i, alt) in d.alternatives.iter().enumerate() {
        let mark = if Some(i) == d.played_index {
            " (played)"
        } else {
            ""
        };
        let [w, wg, wbg, lg, lbg] = alt.probs.0.map(|x| 100.0 * x);
        let _ = writeln!(
            s,
            "<tr><td>{}{mark}</td><td>{}</td><td>{w:.1}%</td><td>{wg:.1}%</td><td>{wbg:.1}%</td><td>{:.1}%</td><td>{lg:.1}%</td><td>{lbg:.1}%</td><td>{:+.3}</td><td>{:.3}</td></tr>",
            esc(&alt.play),
            alt.ply,
            100.0 - w,
            alt.equity,
            top - alt.equity
        );
    }
    s.push_str("</table>\n");
}

/// The report page of the file at `path`.
pub fn html(path: &Path, ann: &Annotation, settings: &Settings) -> String {
    let (ply, checker) = (settings.ply, settings.checker.word());
    let mut s = String::new();
    let title = format!("Sheshbesh analysis: {}", match_name(ann));
    let _ = write!(
        s,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title><style>\
body{{font-family:sans-serif;margin:2em;color:#222}}table{{border-collapse:collapse;margin:1em 0}}\
td,th{{border:1px solid #bbb;padding:3px 8px;text-align:right}}th{{background:#eee}}\
td:first-child{{text-align:left}}.m{{margin:1.5em 0;padding:1em;border:1px solid #ccc;border-radius:6px}}\
.very{{border-color:#c0392b}}.bad{{border-color:#e67e22}}.key span{{display:inline-block;width:2em;height:4px;margin:0 .4em .2em 1em;vertical-align:middle}}\
#every:not(:checked)~table tr.minor{{display:none}}svg.board{{max-width:100%;height:auto}}\
</style></head><body>\n<h1>{}</h1>\n<p>File: {}</p>\n",
        esc(&title),
        esc(&title),
        esc(&path.display().to_string())
    );
    let kind = if ann.length == 0 {
        "Money session".to_string()
    } else {
        format!("{}-point match", ann.length)
    };
    let _ = writeln!(
        s,
        "<p>{kind}, {} games, analysed by Sheshbesh at {ply}-ply. Equities are EMG (normalized equity), {checker} for checker plays; error rates in mEMG per unforced decision.</p>",
        ann.games
    );
    s.push_str("<table id=\"summary\">\n");
    let _ = writeln!(
        s,
        "<tr><th></th><th>{}</th><th>{}</th></tr>",
        esc(&name_of(ann, 0)),
        esc(&name_of(ann, 1))
    );
    for (label, x, y) in rows(ann) {
        let _ = writeln!(
            s,
            "<tr><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(label),
            esc(&x),
            esc(&y)
        );
    }
    s.push_str("</table>\n");
    results_html(&mut s, ann);
    graph_html(&mut s, ann);
    decisions_html(&mut s, ann);
    s.push_str("<h2>Mistakes</h2>\n<p class=\"key\">Arrows:<span style=\"background:#c0392b\"></span>played<span style=\"background:#1e8449\"></span>best. Checkers: light for the first player, dark for the second.</p>\n");
    let marked: Vec<&Decision> = ann
        .decisions
        .iter()
        .filter(|d| d.mark != Mark::None)
        .collect();
    if marked.is_empty() {
        s.push_str("<p>No marked decisions.</p>\n");
    }
    for d in marked {
        let class = match d.mark {
            Mark::VeryBad => "m very",
            Mark::Bad => "m bad",
            _ => "m",
        };
        let who = esc(&name_of(ann, d.player));
        let _ = writeln!(
            s,
            "<div class=\"{class}\" id=\"{}\"><h3>Game {}, move {}: {who} {} {} ({}, -{:.3})</h3>",
            anchor(d),
            d.game,
            d.move_number,
            d.dice
                .map(|x| format!("rolled {x}, played"))
                .unwrap_or_default(),
            esc(&d.played),
            d.mark.word(),
            d.equity_loss
        );
        let _ = writeln!(
            s,
            "<p>Best: <b>{}</b>. Position ID {}, Match ID {}.</p>",
            esc(&d.best),
            position_id::encode(&d.position),
            match_id::encode(&d.state)
        );
        let (played, best) = match d.kind {
            Kind::Checker => (alt_move(d, &d.played), alt_move(d, &d.best)),
            Kind::Cube => (None, None),
        };
        let _ = writeln!(s, "<p>{}</p>", esc(&caption(ann, d)));
        let id = anchor(d);
        let diagram = Diagram {
            id: &id,
            // The first player's checkers are the light ones; the board
            // is seen from d.player (the taker, for an answer).
            mover_light: d.player == 0,
            dice: d.dice,
            cube: cube_of(d),
            played,
            best,
            spots: false,
            home_left: false,
        };
        s.push_str(&svg::board(&d.decider_board(), &diagram));
        s.push('\n');
        if d.kind == Kind::Checker {
            candidates_html(&mut s, d, checker);
        } else if let (Some(c), true) = (d.cube, d.is_answer()) {
            // The taker's equities: a take is minus double/take.
            let _ = writeln!(
                s,
                "<table><tr><th>Take</th><th>Pass</th><th>Proper answer</th></tr><tr><td>{:+.3}</td><td>{:+.3}</td><td>{}</td></tr></table>",
                -c.double_take, -c.double_pass, esc(&d.best)
            );
        } else if let Some(c) = d.cube {
            let _ = writeln!(
                s,
                "<table><tr><th>No double</th><th>Double, take</th><th>Double, pass</th><th>Proper action</th></tr><tr><td>{:+.3}</td><td>{:+.3}</td><td>{:+.3}</td><td>{}</td></tr></table>",
                c.no_double, c.double_take, c.double_pass, esc(c.action)
            );
        }
        s.push_str("</div>\n");
    }
    s.push_str("</body></html>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::super::figures::sample;
    use super::*;

    #[test]
    fn text_is_escaped() {
        assert_eq!(
            esc("<a href=\"x\">&</a>"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&lt;/a&gt;"
        );
    }

    #[test]
    fn the_page_draws_each_marked_decision_and_every_link_finds_its_diagram() {
        let (path, ann, settings) = sample::annotated();
        let page = html(path, ann, settings);
        assert!(page.starts_with("<!DOCTYPE html>"));
        assert!(page.ends_with("</body></html>\n"));
        assert!(page.contains("<table id=\"summary\">"));
        assert!(page.contains("<svg id=\"graph\""));
        let marked: Vec<&Decision> = ann
            .decisions
            .iter()
            .filter(|d| d.mark != Mark::None)
            .collect();
        assert_eq!(page.matches("<div class=\"m").count(), marked.len());
        for d in &marked {
            assert!(page.contains(&format!("id=\"{}\"", anchor(d))));
        }
        for link in page.split("href=\"#").skip(1) {
            let id = &link[..link.find('"').unwrap()];
            assert!(page.contains(&format!("id=\"{id}\"")), "{id}");
        }
        // The page is named by its match, not by the path it was given.
        assert!(page.contains(&format!(
            "<title>Sheshbesh analysis: {} vs {}, 2-point match</title>",
            name_of(ann, 0),
            name_of(ann, 1)
        )));
        // No id twice in the page (the diagrams' arrowheads have their own).
        let ids: Vec<&str> = page
            .split(" id=\"")
            .skip(1)
            .map(|x| &x[..x.find('"').unwrap()])
            .collect();
        let unique: std::collections::HashSet<&&str> = ids.iter().collect();
        assert_eq!(unique.len(), ids.len());
        // Each marked checker play lists its candidates with their chances
        // and ply; the cube's place and the dice are drawn.
        let checker_marked = marked.iter().filter(|d| d.kind == Kind::Checker).count();
        assert!(checker_marked > 0);
        assert_eq!(
            page.matches("<table class=\"candidates\">").count(),
            checker_marked
        );
        assert!(page.contains("<th>ply</th><th>win</th>"));
        assert!(page.contains("class=\"cube\""));
        // Right no-doubles are hidden behind the checkbox, still in the page.
        let hidden = ann.decisions.iter().filter(|d| !shown(d)).count();
        assert_eq!(page.matches("class=\"minor\"").count(), hidden);
        assert!(page.contains("<input type=\"checkbox\" id=\"every\">"));
        // The games table gives the score before each game.
        assert!(page.contains("<td>0 - 0</td>"));
        // An answer to a double is drawn from the taker's side.
        let d = ann.decisions.iter().find(|d| d.is_answer());
        let d = d.expect("the sample has an answer to a double");
        {
            let c = caption(ann, d);
            assert!(
                c.starts_with(&format!(
                    "{} (bottom, pips {})",
                    name_of(ann, d.player),
                    d.decider_board().pips().0
                )),
                "{c}"
            );
            assert!(c.contains("to answer the double of"), "{c}");
        }
    }
}
