//! A table rollout's progress on disk ([`MetProgress`]): each opening
//! rolled out by [`crate::rollout::met_rollout`] is kept as one JSON line
//! of `OUT.cells` as soon as it is done, so a stopped run resumes, and a
//! finished one writes the table as gnubg MET XML and reads it back.

use std::io;
use std::path::{Path, PathBuf};

use crate::cube::met::Met;
use crate::formats::files::{read_text, write_atomic};
use crate::rollout::met_rollout::{assemble, openings, Opening};
use crate::rollout::settings::RolloutSettings;
use crate::rollout::summary::Estimate;

/// One rolled-out opening, as kept in the progress file.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Cell {
    /// The first mover's away count.
    pub away: u32,
    /// Its opponent's.
    pub opp_away: u32,
    /// After the Crawford game.
    pub post_crawford: bool,
    /// The first mover's match-winning chance.
    pub mwc: f32,
    /// Its standard error.
    pub se: f32,
    /// The settings it was rolled out with: a resumed run must use the
    /// same.
    pub trials: u32,
    /// The rollout's seed.
    pub seed: u64,
    /// Checker-play depth in the trials.
    pub ply: u32,
}

impl Cell {
    fn opening(&self) -> Opening {
        Opening {
            away: self.away,
            opp_away: self.opp_away,
            post_crawford: self.post_crawford,
        }
    }
}

/// Why a table rollout's files could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum ProgressError {
    /// The progress file exists and cannot be read.
    #[error("bad progress file \"{}\": cannot read: {source}", path.display())]
    Unreadable {
        /// The progress file.
        path: PathBuf,
        /// What the system said.
        source: io::Error,
    },
    /// A line of the progress file is wrong.
    #[error("bad progress file \"{}\", line {line}: {why}", path.display())]
    Line {
        /// The progress file.
        path: PathBuf,
        /// The line, from 1.
        line: usize,
        /// What is wrong with it.
        why: String,
    },
    /// A file could not be written.
    #[error("writing {}: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: io::Error,
    },
    /// The table written does not read back.
    #[error("{}: our own table does not read back: {why}", path.display())]
    ReadBack {
        /// The table file.
        path: PathBuf,
        /// What the reader said.
        why: String,
    },
}

/// The openings of a `length`-point table rolled out so far, and the file
/// that keeps them.
pub struct MetProgress {
    path: PathBuf,
    length: u32,
    cells: Vec<Cell>,
}

/// A finished table and its largest standard error.
pub struct RolledTable {
    /// The table as its file holds it.
    pub met: Met,
    /// The largest standard error of an entry.
    pub worst_se: f32,
}

impl MetProgress {
    /// The progress file kept beside the table file `out`: `OUT.cells`.
    pub fn path_beside(out: &Path) -> PathBuf {
        let mut p = out.to_path_buf().into_os_string();
        p.push(".cells");
        PathBuf::from(p)
    }

    /// The progress of a `length`-point table kept in `path`, empty when
    /// the file does not exist. Every line must be an opening of the
    /// table, once, with a chance and error in range, rolled out with the
    /// settings `s` (its trials, seed and ply).
    pub fn resume(path: &Path, length: u32, s: &RolloutSettings) -> Result<Self, ProgressError> {
        let mut p = MetProgress {
            path: path.to_path_buf(),
            length,
            cells: Vec::new(),
        };
        if !path.exists() {
            return Ok(p);
        }
        let text = read_text(path).map_err(|source| ProgressError::Unreadable {
            path: path.to_path_buf(),
            source,
        })?;
        let all = openings(length);
        for (i, line) in text.lines().enumerate() {
            let bad = |why: String| ProgressError::Line {
                path: path.to_path_buf(),
                line: i + 1,
                why,
            };
            let c: Cell = serde_json::from_str(line).map_err(|e| bad(e.to_string()))?;
            let known = all.contains(&c.opening());
            if !(known && (0.0..=1.0).contains(&c.mwc) && c.se.is_finite() && c.se >= 0.0) {
                return Err(bad(format!(
                    "{}-away {}-away{} with win chance {} ± {} is no opening of a {length}-point table; remove the file",
                    c.away,
                    c.opp_away,
                    if c.post_crawford { " post-Crawford" } else { "" },
                    c.mwc,
                    c.se
                )));
            }
            if p.cells.iter().any(|d| d.opening() == c.opening()) {
                return Err(bad(format!(
                    "{}-away {}-away is there twice; remove the file",
                    c.away, c.opp_away
                )));
            }
            if (c.trials, c.seed, c.ply) != (s.trials, s.seed, s.ply) {
                return Err(bad(format!(
                    "made with {} trials, seed {}, ply {}; give the same settings or remove it",
                    c.trials, c.seed, c.ply
                )));
            }
            p.cells.push(c);
        }
        Ok(p)
    }

    /// The progress file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Openings rolled out so far.
    pub fn done(&self) -> usize {
        self.cells.len()
    }

    /// Openings the table needs.
    pub fn needed(&self) -> usize {
        openings(self.length).len()
    }

    /// The openings still to roll out, in the order they must be.
    pub fn todo(&self) -> Vec<Opening> {
        openings(self.length)
            .into_iter()
            .filter(|o| self.find(*o).is_none())
            .collect()
    }

    fn find(&self, o: Opening) -> Option<&Cell> {
        self.cells.iter().find(|c| c.opening() == o)
    }

    /// The table so far: rolled-out scores, Kazaross-XG2 for the rest.
    pub fn table(&self) -> Met {
        let known = |o: Opening| self.find(o).map(|c| c.mwc);
        let name = format!("Sheshbesh rollouts, {} points", self.length);
        assemble(self.length, &known, Met::kazaross_xg2(), &name)
    }

    /// Keeps opening `o`'s result `e` (rolled out with `s`) and rewrites
    /// the progress file (atomically).
    pub fn record(
        &mut self,
        o: Opening,
        e: Estimate,
        s: &RolloutSettings,
    ) -> Result<(), ProgressError> {
        self.cells.push(Cell {
            away: o.away,
            opp_away: o.opp_away,
            post_crawford: o.post_crawford,
            mwc: e.mean,
            se: e.se,
            trials: s.trials,
            seed: s.seed,
            ply: s.ply,
        });
        let lines: String = self
            .cells
            .iter()
            .map(|c| serde_json::to_string(c).expect("a cell serializes") + "\n")
            .collect();
        write_atomic(&self.path, lines.as_bytes()).map_err(|source| ProgressError::Write {
            path: self.path.clone(),
            source,
        })
    }

    /// The largest standard error of a table entry: an entry averages two
    /// openings (each player first), so its error is half their errors'
    /// root sum of squares. Entries not rolled out yet do not count.
    pub fn worst_se(&self) -> f32 {
        openings(self.length)
            .iter()
            .filter_map(|o| Some(0.5 * self.find(*o)?.se.hypot(self.find(o.other_first())?.se)))
            .fold(0.0f32, f32::max)
    }

    /// Writes the finished table to `out` as gnubg MET XML (atomically),
    /// described by how it was made with `s`, and reads it back: the table
    /// as the file holds it (six decimals), so that what is reported now
    /// and what a later read gives are the same.
    pub fn write_table(
        &self,
        out: &Path,
        s: &RolloutSettings,
    ) -> Result<RolledTable, ProgressError> {
        let worst_se = self.worst_se();
        let mut met = self.table();
        met.description = format!(
            "Cubeful match rollouts of the opening by Sheshbesh with its own net: {} trials per score and first player, {}-ply checker play, seed {}, variance reduction {}; largest standard error {:.4}.",
            s.trials,
            s.ply,
            s.seed,
            if s.luck { "on" } else { "off" },
            worst_se
        );
        let xml = met.to_xml();
        write_atomic(out, xml.as_bytes()).map_err(|source| ProgressError::Write {
            path: out.to_path_buf(),
            source,
        })?;
        let met = Met::from_xml(&xml).map_err(|e| ProgressError::ReadBack {
            path: out.to_path_buf(),
            why: e.to_string(),
        })?;
        Ok(RolledTable { met, worst_se })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings() -> RolloutSettings {
        RolloutSettings {
            trials: 36,
            seed: 7,
            ..RolloutSettings::default()
        }
    }

    #[test]
    fn progress_is_kept_read_back_and_checked_line_by_line() {
        let dir = std::env::temp_dir().join(format!("shb-metprogress-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let out = dir.join("t.xml");
        let path = MetProgress::path_beside(&out);
        assert_eq!(path, dir.join("t.xml.cells"));
        let s = settings();
        let mut p = MetProgress::resume(&path, 3, &s).unwrap();
        let todo = p.todo();
        assert_eq!(todo.len(), p.needed());
        let first = todo[0];
        p.record(
            first,
            Estimate {
                mean: 0.5,
                se: 0.01,
            },
            &s,
        )
        .unwrap();
        let again = MetProgress::resume(&path, 3, &s).unwrap();
        assert_eq!(again.done(), 1);
        assert_eq!(again.todo(), todo[1..].to_vec());

        let other = RolloutSettings {
            seed: 8,
            ..s.clone()
        };
        let err = MetProgress::resume(&path, 3, &other)
            .err()
            .unwrap()
            .to_string();
        assert!(
            err.ends_with(
                "line 1: made with 36 trials, seed 7, ply 0; give the same settings or remove it"
            ),
            "{err}"
        );
        let err = MetProgress::resume(&path, 2, &s)
            .err()
            .map(|e| e.to_string());
        if openings(2).contains(&first) {
            assert!(err.is_none());
        } else {
            assert!(err.unwrap().contains("is no opening of a 2-point table"));
        }
        let line = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, format!("{line}{line}")).unwrap();
        let err = MetProgress::resume(&path, 3, &s).err().unwrap().to_string();
        assert!(
            err.contains("line 2: ") && err.contains("is there twice"),
            "{err}"
        );
        std::fs::write(&path, "{\"away\":1}\n").unwrap();
        let err = MetProgress::resume(&path, 3, &s).err().unwrap().to_string();
        assert!(
            err.starts_with(&format!(
                "bad progress file \"{}\", line 1: ",
                path.display()
            )),
            "{err}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_finished_table_is_written_and_read_back_with_its_error() {
        let dir = std::env::temp_dir().join(format!("shb-mettable-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let out = dir.join("t.xml");
        let s = settings();
        let mut p = MetProgress::resume(&MetProgress::path_beside(&out), 2, &s).unwrap();
        for o in p.todo() {
            p.record(
                o,
                Estimate {
                    mean: 0.5,
                    se: 0.02,
                },
                &s,
            )
            .unwrap();
        }
        assert!(p.todo().is_empty());
        let t = p.write_table(&out, &s).unwrap();
        assert!((t.worst_se - 0.5 * 0.02f32.hypot(0.02)).abs() < 1e-6);
        let text = std::fs::read_to_string(&out).unwrap();
        assert_eq!(Met::from_xml(&text).unwrap(), t.met);
        assert!(t.met.description.contains("36 trials per score"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
