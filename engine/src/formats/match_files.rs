//! Finding and reading match files from disk: directories expanded to the
//! files in them that look like matches, and a file read (bounded) and
//! parsed as gnubg SGF or `.mat` in any dialect, its story checked.

use std::io::{self, Read};
use std::path::{Path, PathBuf};

use crate::formats::files::{read_bounded, TEXT_LIMIT};
use crate::formats::matfile::{MatError, MatchFile};
use crate::formats::story;

/// The extensions a match file found in a directory may have.
pub const EXTENSIONS: [&str; 3] = ["mat", "sgf", "txt"];

/// Why no list of match files could be made.
#[derive(Debug, thiserror::Error)]
pub enum FindError {
    /// A directory given could not be listed.
    #[error("reading directory {}: {source}", path.display())]
    Directory {
        /// The directory.
        path: PathBuf,
        /// What the system said.
        source: io::Error,
    },
    /// Nothing to read.
    #[error("no match files (.mat, .txt, .sgf) found")]
    Empty,
}

/// Why a match file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The file could not be read (missing, too big, not a file).
    #[error("cannot read: {0}")]
    Io(#[from] io::Error),
    /// Its text is not a legal match (the line named).
    #[error("{0}")]
    Story(#[from] MatError),
}

/// The inputs: files as given, directories expanded to the match files in
/// them (sorted). A file named is always kept, to be read (or refused by
/// name) later; in a directory, only files with a match file's extension
/// whose beginning [looks like a match](looks_like_a_match) are.
pub fn collect(args: &[PathBuf]) -> Result<Vec<PathBuf>, FindError> {
    let mut out = Vec::new();
    for a in args {
        if a.is_dir() {
            let entries = std::fs::read_dir(a).map_err(|source| FindError::Directory {
                path: a.clone(),
                source,
            })?;
            let mut found: Vec<PathBuf> = entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| {
                    p.is_file()
                        && p.extension()
                            .is_some_and(|e| EXTENSIONS.contains(&e.to_string_lossy().as_ref()))
                        && file_looks_like_a_match(p)
                })
                .collect();
            found.sort();
            out.extend(found);
        } else {
            out.push(a.clone());
        }
    }
    if out.is_empty() {
        return Err(FindError::Empty);
    }
    Ok(out)
}

/// Whether the file at `path` looks like a match by its first 4 KB; one
/// that cannot be read does (the read that follows names the error).
fn file_looks_like_a_match(path: &Path) -> bool {
    let mut head = Vec::new();
    let read = std::fs::File::open(path).and_then(|f| f.take(4096).read_to_end(&mut head));
    read.is_err() || looks_like_a_match(&String::from_utf8_lossy(&head))
}

/// Whether a file's beginning looks like a match file: an SGF game tree,
/// or a `.mat` header (`N point match`) among its first lines after any
/// tags and comments. Notes kept beside matches, such as a `SOURCES.txt`,
/// do not.
pub fn looks_like_a_match(head: &str) -> bool {
    let text = head.trim_start_matches('\u{feff}');
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

/// Reads the match file at `path` (at most [`TEXT_LIMIT`] bytes).
pub fn load(path: &Path) -> Result<MatchFile, ReadError> {
    let bytes = read_bounded(path, TEXT_LIMIT)?;
    Ok(parse(path, &bytes)?)
}

/// Reads a match file's bytes, named `path` (read elsewhere, perhaps on
/// another machine): gnubg SGF by its `.sgf` extension or its opening
/// parenthesis, otherwise `.mat` in any dialect; its story checked.
pub fn parse(path: &Path, bytes: &[u8]) -> Result<MatchFile, MatError> {
    let text = String::from_utf8_lossy(bytes);
    let sgf = path.extension().is_some_and(|e| e == "sgf");
    story::read(&text, sgf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_are_told_from_notes_by_their_beginning() {
        for head in [
            "5 point match\n\n Game 1\n",
            "\u{feff}; [Site \"x\"]\n\n 7 Point Match\n",
            "# a note\n0 point match\n",
            "  (;FF[4]GM[6]",
        ] {
            assert!(looks_like_a_match(head), "{head:?}");
        }
        for head in [
            "Sources of these files:\nfrom a 5-point match\n",
            "a\nb\nc\n5 point match\n",
            "(not sgf",
            "",
        ] {
            assert!(!looks_like_a_match(head), "{head:?}");
        }
    }

    #[test]
    fn a_directory_gives_its_matches_sorted_and_a_named_file_is_kept() {
        let dir = std::env::temp_dir().join(format!("shb-matchfiles-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("b.mat"), "3 point match\n").unwrap();
        std::fs::write(dir.join("a.sgf"), "(;GM[6])").unwrap();
        std::fs::write(dir.join("SOURCES.txt"), "where these came from\n").unwrap();
        std::fs::write(dir.join("c.json"), "5 point match\n").unwrap();
        let named = dir.join("SOURCES.txt");
        let got = collect(&[dir.clone(), named.clone()]).unwrap();
        assert_eq!(got, vec![dir.join("a.sgf"), dir.join("b.mat"), named]);

        let empty = dir.join("empty");
        std::fs::create_dir_all(&empty).unwrap();
        let err = collect(&[empty]).unwrap_err();
        assert_eq!(err.to_string(), "no match files (.mat, .txt, .sgf) found");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn read_errors_name_the_cause_or_the_line() {
        let missing = Path::new("/nonexistent/x.mat");
        let err = load(missing).unwrap_err().to_string();
        assert!(err.starts_with("cannot read: "), "{err}");
        let err = parse(Path::new("x.mat"), b"3 point match\n\n Game 1\n junk\n").unwrap_err();
        assert!(err.line > 0, "{err}");
        assert!(err.to_string().starts_with("line "), "{err}");
    }
}
