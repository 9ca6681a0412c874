//! `sheshbesh annotate`: batch analysis of match files (.mat, .txt and SGF) for
//! mistakes, as text, JSON or an HTML report with board diagrams.
//!
//! This module runs the files (in parallel, each isolated so a defect is
//! that file's error) and writes what they render; the engine reads and
//! judges them. Each output has its module: `text`, `json`, `html`,
//! and `batch` for the lines of several files.

mod batch;
mod figures;
mod html;
mod json;
mod text;

use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use sheshbesh_engine::analysis::annotate::{self, Annotation, Settings, Thresholds};
use sheshbesh_engine::cube::decision::PlayEquity;
use sheshbesh_engine::evaluation::evaluator::NetEvaluator;
use sheshbesh_engine::formats::files::write_atomic;
use sheshbesh_engine::formats::match_files::{self, load, parse};
use sheshbesh_engine::formats::matfile::MatchFile;

use batch::{file_width, heading, summary};
pub use batch::{table, Row};
use html::html;
use json::json_text;
use text::text;

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
    #[arg(long, value_enum, default_value_t = crate::lang::Lang::En)]
    pub lang: crate::lang::Lang,
    #[command(flatten)]
    pub weights: crate::nets::WeightsArg,
}

/// `sheshbesh annotate`.
pub fn run(ev: &NetEvaluator, a: AnnotateArgs) -> Result<bool> {
    crate::position_cmd::check_ply(a.ply)?;
    if !(0.0 < a.doubtful && a.doubtful <= a.bad && a.bad <= a.very_bad) {
        bail!("thresholds must satisfy 0 < --doubtful <= --bad <= --very-bad");
    }
    let files = match_files::collect(&a.files)?;
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
        let w = file_width(files.iter().map(PathBuf::as_path));
        if a.json && several {
            writeln!(stdout, "[")?;
        } else if several {
            write!(stdout, "{}", heading(w))?;
            stdout.flush()?;
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
                if several && !a.json {
                    // Each file's line as soon as it and those before it
                    // are done, under the bar.
                    bar.suspend(|| -> std::io::Result<()> {
                        write!(stdout, "{}", r.row.line(w))?;
                        stdout.flush()
                    })?;
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
            write!(stdout, "{}", summary(&rows))?;
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
    let settings = settings(ply, checker);
    let result = isolated(|| {
        bytes
            .map_or_else(
                || load(path).map_err(|e| e.to_string()),
                |b| parse(path, b).map_err(|e| e.to_string()),
            )
            .and_then(|m| annotate::annotate(&m, ev, &settings).map_err(|e| e.to_string()))
    });
    (json_text(path, &result, &settings), Row::of(path, &result))
}

/// The settings of `annotate --ply PLY` (with `--cubeless` or not).
fn settings(ply: u32, checker: PlayEquity) -> Settings {
    Settings {
        ply,
        thresholds: Thresholds::default(),
        checker,
    }
}

/// The match in `bytes`, read as `annotate` reads a file named `path`
/// (its extension tells SGF from .mat).
pub fn read_match(path: &Path, bytes: &[u8]) -> Result<MatchFile> {
    parse(path, bytes).map_err(|e| anyhow::anyhow!("bad match file \"{}\": {e}", path.display()))
}

/// `annotate --json`'s text for the match `m` read as `path`, calling
/// `progress(done, of)` (from any thread) as each of its rolls is judged;
/// `stop` ends it early with the error "stopped before the end".
pub fn review(
    ev: &NetEvaluator,
    path: &Path,
    m: &MatchFile,
    ply: u32,
    checker: PlayEquity,
    progress: &(dyn Fn(u64, u64) + Sync),
    stop: &std::sync::atomic::AtomicBool,
) -> String {
    let settings = settings(ply, checker);
    let of = annotate::rolls(m);
    let done = std::sync::atomic::AtomicU64::new(0);
    let tick = || {
        progress(
            done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1,
            of,
        )
    };
    let result = isolated(|| {
        annotate::annotate_until(m, ev, &settings, &tick, stop).map_err(|e| e.to_string())
    });
    json_text(path, &result, &settings)
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
        let m = load(path).map_err(|e| e.to_string())?;
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
