//! The training jobs that start from a checkpoint, as the CLI and the
//! Python cluster run them: rounds of expert iteration ([`ExpertJob`]),
//! a round's labelling handed out in pieces ([`LabelJob`]), and fitting a
//! net to its own rollouts ([`CalibrateJob`]). Self-play, which may start
//! from nothing, is [`crate::train::train`] with its own config.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use serde::Serialize;
use sheshbesh_engine::evaluation::bearoff;
use sheshbesh_engine::evaluation::evaluator::NetEvaluator;

use crate::calibrate::{self, CalibrateConfig, Calibration};
use crate::checkpoint::{self, Provenance};
use crate::expert::{self, label_file, ExpertConfig, LabelSource, RoundLabels};
use crate::labels::piece_path;
use crate::train::{checks, mix};

/// What expert iteration starts from: the checkpoint's nets, the teacher
/// that labels for them (`None`: they teach themselves) and the
/// checkpoint's training record.
pub struct ExpertNets {
    /// The checkpoint's nets, with the bear-off databases.
    pub ev: NetEvaluator,
    /// The teacher's nets, with the bear-off databases.
    pub teacher: Option<NetEvaluator>,
    /// The checkpoint's record (its rounds so far number the next).
    pub prov: Provenance,
}

impl ExpertNets {
    /// Loads the checkpoint and the teacher.
    pub fn load(checkpoint: &Path, teacher: Option<&Path>) -> Result<ExpertNets> {
        let (ev, prov) = checkpoint::load(checkpoint)
            .context("expert iteration starts from a checkpoint; train by self-play first")?;
        let prov = prov.context("the checkpoint carries no training record")?;
        let db = bearoff::load_or_build(&bearoff::default_path())
            .context("building the bear-off databases")?;
        let db = Arc::new(db);
        let teacher = match teacher {
            Some(path) => Some(checkpoint::load(path)?.0.with_bearoff(Arc::clone(&db))),
            None => None,
        };
        Ok(ExpertNets {
            ev: ev.with_bearoff(db),
            teacher,
            prov,
        })
    }
}

/// The seed of the expert-iteration round after `rounds_done` rounds.
pub fn round_seed(seed: u64, rounds_done: u64) -> u64 {
    mix(seed, rounds_done, 0xD1)
}

/// Where round `round` (from 1) keeps its labels in the cache `dir` (see
/// [`expert::label_file`] for decisions).
pub fn round_cache(dir: &Path, round: u64) -> PathBuf {
    dir.join(format!("round-{round}.labels"))
}

/// Figures to five places, for the log (regrets are a few thousandths).
fn round5(xs: impl Iterator<Item = f64>) -> Vec<f64> {
    xs.map(|x| (x * 1e5).round() / 1e5).collect()
}

/// Rounds of expert iteration from a checkpoint (`train expert`): each
/// samples positions, labels them by search, fits the nets, checks their
/// strength and rewrites the checkpoint. The nets keep the checkpoint's
/// shape, so nothing of self-play's config applies.
#[derive(Clone, Debug)]
pub struct ExpertJob {
    /// The checkpoint the rounds start from and rewrite.
    pub checkpoint: PathBuf,
    /// Seed of the samples and rolls (each round's is drawn from it and
    /// the rounds done so far).
    pub seed: u64,
    /// Rounds to run.
    pub rounds: u64,
    /// Duplicate-dice pairs of the strength check after each round.
    pub check_pairs: u64,
    /// The command line, for the checkpoint's record.
    pub command: String,
    /// What each round labels and how it fits.
    pub round: ExpertConfig,
}

/// The next round of an [`ExpertJob`] as pieces to label anywhere: what a
/// local run with a cache would label, and where it keeps them.
#[derive(Clone, Debug, Serialize)]
pub struct LabelJob {
    /// The round, from 1.
    pub round: u64,
    /// Rounds the job asks for (each labels from the last one's fit).
    pub rounds: u64,
    /// The checkpoint the round starts from.
    pub checkpoint: PathBuf,
    /// The teacher's weights, if not the checkpoint's nets.
    pub teacher: Option<PathBuf>,
    /// The round's label file, which the local run joins the pieces into.
    pub label_file: PathBuf,
    /// Where each piece is kept until all are made, in piece order.
    pub piece_files: Vec<PathBuf>,
}

impl ExpertJob {
    /// Runs the rounds: the nets and the checkpoint's record after them.
    /// A run that labelled its shard while other shards' pieces are
    /// missing stops there, fitting nothing and leaving the checkpoint as
    /// it was.
    pub fn run(&self) -> Result<(NetEvaluator, Provenance)> {
        let d = &self.round;
        let ExpertNets {
            mut ev,
            teacher,
            mut prov,
        } = ExpertNets::load(&self.checkpoint, d.teacher.as_deref())?;
        if !prov.command.contains(&self.command) {
            prov.command = format!("{} ; {}", prov.command, self.command);
        }
        let start = Instant::now();
        let seconds_before = prov.seconds;
        for _ in 0..self.rounds {
            let previous = ev.clone();
            let seed = round_seed(self.seed, prov.distill_rounds);
            let cache = d
                .cache_dir
                .as_ref()
                .map(|dir| round_cache(dir, prov.distill_rounds + 1));
            let Some(rmse) = expert::round(&mut ev, teacher.as_ref(), d, seed, cache.as_deref())?
            else {
                eprintln!(
                    "{{\"round\":{},\"shard\":{},\"shards\":{},\"labelled\":true,\"fitted\":false}}",
                    prov.distill_rounds + 1,
                    d.shard.index,
                    d.shard.count
                );
                break;
            };
            prov.distill_rounds += 1;
            prov.seconds = seconds_before + start.elapsed().as_secs_f64();
            let (c, p) = checks(&ev, &previous, self.check_pairs, prov.games);
            // Value labels are fitted by their error, decisions by their regret.
            let measure = match d.labels {
                LabelSource::Search | LabelSource::Luck => "rmse",
                LabelSource::Decisions { .. } => "regret",
            };
            eprintln!(
                "{{\"round\":{},\"seconds\":{:.0},\"fit_{measure}\":{:?},\"held_out_{measure}\":{:?},\"pubeval\":[{:.4},{:.4}],\"previous\":[{:.4},{:.4}]}}",
                prov.distill_rounds, prov.seconds, round5(rmse.iter().map(|p| p.fitted)), round5(rmse.iter().map(|p| p.held_out)), c.ppg, c.se, p.ppg, p.se
            );
            prov.checks.push(c);
            prov.checks.push(p);
            checkpoint::save(&self.checkpoint, &ev, &prov)?;
        }
        Ok((ev, prov))
    }

    /// The next round from the nets of `checkpoint` and `teacher`: `f` is
    /// given the round's number and its sample.
    fn next_round<T>(
        &self,
        checkpoint: &Path,
        teacher: Option<&Path>,
        f: impl FnOnce(u64, &RoundLabels) -> T,
    ) -> Result<T> {
        let nets = ExpertNets::load(checkpoint, teacher)?;
        let seed = round_seed(self.seed, nets.prov.distill_rounds);
        let work = RoundLabels::new(nets.teacher.as_ref().unwrap_or(&nets.ev), &self.round, seed);
        Ok(f(nets.prov.distill_rounds + 1, &work))
    }

    /// Samples the next round and says what it labels ([`LabelJob`]);
    /// the job must keep its labels in a cache.
    pub fn label_job(&self) -> Result<LabelJob> {
        let Some(dir) = self.round.cache_dir.as_deref() else {
            bail!("labels made elsewhere need --cache DIR to be kept in");
        };
        let teacher = self.round.teacher.as_deref();
        let (round, pieces) = self.next_round(&self.checkpoint, teacher, |round, work| {
            (round, work.pieces())
        })?;
        let label_file = label_file(&round_cache(dir, round), self.round.labels);
        Ok(LabelJob {
            round,
            rounds: self.rounds,
            checkpoint: self.checkpoint.clone(),
            teacher: self.round.teacher.clone(),
            piece_files: (0..pieces).map(|k| piece_path(&label_file, k)).collect(),
            label_file,
        })
    }

    /// The texts of pieces `pieces` of the next round, with the nets read
    /// from `checkpoint` and `teacher` (copies of the job's, perhaps on
    /// another machine): each is the file a local run keeps for that piece.
    pub fn label_pieces(
        &self,
        checkpoint: &Path,
        teacher: Option<&Path>,
        pieces: &[usize],
    ) -> Result<Vec<String>> {
        self.next_round(checkpoint, teacher, |_, work| {
            if let Some(&k) = pieces.iter().find(|&&k| k >= work.pieces()) {
                bail!("piece {k}: the round has {} pieces", work.pieces());
            }
            Ok(pieces.iter().map(|&k| work.piece_text(k)).collect())
        })?
    }
}

/// Fitting a checkpoint's net to its own rollouts (`train calibrate`).
#[derive(Clone, Debug)]
pub struct CalibrateJob {
    /// The checkpoint whose nets label and are fitted; rewritten with the
    /// calibration in its record.
    pub checkpoint: PathBuf,
    /// The label file: the rollouts, kept in pieces beside it as they are
    /// made, reused when it exists.
    pub labels: PathBuf,
    /// The command line, for the checkpoint's record.
    pub command: String,
    /// What is rolled out and what is fitted.
    pub config: CalibrateConfig,
}

impl CalibrateJob {
    /// Labels the sample from the checkpoint's nets (in pieces,
    /// resumable), then calibrates the config's net and rewrites the
    /// checkpoint (atomically). `None` while other shards' pieces are
    /// missing: the run that completes the labels fits.
    pub fn run(&self) -> Result<Option<Calibration>> {
        let ExpertNets { mut ev, prov, .. } = ExpertNets::load(&self.checkpoint, None)?;
        let Some(examples) = calibrate::label(&ev, &self.config, &self.labels)? else {
            return Ok(None);
        };
        let c = calibrate::calibrate(&mut ev, &self.config, &examples, &self.command);
        let mut prov = prov;
        prov.calibrations.push(c.clone());
        checkpoint::save(&self.checkpoint, &ev, &prov)?;
        Ok(Some(c))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::labels::Shard;
    use crate::train::{tiny, train};
    use sheshbesh_engine::evaluation::inputs::Layout;

    /// A small self-play checkpoint in `dir`.
    fn checkpoint_in(dir: &Path) -> PathBuf {
        let path = dir.join("c.weights");
        let mut cfg = tiny(path.clone(), 20);
        cfg.layout = Layout::V3;
        cfg.round_games = 5;
        cfg.resume = false;
        train(&cfg).unwrap();
        path
    }

    fn job(checkpoint: PathBuf, cache: Option<PathBuf>) -> ExpertJob {
        ExpertJob {
            checkpoint,
            seed: 5,
            rounds: 1,
            check_pairs: 2,
            command: "test expert".into(),
            round: ExpertConfig {
                labels: LabelSource::Search,
                positions: 30,
                ply: 0,
                epochs: 1,
                alpha: 0.01,
                alpha_end: 0.01,
                sample: crate::expert::SampleSource::SelfPlay { explore: 0.1 },
                teacher: None,
                cache_dir: cache,
                shard: Shard::ALL,
                batch: 0,
                temperature: 0.02,
                anchor: 1.0,
                phase: None,
                fit_net: None,
                class: crate::classes::PositionClass::All,
                reanchor: false,
            },
        }
    }

    #[test]
    fn pieces_labelled_apart_join_into_the_round_a_local_run_fits() {
        let dir = std::env::temp_dir().join(format!("shb-jobs-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let ckpt = checkpoint_in(&dir);
        let err = job(ckpt.clone(), None).label_job().unwrap_err();
        assert!(err.to_string().contains("--cache"), "{err}");

        let j = job(ckpt.clone(), Some(dir.join("cache")));
        let lj = j.label_job().unwrap();
        assert_eq!((lj.round, lj.rounds), (1, 1));
        assert_eq!(lj.label_file, dir.join("cache").join("round-1.labels"));
        assert_eq!(lj.piece_files.len(), 1, "30 positions make one piece");
        let err = j.label_pieces(&ckpt, None, &[1]).unwrap_err();
        assert_eq!(err.to_string(), "piece 1: the round has 1 pieces");

        // Made "elsewhere", written where the local run keeps them.
        let texts = j.label_pieces(&ckpt, None, &[0]).unwrap();
        std::fs::create_dir_all(lj.piece_files[0].parent().unwrap()).unwrap();
        std::fs::write(&lj.piece_files[0], &texts[0]).unwrap();
        let (_, prov) = j.run().unwrap();
        assert_eq!(prov.distill_rounds, 1);
        assert!(prov.command.ends_with("; test expert"), "{}", prov.command);
        assert!(
            lj.label_file.exists(),
            "the pieces joined into the label file"
        );
        let (_, saved) = checkpoint::load(&ckpt).unwrap();
        assert_eq!(saved.unwrap().distill_rounds, 1);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
