//! The table that ends an annotation of several files: a row per file,
//! with its figures or its error.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use sheshbesh_engine::analysis::annotate::Annotation;

use super::figures::name_of;

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
    /// The row of the file at `path`, annotated or failed.
    pub fn of(path: &Path, result: &std::result::Result<Annotation, String>) -> Row {
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

    /// The file the row is of.
    pub fn path(&self) -> &Path {
        match self {
            Row::Ok { path, .. } | Row::Failed { path, .. } => path,
        }
    }
}

/// The final table of several files, from their rows: every file with
/// its result or its error, and a count of both.
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

#[cfg(test)]
mod tests {
    use super::super::figures::sample;
    use super::*;

    #[test]
    fn the_table_gives_each_file_its_result_or_its_error_and_counts_both() {
        let (path, ann, _) = sample::annotated();
        let rows = [
            Row::of(path, &Ok(ann.clone())),
            Row::of(Path::new("bad.mat"), &Err("line 2: no game".into())),
        ];
        let t = table(&rows);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines.len(), 4, "{t}");
        assert!(lines[0].starts_with("file"));
        assert!(
            lines[1].contains(&format!("ok: {} ", name_of(ann, 0))),
            "{t}"
        );
        assert!(lines[2].starts_with("bad.mat"));
        assert!(lines[2].ends_with("FAILED: line 2: no game"), "{t}");
        assert_eq!(lines[3], "2 files: 1 annotated, 1 failed");
    }
}
