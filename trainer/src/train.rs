//! The training loop: parallel self-play in rounds, checkpoints and
//! strength checks.
//!
//! # Parallel games, and why it is sound
//! Play is split into a fixed number of *shards* (not threads). In each
//! round every shard copies the current nets, plays `round_games` games on
//! its copy with its own dice (seeded by run seed, round and shard), and
//! learns from them as it goes. At the end of the round the shards' weight
//! changes are added to the nets. This is SGD with a bounded delay: each
//! shard's steps were computed on weights at most one round old, and with
//! short rounds and small steps the sum equals the sequential run to first
//! order in the learning rate. Because the shards, not the threads, fix
//! what is computed, a run is bit-identical on any number of threads,
//! one included.

use std::path::PathBuf;
use std::time::Instant;

use std::sync::Arc;

use anyhow::{Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use sheshbesh_engine::analysis::duel::duel_parallel;
use sheshbesh_engine::evaluation::bearoff;
use sheshbesh_engine::evaluation::evaluator::NetEvaluator;
use sheshbesh_engine::evaluation::inputs::Layout;
use sheshbesh_engine::evaluation::net::Net;
use sheshbesh_engine::search::chooser::{Greedy, Pubeval};

use crate::checkpoint::{self, Check, Provenance};
use crate::schedule::Schedule;
use crate::selfplay::{play_and_learn, Scratch};

/// Everything a self-play run is configured by (expert iteration and
/// calibration have their own jobs in [`crate::jobs`]).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SelfplayConfig {
    /// Seed for the initial weights and all dice.
    pub seed: u64,
    /// Train until this many games in total (resumed runs count earlier
    /// sessions' games).
    pub games: u64,
    /// TD lambda.
    pub lambda: f32,
    /// Learning rate schedule.
    pub schedule: Schedule,
    /// Hidden units of the contact net (new runs only).
    pub hidden: usize,
    /// Hidden units of the race net (new runs only).
    pub race_hidden: usize,
    /// Units of the contact net's second hidden layer (new runs only; 0:
    /// none).
    #[serde(default)]
    pub hidden2: usize,
    /// Input layout (new runs only).
    pub layout: Layout,
    /// Independent game streams per round.
    pub shards: usize,
    /// Games per shard per round.
    pub round_games: u64,
    /// Checkpoint file (written every `checkpoint_every` games and at the end).
    pub checkpoint: PathBuf,
    /// Games between checkpoints.
    pub checkpoint_every: u64,
    /// Games between strength checks (0: never).
    pub check_every: u64,
    /// Duplicate-dice pairs per strength check.
    pub check_pairs: u64,
    /// Continue from the checkpoint file if it exists.
    pub resume: bool,
    /// The command line, for provenance.
    pub command: String,
    /// Draw a progress bar.
    pub progress: bool,
}

pub(crate) fn mix(seed: u64, round: u64, shard: u64) -> u64 {
    let mut z = seed ^ round.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ shard.rotate_left(40);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z ^ (z >> 31)
}

/// A fresh pair of nets reading `layout`.
pub fn fresh(seed: u64, hidden: usize, race_hidden: usize, layout: Layout) -> NetEvaluator {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    NetEvaluator {
        contact: Net::random(layout.inputs(), hidden, &mut rng),
        race: Net::random(layout.inputs(), race_hidden, &mut rng),
        blitz: None,
        back_game: None,
        bearoff: None,
        layout,
        luck: None,
        prefilter: None,
    }
}

/// 0-ply strength against pubeval.
pub fn check_pubeval(ev: &NetEvaluator, pairs: u64, seed: u64) -> Check {
    let r = duel_parallel(|| Greedy::new(ev), || Pubeval, pairs, seed);
    Check {
        games: 0,
        against: "pubeval".into(),
        ppg: r.ppg,
        se: r.se,
        duel_games: r.games,
    }
}

/// The periodic checks: 0-ply against pubeval and against `previous`, both
/// on duplicate dice with fixed seeds (so checks compare like with like).
pub(crate) fn checks(
    ev: &NetEvaluator,
    previous: &NetEvaluator,
    pairs: u64,
    games: u64,
) -> (Check, Check) {
    let mut c = check_pubeval(ev, pairs, 1_000_003);
    c.games = games;
    let r = duel_parallel(
        || Greedy::new(ev),
        || Greedy::new(previous),
        pairs,
        2_000_003,
    );
    let p = Check {
        games,
        against: "previous".into(),
        ppg: r.ppg,
        se: r.se,
        duel_games: r.games,
    };
    (c, p)
}

/// Runs training as configured; returns the final nets and provenance.
pub fn train(cfg: &SelfplayConfig) -> Result<(NetEvaluator, Provenance)> {
    let (mut ev, mut prov) = if cfg.resume && cfg.checkpoint.exists() {
        let (ev, prov) = checkpoint::load(&cfg.checkpoint)?;
        let prov = prov.unwrap_or_else(|| Provenance::new(&cfg.command, cfg.seed));
        (ev, prov)
    } else {
        let mut ev = fresh(cfg.seed, cfg.hidden, cfg.race_hidden, cfg.layout);
        if cfg.hidden2 > 0 {
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(cfg.seed ^ 0x2);
            crate::surgery::add_second_layer(&mut ev, cfg.hidden2, &mut rng)?;
        }
        (ev, Provenance::new(&cfg.command, cfg.seed))
    };
    let db = bearoff::load_or_build(&bearoff::default_path())
        .context("building the bear-off databases")?;
    ev = ev.with_bearoff(Arc::new(db));
    if prov.command != cfg.command && !prov.command.contains(&cfg.command) {
        prov.command = format!("{} ; {}", prov.command, cfg.command);
    }
    let per_round = cfg.shards as u64 * cfg.round_games;
    let bar = if cfg.progress {
        ProgressBar::new(cfg.games)
    } else {
        ProgressBar::hidden()
    };
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} games  {per_sec}  eta {eta}  {msg}")
            .expect("template"),
    );
    bar.set_position(prov.games);
    let start = Instant::now();
    let seconds_before = prov.seconds;
    let mut previous = ev.clone();
    let mut sq = 0.0f64;
    let mut plies = 0u64;
    while prov.games < cfg.games {
        let round = prov.games / per_round;
        let alpha = cfg.schedule.alpha(prov.games);
        let base = ev.clone();
        let results: Vec<(NetEvaluator, f64, u64)> = (0..cfg.shards as u64)
            .into_par_iter()
            .map(|shard| {
                let mut local = base.clone();
                let mut rng = Xoshiro256PlusPlus::seed_from_u64(mix(cfg.seed, round, shard));
                let mut scratch = Scratch::default();
                let (mut e, mut n) = (0.0, 0u64);
                for _ in 0..cfg.round_games {
                    let st = play_and_learn(&mut local, &mut rng, cfg.lambda, alpha, &mut scratch);
                    e += st.sq_error;
                    n += u64::from(st.plies);
                }
                (local, e, n)
            })
            .collect();
        for (local, e, n) in &results {
            crate::surgery::add_delta_all(&mut ev, local, &base, 1.0);
            sq += e;
            plies += n;
        }
        prov.games += per_round;
        prov.seconds = seconds_before + start.elapsed().as_secs_f64();
        bar.set_position(prov.games);
        if cfg.check_every > 0 && prov.games % cfg.check_every < per_round {
            let (c, p) = checks(&ev, &previous, cfg.check_pairs, prov.games);
            bar.set_message(format!(
                "vs pubeval {:+.3} ± {:.3}, vs previous {:+.3}, td-rmse {:.3}",
                c.ppg,
                c.se,
                p.ppg,
                (sq / plies.max(1) as f64).sqrt()
            ));
            eprintln!(
                "{{\"games\":{},\"seconds\":{:.0},\"alpha\":{:.4},\"pubeval\":[{:.4},{:.4}],\"previous\":[{:.4},{:.4}],\"td_rmse\":{:.4}}}",
                prov.games, prov.seconds, alpha, c.ppg, c.se, p.ppg, p.se,
                (sq / plies.max(1) as f64).sqrt()
            );
            sq = 0.0;
            plies = 0;
            prov.checks.push(c);
            prov.checks.push(p);
            previous = ev.clone();
        }
        if prov.games % cfg.checkpoint_every < per_round || prov.games >= cfg.games {
            checkpoint::save(&cfg.checkpoint, &ev, &prov)?;
        }
    }
    bar.finish();
    Ok((ev, prov))
}

/// A small self-play run of `games` games into `path`, for tests.
#[cfg(test)]
pub(crate) fn tiny(path: PathBuf, games: u64) -> SelfplayConfig {
    SelfplayConfig {
        seed: 9,
        games,
        lambda: 0.0,
        schedule: Schedule {
            start: 0.05,
            end: 0.05,
            half_life: 1.0,
        },
        hidden: 32,
        race_hidden: 32,
        hidden2: 0,
        layout: Layout::V2,
        shards: 2,
        round_games: 2,
        checkpoint: path,
        checkpoint_every: 4,
        check_every: 0,
        check_pairs: 0,
        resume: true,
        command: "test".into(),
        progress: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resuming_gives_the_same_nets_as_one_run() {
        let dir = std::env::temp_dir().join(format!("shb-train-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (a, _) = train(&tiny(dir.join("a.bin"), 8)).unwrap();
        train(&tiny(dir.join("b.bin"), 4)).unwrap();
        let (b, prov) = train(&tiny(dir.join("b.bin"), 8)).unwrap();
        assert_eq!(prov.games, 8);
        assert_eq!(a, b);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A short run of `layout` with a second hidden layer of `hidden2`
    /// units (0: none) beats random play: one test per shape, so the
    /// harness runs them side by side.
    fn a_short_run_learns_to_beat_random_play(layout: Layout, hidden2: usize) {
        use sheshbesh_engine::analysis::duel::duel;
        use sheshbesh_engine::search::chooser::RandomPlayer;
        let dir = std::env::temp_dir().join(format!(
            "shb-train2-{}-{}-{hidden2}",
            std::process::id(),
            layout.id()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let mut cfg = tiny(dir.join("c.bin"), 400);
        cfg.round_games = 10;
        cfg.checkpoint_every = 1000;
        cfg.layout = layout;
        cfg.hidden2 = hidden2;
        let (ev, _) = train(&cfg).unwrap();
        assert_eq!((ev.layout, ev.contact.hidden2()), (layout, hidden2));
        let r = duel(&mut Greedy::new(&ev), &mut RandomPlayer::new(1), 100, 5);
        assert!(r.ppg - 2.0 * r.se > 0.3, "{layout:?} {hidden2}: {r:?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_short_run_learns_to_beat_random_play_in_layout_2() {
        a_short_run_learns_to_beat_random_play(Layout::V2, 0);
    }

    #[test]
    fn a_short_run_learns_to_beat_random_play_in_layout_3() {
        a_short_run_learns_to_beat_random_play(Layout::V3, 0);
    }

    #[test]
    fn a_short_run_learns_to_beat_random_play_with_two_hidden_layers() {
        a_short_run_learns_to_beat_random_play(Layout::V3, 16);
    }
}
