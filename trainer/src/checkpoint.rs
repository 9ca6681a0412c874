//! Checkpoints: weights files written atomically, with the training state
//! in their provenance so a run resumes where it stopped.

use std::fs;
use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use sheshbesh_engine::evaluator::NetEvaluator;
use sheshbesh_engine::inputs::Layout;
use sheshbesh_engine::net::{Net, MAX_HIDDEN};
use sheshbesh_engine::weights;

/// What a checkpoint records besides the nets.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Provenance {
    /// The command line that made it.
    pub command: String,
    /// Seed of the run.
    pub seed: u64,
    /// Self-play games played so far, over all sessions.
    pub games: u64,
    /// Wall-clock seconds of training so far, over all sessions.
    pub seconds: f64,
    /// Strength checks so far (newest last).
    pub checks: Vec<Check>,
    /// Expert-iteration rounds done so far.
    #[serde(default)]
    pub distill_rounds: u64,
}

impl Provenance {
    /// The record of a run that has not played yet.
    pub fn new(command: &str, seed: u64) -> Provenance {
        Provenance {
            command: command.to_string(),
            seed,
            games: 0,
            seconds: 0.0,
            checks: Vec::new(),
            distill_rounds: 0,
        }
    }
}

/// One periodic strength measurement.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Check {
    /// Games trained when measured.
    pub games: u64,
    /// Opponent: `pubeval` or `previous`.
    pub against: String,
    /// Points per game won.
    pub ppg: f64,
    /// Its standard error.
    pub se: f64,
    /// Games in the duel.
    pub duel_games: u64,
}

/// Writes `bytes` to `path` through a temporary file in the same folder and
/// a rename, so a crash leaves either the old file or the new one.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
    let name = path
        .file_name()
        .with_context(|| format!("{} is not a file path", path.display()))?;
    let tmp = dir.unwrap_or(Path::new(".")).join(format!(
        ".{}.tmp{}",
        name.to_string_lossy(),
        std::process::id()
    ));
    let mut f = fs::File::create(&tmp).with_context(|| format!("creating {}", tmp.display()))?;
    f.write_all(bytes)
        .and_then(|_| f.sync_all())
        .with_context(|| format!("writing {}", tmp.display()))?;
    drop(f);
    fs::rename(&tmp, path).with_context(|| format!("renaming onto {}", path.display()))?;
    Ok(())
}

/// Saves nets and provenance.
pub fn save(path: &Path, ev: &NetEvaluator, prov: &Provenance) -> Result<()> {
    let text = serde_json::to_string(prov).expect("provenance serializes");
    write_atomic(path, &weights::encode(&ev.to_weights(&text)))
}

/// Loads a checkpoint (or any weights file; provenance then starts afresh).
pub fn load(path: &Path) -> Result<(NetEvaluator, Option<Provenance>)> {
    let bytes = fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    let set = weights::decode(&bytes).with_context(|| format!("loading {}", path.display()))?;
    let ev = NetEvaluator::from_weights(&set).with_context(|| format!("{}", path.display()))?;
    Ok((ev, serde_json::from_str(&set.provenance).ok()))
}

/// The mean of several checkpoints' nets (stochastic weight averaging):
/// checkpoints of one run late in training sit near one optimum, and their
/// mean is usually closer to it than any one of them. The provenance is the
/// last file's, with the averaging recorded in its command.
pub fn average(paths: &[std::path::PathBuf]) -> Result<(NetEvaluator, Provenance)> {
    anyhow::ensure!(!paths.is_empty(), "nothing to average");
    let mut loaded = Vec::new();
    for p in paths {
        loaded.push(load(p)?);
    }
    let (first, _) = &loaded[0];
    let mut mean = first.clone();
    let scale = 1.0 / loaded.len() as f32;
    for (ev, _) in &loaded[1..] {
        anyhow::ensure!(
            ev.contact.w1.dim() == first.contact.w1.dim()
                && ev.race.w1.dim() == first.race.w1.dim()
                && ev.crashed.as_ref().map(|n| n.w1.dim())
                    == first.crashed.as_ref().map(|n| n.w1.dim()),
            "checkpoints of different shapes cannot be averaged"
        );
    }
    // mean = first + sum over the others of (other - first) / n
    for (ev, _) in &loaded[1..] {
        mean.add_delta(ev, first, scale);
    }
    let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    let last = loaded.last().and_then(|(_, p)| p.clone());
    let prov = with_step(last, &format!("average of {}", names.join(" ")));
    Ok((mean, prov))
}

/// One net from several independently trained ones ([`Net::ensemble`]):
/// their output logits averaged, contact and race nets alike. The
/// provenance records every member's command, and its games and seconds
/// are the members' sums (the checks are the first member's).
pub fn ensemble(paths: &[std::path::PathBuf]) -> Result<(NetEvaluator, Provenance)> {
    anyhow::ensure!(
        paths.len() >= 2,
        "an ensemble needs at least two weights files"
    );
    let mut loaded = Vec::new();
    for p in paths {
        loaded.push(load(p)?);
    }
    let (first, _) = &loaded[0];
    anyhow::ensure!(
        loaded.iter().all(|(ev, _)| ev.layout == first.layout),
        "the weights files read different input layouts"
    );
    let contact: Vec<&Net> = loaded.iter().map(|(ev, _)| &ev.contact).collect();
    let race: Vec<&Net> = loaded.iter().map(|(ev, _)| &ev.race).collect();
    let mut merged = first.clone();
    merged.contact = Net::ensemble(&contact).ok_or_else(|| {
        anyhow::anyhow!("the contact nets together exceed {MAX_HIDDEN} hidden units")
    })?;
    merged.race = Net::ensemble(&race).ok_or_else(|| {
        anyhow::anyhow!("the race nets together exceed {MAX_HIDDEN} hidden units")
    })?;
    let crashed: Vec<&Net> = loaded
        .iter()
        .filter_map(|(ev, _)| ev.crashed.as_ref())
        .collect();
    merged.crashed = match crashed.len() {
        0 => None,
        n if n == loaded.len() => Some(Net::ensemble(&crashed).ok_or_else(|| {
            anyhow::anyhow!("the crashed nets together exceed {MAX_HIDDEN} hidden units")
        })?),
        _ => anyhow::bail!("some of the weights files have a crashed net and some do not"),
    };
    let mut prov = loaded[0]
        .1
        .clone()
        .unwrap_or_else(|| Provenance::new("", 0));
    let members: Vec<String> = loaded
        .iter()
        .zip(paths)
        .map(|((_, p), path)| match p {
            Some(p) => format!("{} [{}]", path.display(), p.command),
            None => path.display().to_string(),
        })
        .collect();
    prov.command = format!("ensemble of {}", members.join(" + "));
    // The ensemble holds every member's training, not only the first's.
    prov.games = loaded
        .iter()
        .filter_map(|(_, p)| p.as_ref())
        .map(|p| p.games)
        .sum();
    prov.seconds = loaded
        .iter()
        .filter_map(|(_, p)| p.as_ref())
        .map(|p| p.seconds)
        .sum();
    Ok((merged, prov))
}

/// A file's provenance (or a blank one) with `step` appended to its
/// command: what was done to the nets after training.
fn with_step(prov: Option<Provenance>, step: &str) -> Provenance {
    let mut prov = prov.unwrap_or_else(|| Provenance::new("", 0));
    prov.command = format!("{} ; {step}", prov.command);
    prov
}

/// A weights file's nets re-read in a larger input layout
/// ([`Net::widened`]): the new inputs start at zero weight, so training
/// continues from the same play and learns what the new inputs add.
pub fn widen(path: &Path, to: Layout) -> Result<(NetEvaluator, Provenance)> {
    let (mut ev, prov) = load(path)?;
    let from = ev.layout;
    let refuse = || {
        anyhow::anyhow!(
            "{} reads input layout {}, which layout {} does not extend",
            path.display(),
            from.id(),
            to.id()
        )
    };
    ev.contact = ev.contact.widened(from, to).ok_or_else(refuse)?;
    ev.race = ev.race.widened(from, to).ok_or_else(refuse)?;
    if let Some(c) = &ev.crashed {
        ev.crashed = Some(c.widened(from, to).ok_or_else(refuse)?);
    }
    ev.layout = to;
    let prov = with_step(
        prov,
        &format!("widened from layout {} to {}", from.id(), to.id()),
    );
    Ok((ev, prov))
}

/// A weights file's nets with a second hidden layer of `hidden2` units in
/// the contact (and crashed) net ([`deepen_nets`]). `seed` draws the new
/// layer's weights.
pub fn deepen(path: &Path, hidden2: usize, seed: u64) -> Result<(NetEvaluator, Provenance)> {
    use rand::SeedableRng;
    let (mut ev, prov) = load(path)?;
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
    deepen_nets(&mut ev, hidden2, &mut rng)
        .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    let prov = with_step(
        prov,
        &format!("second hidden layer of {hidden2} units added (seed {seed})"),
    );
    Ok((ev, prov))
}

/// Gives the contact (and crashed) net a second hidden layer of `hidden2`
/// units ([`Net::deepened`]): its output weights start at zero, so training
/// continues from the same play and learns what the depth adds.
pub fn deepen_nets(ev: &mut NetEvaluator, hidden2: usize, rng: &mut impl rand::Rng) -> Result<()> {
    let refuse = |net: &Net| {
        if net.hidden2() > 0 {
            anyhow::anyhow!("the net already has a second hidden layer")
        } else {
            anyhow::anyhow!(
                "a second hidden layer needs a multiple of {} up to {} units, not {hidden2}",
                sheshbesh_engine::net::BLOCK2,
                sheshbesh_engine::net::MAX_HIDDEN2
            )
        }
    };
    ev.contact = ev
        .contact
        .deepened(hidden2, rng)
        .ok_or_else(|| refuse(&ev.contact))?;
    if let Some(c) = &ev.crashed {
        ev.crashed = Some(c.deepened(hidden2, rng).ok_or_else(|| refuse(c))?);
    }
    Ok(())
}

/// A weights file's nets with a net of their own for crashed positions,
/// starting as a copy of the contact net (same play): training then
/// specialises it.
pub fn split_crashed(path: &Path) -> Result<(NetEvaluator, Provenance)> {
    let (mut ev, prov) = load(path)?;
    anyhow::ensure!(
        ev.crashed.is_none(),
        "{} already has a crashed net",
        path.display()
    );
    ev.crashed = Some(ev.contact.clone());
    let prov = with_step(prov, "crashed net split from the contact net");
    Ok((ev, prov))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn averaging_two_checkpoints_gives_the_midpoint() {
        let dir = std::env::temp_dir().join(format!("shb-avg-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let layout = sheshbesh_engine::inputs::Layout::DEFAULT;
        let a = crate::train::fresh(1, 32, 32, layout);
        let b = crate::train::fresh(2, 32, 32, layout);
        let (pa, pb) = (dir.join("a.w"), dir.join("b.w"));
        save(&pa, &a, &Provenance::new("a", 1)).unwrap();
        save(&pb, &b, &Provenance::new("b", 2)).unwrap();
        let (m, prov) = average(&[pa.clone(), pb]).unwrap();
        let want = (a.contact.w1[[3, 4]] + b.contact.w1[[3, 4]]) / 2.0;
        assert!((m.contact.w1[[3, 4]] - want).abs() < 1e-6);
        assert!(prov.command.contains("average of"));
        let (same, _) = average(&[pa.clone(), pa]).unwrap();
        assert_eq!(same.contact, a.contact);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn deepening_keeps_the_play_and_refuses_twice() {
        let dir = std::env::temp_dir().join(format!("shb-deep-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("a.weights");
        let ev = crate::train::fresh(1, 32, 32, Layout::DEFAULT);
        save(&path, &ev, &Provenance::new("first", 1)).unwrap();
        let (deep, prov) = deepen(&path, 16, 2).unwrap();
        assert_eq!((deep.contact.hidden2(), deep.race.hidden2()), (16, 0));
        assert!(prov.command.contains("second hidden layer of 16"));
        let pos = sheshbesh_engine::position::Position::start();
        use sheshbesh_engine::evaluator::Evaluator;
        assert_eq!(ev.eval(&pos), deep.eval(&pos));
        save(&path, &deep, &prov).unwrap();
        let again = deepen(&path, 16, 2).unwrap_err().to_string();
        assert!(again.contains("already has"), "{again}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn an_ensemble_records_all_its_members_training() {
        let dir = std::env::temp_dir().join(format!("shb-ens-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let layout = sheshbesh_engine::inputs::Layout::DEFAULT;
        let (pa, pb) = (dir.join("a.w"), dir.join("b.w"));
        let mut prov_b = Provenance::new("train b", 2);
        prov_b.games = 300;
        prov_b.seconds = 2.0;
        let mut prov_a = Provenance::new("train a", 1);
        prov_a.games = 200;
        prov_a.seconds = 1.0;
        save(&pa, &crate::train::fresh(1, 32, 32, layout), &prov_a).unwrap();
        save(&pb, &crate::train::fresh(2, 64, 32, layout), &prov_b).unwrap();
        let (ev, prov) = ensemble(&[pa.clone(), pb]).unwrap();
        assert_eq!((ev.contact.hidden(), ev.race.hidden()), (96, 64));
        assert_eq!((prov.games, prov.seconds), (500, 3.0));
        assert!(prov.command.contains("train a") && prov.command.contains("train b"));
        assert!(ensemble(&[pa]).is_err());
        fs::remove_dir_all(&dir).unwrap();
    }
}
