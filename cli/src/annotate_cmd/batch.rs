//! The table that ends an annotation of several files: a row per file,
//! with its figures or its error.

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

/// The width of the file column for `paths`.
pub fn file_width<'a>(paths: impl Iterator<Item = &'a Path>) -> usize {
    paths
        .map(|p| p.display().to_string().len())
        .max()
        .unwrap_or(4)
        .max(4)
}

/// The table's heading line, its file column `w` wide.
pub fn heading(w: usize) -> String {
    format!("{:<w$}  {:>5}  result\n", "file", "games")
}

impl Row {
    /// The row's line of the table, its file column `w` wide: each
    /// player's PR and mEMG lost per decision, named.
    pub fn line(&self, w: usize) -> String {
        let f = self.path().display().to_string();
        match self {
            Row::Ok {
                games,
                error_rate,
                names,
                pr,
                ..
            } => format!(
                "{f:<w$}  {games:>5}  ok: {} {:.1} PR ({:.1} mEMG a decision), {} {:.1} PR ({:.1})\n",
                names[0], pr[0], error_rate[0], names[1], pr[1], error_rate[1]
            ),
            Row::Failed { error, .. } => format!("{f:<w$}  {:>5}  FAILED: {error}\n", "-"),
        }
    }
}

/// The count of files annotated and failed that ends the table.
pub fn summary(rows: &[Row]) -> String {
    let failed = rows
        .iter()
        .filter(|r| matches!(r, Row::Failed { .. }))
        .count();
    format!(
        "{} files: {} annotated, {failed} failed\n",
        rows.len(),
        rows.len() - failed
    )
}

/// The whole table of several files, from their rows: every file with
/// its result or its error, and a count of both (`annotate` writes the
/// same lines one by one, each file's as it finishes).
pub fn table(rows: &[Row]) -> String {
    let w = file_width(rows.iter().map(Row::path));
    let mut s = heading(w);
    for r in rows {
        s.push_str(&r.line(w));
    }
    s.push_str(&summary(rows));
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
        // Each player's figures follow the player's name.
        let second = format!(", {} ", name_of(ann, 1));
        assert!(lines[1].contains(&second), "{t}");
        assert!(lines[1].contains(" PR ("), "{t}");
        assert!(lines[2].starts_with("bad.mat"));
        assert!(lines[2].ends_with("FAILED: line 2: no game"), "{t}");
        assert_eq!(lines[3], "2 files: 1 annotated, 1 failed");
    }
}
