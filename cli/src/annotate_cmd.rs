//! `sheshbesh annotate`: batch analysis of match files (.mat and SGF) for
//! mistakes, as text, JSON or an HTML report with board diagrams.

use crate::output::rounded;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use serde_json::{json, Value};
use sheshbesh_engine::analysis::annotate::{
    self, Annotation, Decision, Kind, Mark, Settings, Thresholds,
};
use sheshbesh_engine::cube::decision::{mwc_of_emg, PlayEquity};
use sheshbesh_engine::evaluation::evaluator::NetEvaluator;
use sheshbesh_engine::formats::files::{read_bounded, write_atomic, TEXT_LIMIT};
use sheshbesh_engine::formats::matfile::MatchFile;
use sheshbesh_engine::formats::story;
use sheshbesh_engine::rules::scoring::WinKind;
use sheshbesh_engine::{formats::match_id, formats::position_id, Move, Player};

use crate::svg;

/// Arguments of `sheshbesh annotate`.
#[derive(clap::Args, Debug)]
pub struct AnnotateArgs {
    /// Match files (.mat, .txt or .sgf) or directories of them.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Search depth of checker plays and cube decisions (gnubg analyses
    /// at 2).
    #[arg(long, default_value_t = 2, value_parser = crate::position_cmd::ply_arg)]
    pub ply: u32,
    #[command(flatten)]
    pub checker: crate::position_cmd::CheckerArgs,
    /// Print JSON: one object for one file, an array for several. Each has
    /// `file`, `length`, `games`, `ply`, `checker_equity` ("cubeful" or
    /// "cubeless"), `players` (per player: `name`,
    /// `error_rate` and `checker_error_rate`, `cube_error_rate` in mEMG per
    /// unforced decision, `pr`, `marks`, `luck`, `rating`, `points`,
    /// `luck_adjusted`, decision counts), `results` (per finished game:
    /// `game`, `winner`, `points`, `kind`, `dropped`, `resigned`) and
    /// `decisions` (one per unforced checker play or actual/close cube
    /// decision: `game`, `move`, `player`, `kind` ("checker"/"cube"),
    /// `position_id`, `match_id`, `dice`, `played`, `best`, `equity_loss`
    /// in EMG, `mark` ("none", "doubtful", "bad", "very bad"), `luck` of
    /// the roll (checker plays, EMG), `line`), or
    /// `error` when the file could not be read.
    #[arg(long)]
    pub json: bool,
    /// Write an HTML report: to this file for one input, or one report per
    /// input into this directory.
    #[arg(long, value_name = "PATH")]
    pub html: Option<PathBuf>,
    /// Equity loss (EMG) marked doubtful.
    #[arg(long, default_value_t = 0.03)]
    pub doubtful: f32,
    /// Equity loss (EMG) marked bad.
    #[arg(long, default_value_t = 0.06)]
    pub bad: f32,
    /// Equity loss (EMG) marked very bad.
    #[arg(long, default_value_t = 0.12)]
    pub very_bad: f32,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
    /// Show the Hebrew words of the game beside the English ones in the
    /// text report (mars, Turkish mars).
    #[arg(long, value_enum, default_value_t = crate::words::Lang::En)]
    pub lang: crate::words::Lang,
    #[command(flatten)]
    pub weights: crate::nets::WeightsArg,
}

/// The inputs: files as given, directories expanded to their match files
/// (sorted).
pub fn collect(args: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for a in args {
        if a.is_dir() {
            let mut found: Vec<PathBuf> = std::fs::read_dir(a)
                .with_context(|| format!("reading directory {}", a.display()))?
                .flatten()
                .map(|e| e.path())
                .filter(|p| {
                    p.is_file()
                        && p.extension().is_some_and(|e| {
                            ["mat", "sgf", "txt"].contains(&e.to_string_lossy().as_ref())
                        })
                        && looks_like_a_match(p)
                })
                .collect();
            found.sort();
            out.extend(found);
        } else {
            out.push(a.clone());
        }
    }
    if out.is_empty() {
        bail!("no match files (.mat, .txt, .sgf) found");
    }
    Ok(out)
}

/// Whether a file found in a directory looks like a match file: an SGF
/// game tree, or a `.mat` header (`N point match`) among its first lines
/// after any tags and comments. A file named on the command line is always
/// read; in a directory, notes such as a `SOURCES.txt` are passed over.
fn looks_like_a_match(path: &std::path::Path) -> bool {
    use std::io::Read;
    let mut head = Vec::new();
    let read = std::fs::File::open(path).and_then(|f| f.take(4096).read_to_end(&mut head));
    if read.is_err() {
        return true; // named in the results as unreadable
    }
    let text = String::from_utf8_lossy(&head);
    let text = text.trim_start_matches('\u{feff}');
    let sgf = text
        .trim_start()
        .strip_prefix('(')
        .is_some_and(|t| t.trim_start().starts_with(';'));
    sgf || text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with(';') && !l.starts_with('#'))
        .take(3)
        .any(|l| {
            let words: Vec<String> = l
                .split_whitespace()
                .take(3)
                .map(str::to_ascii_lowercase)
                .collect();
            words.len() == 3
                && words[0].parse::<u32>().is_ok()
                && words[1] == "point"
                && words[2].starts_with("match")
        })
}

/// Reads a match file, SGF by extension or by its first character.
fn load(path: &Path) -> std::result::Result<MatchFile, String> {
    let bytes = read_bounded(path, TEXT_LIMIT).map_err(|e| format!("cannot read: {e}"))?;
    parse(path, &bytes)
}

/// Reads a match file's bytes: gnubg SGF (by its extension or its opening
/// parenthesis) or .mat in any dialect, its story checked.
fn parse(path: &Path, bytes: &[u8]) -> std::result::Result<MatchFile, String> {
    let text = String::from_utf8_lossy(bytes);
    let sgf = path.extension().is_some_and(|e| e == "sgf");
    story::read(&text, sgf).map_err(|e| format!("line {}: {}", e.line, e.reason))
}

/// `sheshbesh annotate`.
pub fn run(ev: &NetEvaluator, a: AnnotateArgs) -> Result<bool> {
    crate::position_cmd::check_ply(a.ply)?;
    if !(0.0 < a.doubtful && a.doubtful <= a.bad && a.bad <= a.very_bad) {
        bail!("thresholds must satisfy 0 < --doubtful <= --bad <= --very-bad");
    }
    let files = collect(&a.files)?;
    let settings = Settings {
        ply: a.ply,
        thresholds: Thresholds {
            doubtful: a.doubtful,
            bad: a.bad,
            very_bad: a.very_bad,
        },
        checker: a.checker.equity(),
    };
    let show = !a.quiet && std::io::IsTerminal::is_terminal(&std::io::stderr());
    let several = files.len() > 1;
    // Several files count files; one file counts its rolls, its length
    // set once the file is read.
    let bar = if show {
        let (len, unit) = if several {
            (files.len() as u64, "files")
        } else {
            (0, "rolls")
        };
        let b = ProgressBar::new(len);
        b.set_style(
            ProgressStyle::with_template(&format!(
                "{{bar:30}} {{pos}}/{{len}} {unit}  {{elapsed}}, {{eta}} left {{msg}}"
            ))
            .expect("valid template"),
        );
        b
    } else {
        ProgressBar::hidden()
    };
    let on_read = |m: &MatchFile| {
        if !several {
            bar.set_length(annotate::rolls(m));
        }
    };
    // Files are analysed in parallel and each is rendered (its JSON, its
    // HTML page, its row or report) as soon as it is done, then dropped:
    // only the files in flight, and finished ones waiting for their turn
    // in the output's order, are held.
    let html_single = a.html.as_ref().is_some_and(|h| !several && !h.is_dir());
    if let Some(h) = &a.html {
        if !html_single {
            std::fs::create_dir_all(h).with_context(|| format!("creating {}", h.display()))?;
        }
    }
    let render = |path: &PathBuf, result: std::result::Result<Annotation, String>| -> Rendered {
        let mut r = Rendered {
            row: Row::of(path, &result),
            json: a.json.then(|| json_text(path, &result, &settings)),
            text: None,
            html_error: None,
        };
        if let Ok(ann) = &result {
            if !a.json && !several {
                r.text = Some(text(path, ann, &settings, a.lang));
            }
            if let Some(h) = &a.html {
                let page = if html_single {
                    h.clone()
                } else {
                    let stem = path
                        .file_stem()
                        .map(|s| s.to_string_lossy().into_owned())
                        .unwrap_or_else(|| "match".into());
                    h.join(format!("{stem}.html"))
                };
                if let Err(e) = write_atomic(&page, html(path, ann, &settings).as_bytes()) {
                    r.html_error = Some(format!("writing {}: {e}", page.display()));
                }
            }
        }
        r
    };
    let (tx, rx) = std::sync::mpsc::channel::<(usize, Rendered)>();
    let mut rows = Vec::with_capacity(files.len());
    let mut stdout = std::io::stdout().lock();
    let mut single_text = None;
    let mut html_errors = Vec::new();
    std::thread::scope(|scope| -> Result<()> {
        scope.spawn(|| {
            files
                .par_iter()
                .enumerate()
                .for_each_with(tx, |tx, (i, path)| {
                    let tick = || {
                        if !several {
                            bar.inc(1);
                        }
                    };
                    let result = annotate_isolated(path, ev, &settings, &on_read, &tick);
                    let _ = tx.send((i, render(path, result)));
                    if several {
                        bar.inc(1);
                    }
                });
        });
        let mut waiting = std::collections::BTreeMap::new();
        let mut next = 0;
        if a.json && several {
            writeln!(stdout, "[")?;
        }
        for (i, r) in rx {
            waiting.insert(i, r);
            while let Some(r) = waiting.remove(&next) {
                if let Some(j) = &r.json {
                    let sep = if several && next + 1 < files.len() {
                        ","
                    } else {
                        ""
                    };
                    writeln!(stdout, "{j}{sep}")?;
                    stdout.flush()?;
                }
                if let Some(t) = r.text {
                    single_text = Some(t);
                }
                html_errors.extend(r.html_error);
                rows.push(r.row);
                next += 1;
            }
        }
        if a.json && several {
            writeln!(stdout, "]")?;
        }
        Ok(())
    })?;
    bar.finish_and_clear();
    if let Some(e) = html_errors.first() {
        bail!("{e}");
    }
    if !a.json {
        if several {
            write!(stdout, "{}", table(&rows))?;
        } else if let Some(t) = single_text {
            write!(stdout, "{t}")?;
        } else if let Row::Failed { path, error } = &rows[0] {
            // A file that failed is exit status 1 in every mode, as with
            // several files or --json; its one line goes where errors go.
            stdout.flush()?;
            eprintln!("sheshbesh: {}: {error}", path.display());
        }
    }
    Ok(rows.iter().all(|r| matches!(r, Row::Ok { .. })))
}

/// `annotate FILE --json --ply PLY` with the default marks, for the file
/// at `path`, or named `path` with these `bytes` (read elsewhere: on a
/// cluster the worker need not see the driver's disk): the file's JSON
/// line (or its error object) and its row of the final table.
pub fn file_answer(
    ev: &NetEvaluator,
    path: &Path,
    bytes: Option<&[u8]>,
    ply: u32,
    checker: PlayEquity,
) -> (String, Row) {
    let settings = Settings {
        ply,
        thresholds: Thresholds::default(),
        checker,
    };
    let result = isolated(|| {
        bytes
            .map_or_else(|| load(path), |b| parse(path, b))
            .and_then(|m| annotate::annotate(&m, ev, &settings).map_err(|e| e.to_string()))
    });
    (json_text(path, &result, &settings), Row::of(path, &result))
}

/// A file annotated on its own: even a defect that panics on one file
/// becomes that file's error, and the others' results stand.
fn annotate_isolated(
    path: &Path,
    ev: &NetEvaluator,
    settings: &Settings,
    read: &(dyn Fn(&MatchFile) + Sync),
    tick: &(dyn Fn() + Sync),
) -> std::result::Result<Annotation, String> {
    isolated(|| {
        let m = load(path)?;
        read(&m);
        annotate::annotate_with_progress(&m, ev, settings, tick).map_err(|e| e.to_string())
    })
}

/// Runs one file's annotation, a panic turned into the file's error.
fn isolated(
    f: impl FnOnce() -> std::result::Result<Annotation, String>,
) -> std::result::Result<Annotation, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or_else(|panic| {
        let why = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        Err(format!(
            "internal error while annotating (please report): {why}"
        ))
    })
}

/// What is kept of a file once it is annotated: its outputs, rendered.
struct Rendered {
    row: Row,
    json: Option<String>,
    text: Option<String>,
    html_error: Option<String>,
}

/// A file's line in the table of several files.
#[derive(serde::Serialize, serde::Deserialize)]
pub enum Row {
    Ok {
        path: PathBuf,
        games: usize,
        error_rate: [f32; 2],
        names: [String; 2],
        pr: [f32; 2],
    },
    Failed {
        path: PathBuf,
        error: String,
    },
}

impl Row {
    fn of(path: &Path, result: &std::result::Result<Annotation, String>) -> Row {
        match result {
            Ok(ann) => Row::Ok {
                path: path.to_path_buf(),
                games: ann.games,
                error_rate: [ann.players[0].error_rate(), ann.players[1].error_rate()],
                names: [name_of(ann, 0), name_of(ann, 1)],
                pr: [ann.players[0].pr(), ann.players[1].pr()],
            },
            Err(e) => Row::Failed {
                path: path.to_path_buf(),
                error: e.clone(),
            },
        }
    }

    fn path(&self) -> &Path {
        match self {
            Row::Ok { path, .. } | Row::Failed { path, .. } => path,
        }
    }
}

fn name_of(ann: &Annotation, p: usize) -> String {
    let n = &ann.players[p].name;
    if n.is_empty() {
        format!("player {p}")
    } else {
        n.clone()
    }
}

fn kind_word(k: Kind) -> &'static str {
    match k {
        Kind::Checker => "checker",
        Kind::Cube => "cube",
    }
}

fn kind_of_win(k: WinKind) -> &'static str {
    match k {
        WinKind::Single => "single",
        WinKind::Gammon => "gammon",
        WinKind::Backgammon => "backgammon",
    }
}

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
fn json_text(
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

/// The match as text: every analysed decision, marked ones commented.
fn text(path: &Path, ann: &Annotation, settings: &Settings, lang: crate::words::Lang) -> String {
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

/// The per-player figures: label, first player, second player.
fn rows(ann: &Annotation) -> Vec<(&'static str, String, String)> {
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

/// The batch table: every file with its result or its error.
/// The final table of several files, from their rows.
pub fn table(rows: &[Row]) -> String {
    let mut s = String::new();
    let w = rows
        .iter()
        .map(|r| r.path().display().to_string().len())
        .max()
        .unwrap_or(4);
    let _ = writeln!(
        s,
        "{:<w$}  {:>5}  {:>9}  {:>9}  result",
        "file", "games", "err rate", "err rate"
    );
    for r in rows {
        let f = r.path().display().to_string();
        match r {
            Row::Ok {
                games,
                error_rate,
                names,
                pr,
                ..
            } => {
                let _ = writeln!(
                    s,
                    "{f:<w$}  {games:>5}  {:>9.1}  {:>9.1}  ok: {} {:.1} PR, {} {:.1} PR",
                    error_rate[0], error_rate[1], names[0], pr[0], names[1], pr[1]
                );
            }
            Row::Failed { error, .. } => {
                let _ = writeln!(
                    s,
                    "{f:<w$}  {:>5}  {:>9}  {:>9}  FAILED: {error}",
                    "-", "-", "-"
                );
            }
        }
    }
    let failed = rows
        .iter()
        .filter(|r| matches!(r, Row::Failed { .. }))
        .count();
    let _ = writeln!(
        s,
        "{} files: {} annotated, {failed} failed",
        rows.len(),
        rows.len() - failed
    );
    s
}

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

/// A self-contained HTML report (no network access needed).
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

/// Every finished game's result.
fn results_html(s: &mut String, ann: &Annotation) {
    s.push_str(
        "<h2>Games</h2>\n<table><tr><th>game</th><th>winner</th><th>points</th><th>how</th></tr>\n",
    );
    for r in &ann.results {
        let how = format!(
            "{}{}{}",
            kind_of_win(r.kind),
            if r.dropped { ", double dropped" } else { "" },
            if r.resigned { ", resigned" } else { "" }
        );
        let _ = writeln!(
            s,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{how}</td></tr>",
            r.game,
            esc(&name_of(ann, r.winner)),
            r.points
        );
    }
    s.push_str("</table>\n");
}

/// The first player's match-winning chance (equity in money play) before
/// each decision, as a line across the match: games separated, very bad
/// decisions marked red, big luck (a quarter point or more) blue.
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
    let (w, h, pad) = (900.0f32, 240.0f32, 30.0f32);
    let (lo, hi) = if money { (-2.0f32, 2.0f32) } else { (0.0, 1.0) };
    let x = |i: usize| pad + (w - 2.0 * pad) * i as f32 / (points.len() - 1) as f32;
    let y = |v: f32| h - pad - (h - 2.0 * pad) * ((v.clamp(lo, hi) - lo) / (hi - lo));
    let what = if money {
        "equity"
    } else {
        "match-winning chance"
    };
    let _ = writeln!(
        s,
        "<h2>The match</h2>\n<p>{}'s {what} before each decision; red: very bad decisions, blue: big luck.</p>",
        esc(&name_of(ann, 0))
    );
    let _ = write!(
        s,
        "<svg id=\"graph\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\"><rect width=\"{w}\" height=\"{h}\" fill=\"#fafafa\" stroke=\"#ccc\"/>"
    );
    let mid = y((lo + hi) / 2.0);
    let _ = write!(
        s,
        "<line x1=\"{pad}\" y1=\"{mid:.1}\" x2=\"{:.1}\" y2=\"{mid:.1}\" stroke=\"#999\" stroke-dasharray=\"4 3\"/>",
        w - pad
    );
    for (i, pair) in points.windows(2).enumerate() {
        if pair[0].1.game != pair[1].1.game {
            let gx = (x(i) + x(i + 1)) / 2.0;
            let _ = write!(
                s,
                "<line x1=\"{gx:.1}\" y1=\"{pad}\" x2=\"{gx:.1}\" y2=\"{:.1}\" stroke=\"#ddd\"/><text x=\"{:.1}\" y=\"{:.1}\" font-size=\"10\" fill=\"#777\">game {}</text>",
                h - pad,
                gx + 2.0,
                pad - 6.0,
                pair[1].1.game
            );
        }
    }
    let line: Vec<String> = points
        .iter()
        .enumerate()
        .map(|(i, (v, _))| format!("{:.1},{:.1}", x(i), y(*v)))
        .collect();
    let _ = write!(
        s,
        "<polyline fill=\"none\" stroke=\"#2c3e50\" stroke-width=\"1.5\" points=\"{}\"/>",
        line.join(" ")
    );
    for (i, (v, d)) in points.iter().enumerate() {
        let colour = if d.mark == Mark::VeryBad {
            Some("#c0392b")
        } else if d.luck.is_some_and(|l| l.abs() >= 0.25) {
            Some("#2471a3")
        } else {
            None
        };
        if let Some(c) = colour {
            let _ = write!(
                s,
                "<a href=\"#{}\"><circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"4\" fill=\"{c}\"/></a>",
                anchor(d),
                x(i),
                y(*v)
            );
        }
    }
    let (top, bottom) = if money { ("+2", "-2") } else { ("100%", "0%") };
    let _ = writeln!(
        s,
        "<text x=\"4\" y=\"{:.1}\" font-size=\"10\">{top}</text><text x=\"4\" y=\"{:.1}\" font-size=\"10\">{bottom}</text></svg>",
        pad + 4.0,
        h - pad
    );
}

/// Every decision of every game: played, best, loss, mark, luck; marked
/// ones link to their diagram.
fn decisions_html(s: &mut String, ann: &Annotation) {
    s.push_str("<h2>Decisions</h2>\n");
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
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{played}</td><td>{}</td><td>{:.3}</td><td>{}</td><td>{}</td></tr>",
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

fn html(path: &Path, ann: &Annotation, settings: &Settings) -> String {
    let (ply, checker) = (settings.ply, settings.checker.word());
    let mut s = String::new();
    let title = format!("Sheshbesh analysis: {}", path.display());
    let _ = write!(
        s,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title><style>\
body{{font-family:sans-serif;margin:2em;color:#222}}table{{border-collapse:collapse;margin:1em 0}}\
td,th{{border:1px solid #bbb;padding:3px 8px;text-align:right}}th{{background:#eee}}\
td:first-child{{text-align:left}}.m{{margin:1.5em 0;padding:1em;border:1px solid #ccc;border-radius:6px}}\
.very{{border-color:#c0392b}}.bad{{border-color:#e67e22}}.key span{{display:inline-block;width:2em;height:4px;margin:0 .4em .2em 1em;vertical-align:middle}}\
</style></head><body>\n<h1>{}</h1>\n",
        esc(&title),
        esc(&title)
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
        s.push_str(&svg::board(&d.decider_board(), played, best, d.player == 0));
        s.push('\n');
        if d.kind == Kind::Checker {
            s.push_str("<table><tr><th>play</th><th>equity (EMG)</th><th>loss</th></tr>\n");
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
                let _ = writeln!(
                    s,
                    "<tr><td>{}{mark}</td><td>{:+.3}</td><td>{:.3}</td></tr>",
                    esc(&alt.play),
                    alt.equity,
                    top - alt.equity
                );
            }
            s.push_str("</table>\n");
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
