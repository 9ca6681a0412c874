//! Expert iteration: teach the net what its own search knows.
//!
//! A round samples positions from self-play, labels each with the
//! evaluation of a `ply`-ply search on the current nets, and fits the nets
//! to those labels by a few passes of gradient descent. The search looks
//! at every roll and reply, so its values are better informed than the
//! net's own; after fitting, the 0-ply net plays closer to the search, and
//! the next round's search starts from a stronger net. No outside engine is
//! consulted: the labels are our own search's.

use std::fs;
use std::path::Path;
use std::sync::atomic::AtomicBool;

use crate::adam::BatchFit;
use crate::decisions;
use crate::selfplay::roll;
use anyhow::{Context, Result};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use rayon::prelude::*;
use sheshbesh_engine::evaluator::{candidate_values, final_result, Evaluator, NetEvaluator, Phase};
use sheshbesh_engine::inputs::SparseInputs;
use sheshbesh_engine::movegen::{generate, MoveList};
use sheshbesh_engine::rollout::{self, rollout, RolloutSettings};
use sheshbesh_engine::search::{shortlist, MoveFilter, Ply};
use sheshbesh_engine::{position_id, Position, Probs};

/// One labelled position.
#[derive(Clone, Debug)]
pub struct Example {
    /// Which net learns it.
    pub phase: Phase,
    /// The position (player on roll).
    pub position: Position,
    /// The search's probabilities.
    pub target: Probs,
}

/// Settings of a distillation round.
#[derive(Clone, Debug)]
pub struct DistillConfig {
    /// Positions sampled and labelled.
    pub positions: usize,
    /// Search depth of the labels.
    pub ply: u32,
    /// Passes over the labelled positions.
    pub epochs: usize,
    /// Learning rate of the fit.
    pub alpha: f32,
    /// Learning rate of the last pass; the rate falls geometrically from
    /// `alpha` to it, so early passes move far and late ones settle.
    pub alpha_end: f32,
    /// Chance that a sampling game plays the second-best play instead of
    /// the best (variety in the sampled positions).
    pub explore: f64,
    /// Label by a luck-adjusted 0-ply rollout of this many trials instead of
    /// a search (0: search). Rollouts see how games actually go on, which
    /// a search's fixed point with the net it searches cannot.
    pub rollout_trials: u32,
    /// Truncate those rollouts after this many plies.
    pub truncate: Option<u32>,
    /// Weights whose search labels (and whose self-play samples) the
    /// positions instead of the nets being trained: a stronger, slower net
    /// (an ensemble) teaching a fast one. `None`: the nets teach themselves.
    pub teacher: Option<std::path::PathBuf>,
    /// Directory keeping each round's labels (`round-N.labels`), reused
    /// when present.
    pub cache_dir: Option<std::path::PathBuf>,
    /// Label the plays competing for a roll instead of the sampled
    /// positions: for each sampled position a roll, and the best
    /// `candidates` plays at 0-ply (within [`MoveFilter::ROOT`]'s margin)
    /// become the positions labelled (0: the sampled positions
    /// themselves). Self-play only ever trains the play it picks, so a play
    /// it wrongly rejects is never corrected; these are the values its
    /// choices turn on.
    pub candidates: usize,
    /// Fit by [`crate::adam::Adam`] on batches of this many positions (0: plain
    /// descent, one position at a time).
    pub batch: usize,
    /// Label every turn of this many luck-adjusted self-play games
    /// instead ([`rollout::labelled_trial`]): unbiased labels, noisy one by
    /// one, at a label per turn for the price of one rollout trial (0: off).
    pub games: u32,
    /// Label whole decisions instead ([`crate::decisions`]): for each
    /// sampled position a roll and its best `decisions` plays at 0-ply
    /// (within [`MoveFilter::ROOT`]'s margin) valued by the `ply`-ply
    /// search, fitted by the search's regret of the nets' choice (0: off).
    pub decisions: usize,
    /// Softmax temperature of the decision fit, in equity.
    pub temperature: f32,
    /// Weight of the decision fit's anchor to the nets' own outputs.
    pub anchor: f32,
}

/// Positions from self-play games of `ev`, every position where a side is
/// on roll and no database knows the answer. Game `g` has its own dice, so
/// the sample is the same on any number of threads.
pub fn sample(ev: &NetEvaluator, n: usize, explore: f64, seed: u64) -> Vec<Position> {
    let per_game = 60;
    let games = n.div_ceil(per_game / 2).max(1);
    let mut all: Vec<Position> = (0..games as u64)
        .into_par_iter()
        .map_init(
            || (MoveList::new(), Vec::new()),
            |(list, values), g| {
                let mut rng =
                    Xoshiro256PlusPlus::seed_from_u64(seed ^ g.wrapping_mul(0x9E37_79B9_7F4A_7C15));
                let mut out = Vec::with_capacity(per_game);
                let mut pos = Position::start();
                loop {
                    let dice = roll(&mut rng);
                    if ev.exact(&pos).is_none() && !(out.is_empty() && pos == Position::start()) {
                        out.push(pos);
                    }
                    generate(&pos, dice, list);
                    candidate_values(ev, list.as_slice(), values);
                    let mut order: Vec<usize> = (0..values.len()).collect();
                    order.sort_by(|&a, &b| values[b].equity().total_cmp(&values[a].equity()));
                    let pick = if order.len() > 1 && rng.gen_bool(explore) {
                        order[1]
                    } else {
                        order[0]
                    };
                    let after = list.as_slice()[pick].position;
                    if after.me.off() == 15 {
                        break;
                    }
                    pos = after.swapped();
                }
                out
            },
        )
        .flatten()
        .collect();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    all.shuffle(&mut rng);
    all.truncate(n);
    all
}

/// The plays competing for one roll of each position: a roll drawn from
/// `seed` and the position's index, and the boards of the best `keep` plays
/// at 0-ply within [`MoveFilter::ROOT`]'s margin, from the side to roll
/// next. Boards a database knows or that end the game are left out (there
/// is nothing to learn).
pub fn competing_plays(
    ev: &NetEvaluator,
    positions: &[Position],
    keep: usize,
    seed: u64,
) -> Vec<Position> {
    let filter = MoveFilter {
        keep,
        margin: MoveFilter::ROOT.margin,
    };
    best_plays_of_a_roll(ev, positions, seed ^ 0xC0FE, filter, |plays| {
        plays
            .into_iter()
            .filter(|after| final_result(after).is_none())
            .map(|after| after.swapped())
            .filter(|next| ev.exact(next).is_none())
            .collect::<Vec<_>>()
    })
    .into_iter()
    .flatten()
    .collect()
}

/// For each of `positions`, in parallel and in order: a roll drawn from
/// `seed` and the position's index (so the same on any number of threads),
/// and the boards after that roll's best plays at 0-ply within `filter`,
/// best first, handed to `each`.
pub(crate) fn best_plays_of_a_roll<T: Send>(
    ev: &NetEvaluator,
    positions: &[Position],
    seed: u64,
    filter: MoveFilter,
    each: impl Fn(Vec<Position>) -> T + Sync + Send,
) -> Vec<T> {
    positions
        .par_iter()
        .enumerate()
        .map_init(
            || (MoveList::new(), Vec::new()),
            |(list, values), (i, p)| {
                let mut rng = Xoshiro256PlusPlus::seed_from_u64(
                    seed ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15),
                );
                generate(p, roll(&mut rng), list);
                candidate_values(ev, list.as_slice(), values);
                let plays = shortlist(values, filter);
                each(
                    plays
                        .into_iter()
                        .map(|k| list.as_slice()[k].position)
                        .collect(),
                )
            },
        )
        .collect()
}

/// Every turn of `games` luck-adjusted 0-ply self-play games from the
/// opening, labelled by [`rollout::labelled_trial`] (game `i` is trial `i`
/// of one rollout seeded by `seed`, so the labels do not depend on the
/// number of threads).
pub fn label_games(ev: &NetEvaluator, games: u32, seed: u64) -> Vec<Example> {
    let settings = RolloutSettings {
        trials: games,
        seed,
        ..RolloutSettings::default()
    };
    (0..games)
        .into_par_iter()
        .flat_map_iter(|i| rollout::labelled_trial(ev, &Position::start(), &settings, i))
        .map(|(position, target)| Example {
            phase: Phase::of(&position),
            position,
            target,
        })
        .collect()
}

/// Labels positions with a `ply`-ply search of `ev`.
pub fn label(ev: &NetEvaluator, positions: &[Position], ply: u32) -> Vec<Example> {
    let search = Ply::new(ev, ply);
    positions
        .par_iter()
        .map(|p| Example {
            phase: Phase::of(p),
            position: *p,
            target: search.eval(p),
        })
        .collect()
}

/// Labels positions with luck-adjusted, quasi-random, cubeless 0-ply
/// rollouts of `ev`. Each position has its own dice seed, drawn from `seed`
/// and its index in the whole sample (`first` is the index of
/// `positions[0]`), so labelling in pieces gives the same labels.
pub fn label_by_rollouts(
    ev: &NetEvaluator,
    positions: &[Position],
    first: usize,
    trials: u32,
    truncate: Option<u32>,
    seed: u64,
) -> Vec<Example> {
    let stop = AtomicBool::new(false);
    positions
        .par_iter()
        .enumerate()
        .map(|(i, p)| {
            let i = first + i;
            let settings = RolloutSettings {
                trials,
                ply: 0,
                truncate,
                seed: seed ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15),
                ..RolloutSettings::default()
            };
            let r = rollout(ev, p, &settings, &stop, |_| {});
            let clamped = Probs(r.probs.0.map(|x| x.clamp(0.0, 1.0)));
            Example {
                phase: Phase::of(p),
                position: *p,
                target: clamped.consistent(),
            }
        })
        .collect()
}

/// How far a fit got after one pass: the root-mean-square error of the
/// win probability on the positions fitted (measured before each step) and
/// on those held out; for a decision fit, the search's mean regret of the
/// nets' choices.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FitPass {
    /// On the positions fitted.
    pub fitted: f64,
    /// On the [`HELD_OUT`] share never fitted (what generalises).
    pub held_out: f64,
}

/// Share of the labelled positions a fit holds out to measure itself by.
pub const HELD_OUT: f64 = 0.05;

/// Fits the nets to labelled examples: `epochs` passes at a learning rate
/// falling geometrically from `alpha` to `alpha_end`, by plain descent one
/// position at a time (`batch` 0) or by [`crate::adam::Adam`] on batches of `batch`
/// positions. A [`HELD_OUT`] share of the examples is never fitted.
pub fn fit(
    ev: &mut NetEvaluator,
    examples: &[Example],
    epochs: usize,
    (alpha, alpha_end): (f32, f32),
    batch: usize,
    seed: u64,
) -> Vec<FitPass> {
    let mut order: Vec<usize> = (0..examples.len()).collect();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    order.shuffle(&mut rng);
    let held = (examples.len() as f64 * HELD_OUT) as usize;
    let (held, mut order) = (order[..held].to_vec(), order[held..].to_vec());
    let mut act = ev.contact.activations();
    let mut x = SparseInputs::default();
    let mut nets = BatchFit::default();
    let mut passes = Vec::with_capacity(epochs);
    for epoch in 0..epochs {
        let t = if epochs > 1 {
            epoch as f32 / (epochs - 1) as f32
        } else {
            0.0
        };
        let alpha = alpha * (alpha_end / alpha).powf(t);
        order.shuffle(&mut rng);
        let mut sq = 0.0;
        for chunk in order.chunks(batch.max(1)) {
            for &i in chunk {
                let e = &examples[i];
                ev.encode_into(&e.position, &mut x);
                let before = if batch == 0 {
                    ev.net_mut(e.phase).train(&x, &e.target, alpha, &mut act)
                } else {
                    nets.backward(ev, e.phase, &x, &e.target, &mut act)
                };
                sq += f64::from((before.win() - e.target.win()).powi(2));
            }
            nets.step(ev, alpha);
        }
        let mut held_sq = 0.0;
        for &i in &held {
            let e = &examples[i];
            ev.encode_into(&e.position, &mut x);
            let now = ev.net(e.phase).eval(&x, &mut act);
            held_sq += f64::from((now.win() - e.target.win()).powi(2));
        }
        passes.push(FitPass {
            fitted: (sq / order.len().max(1) as f64).sqrt(),
            held_out: (held_sq / held.len().max(1) as f64).sqrt(),
        });
    }
    passes
}

/// One round: sample, label, fit. Returns the fit's errors by pass.
///
/// Labelling is the expensive part (a 2-ply label costs thousands of
/// evaluations, a rollout label more), so with a `cache` file the labels
/// are read from it when it exists; otherwise they are made piece by piece
/// and kept as they come ([`label_resumably`]), so a run stopped part way
/// (a session's end) resumes where it stopped, and a second fit with other
/// settings does not label again.
pub fn round(
    ev: &mut NetEvaluator,
    teacher: Option<&NetEvaluator>,
    cfg: &DistillConfig,
    seed: u64,
    cache: Option<&Path>,
) -> Result<Vec<FitPass>> {
    if cfg.decisions > 0 {
        return decision_round(ev, teacher, cfg, seed, cache);
    }
    let examples = match cache {
        Some(path) if path.exists() => load_examples(path)?,
        _ if cfg.games > 0 => {
            let examples = label_games(teacher.unwrap_or(ev), cfg.games, seed);
            if let Some(path) = cache {
                save_examples(path, &examples)?;
            }
            examples
        }
        _ => {
            let teacher = teacher.unwrap_or(ev);
            let mut positions = sample(teacher, cfg.positions, cfg.explore, seed);
            if cfg.candidates > 0 {
                positions = competing_plays(teacher, &positions, cfg.candidates, seed);
            }
            let label_range = |range: std::ops::Range<usize>| {
                let some = &positions[range.clone()];
                if cfg.rollout_trials > 0 {
                    let (trials, truncate) = (cfg.rollout_trials, cfg.truncate);
                    label_by_rollouts(teacher, some, range.start, trials, truncate, seed)
                } else {
                    label(teacher, some, cfg.ply)
                }
            };
            match cache {
                Some(path) => label_resumably(path, &positions, label_range)?,
                None => label_range(0..positions.len()),
            }
        }
    };
    Ok(fit(
        ev,
        &examples,
        cfg.epochs,
        (cfg.alpha, cfg.alpha_end),
        cfg.batch,
        seed ^ 0xD15,
    ))
}

/// A round of decision labels ([`crate::decisions`]), cached as
/// `round-N.decisions` beside the value labels' file. Its passes are the
/// regrets before the fit and after each pass.
fn decision_round(
    ev: &mut NetEvaluator,
    teacher: Option<&NetEvaluator>,
    cfg: &DistillConfig,
    seed: u64,
    cache: Option<&Path>,
) -> Result<Vec<FitPass>> {
    let cache = cache.map(|p| p.with_extension("decisions"));
    let decisions = match &cache {
        Some(path) if path.exists() => decisions::load(path)?,
        _ => {
            let teacher = teacher.unwrap_or(ev);
            let positions = sample(teacher, cfg.positions, cfg.explore, seed);
            let filter = MoveFilter {
                keep: cfg.decisions,
                margin: MoveFilter::ROOT.margin,
            };
            let decisions = decisions::label(teacher, &positions, filter, cfg.ply, seed);
            if let Some(path) = &cache {
                decisions::save(path, &decisions)?;
            }
            decisions
        }
    };
    let fit = decisions::DecisionFit {
        epochs: cfg.epochs,
        alpha: (cfg.alpha, cfg.alpha_end),
        batch: cfg.batch,
        temperature: cfg.temperature,
        anchor: cfg.anchor,
    };
    Ok(decisions::fit(ev, &decisions, &fit, seed ^ 0xD15))
}

/// Positions labelled per piece by [`label_resumably`].
pub const LABEL_PIECE: usize = 2048;

/// Labels `positions` in pieces of [`LABEL_PIECE`] with `label` (given the
/// range of indices to label), appending each finished piece to
/// `PATH.partial`, then writes all the labels to `path` atomically and
/// removes the partial file. A partial file left by a stopped run is
/// resumed from: its lines must be the first positions of this sample, in
/// order (else it belongs to another run, and that is an error naming it);
/// a last line cut short by the stop is dropped and labelled again.
pub fn label_resumably(
    path: &Path,
    positions: &[Position],
    label: impl Fn(std::ops::Range<usize>) -> Vec<Example>,
) -> Result<Vec<Example>> {
    use std::io::Write;
    let partial = std::path::PathBuf::from(format!("{}.partial", path.display()));
    let mut done = if partial.exists() {
        resume_partial(&partial, positions)?
    } else {
        Vec::new()
    };
    // Rewritten to hold exactly the lines kept, so appends follow whole
    // lines.
    save_examples(&partial, &done)?;
    let mut file = fs::OpenOptions::new()
        .append(true)
        .open(&partial)
        .with_context(|| format!("opening {}", partial.display()))?;
    while done.len() < positions.len() {
        let end = (done.len() + LABEL_PIECE).min(positions.len());
        let piece = label(done.len()..end);
        anyhow::ensure!(
            piece.len() == end - done.len(),
            "the labeller returned {} labels for {} positions",
            piece.len(),
            end - done.len()
        );
        file.write_all(examples_text(&piece).as_bytes())
            .and_then(|()| file.sync_data())
            .with_context(|| format!("writing {}", partial.display()))?;
        done.extend(piece);
    }
    save_examples(path, &done)?;
    fs::remove_file(&partial).with_context(|| format!("removing {}", partial.display()))?;
    Ok(done)
}

/// The labels of a stopped run's partial file, checked against the sample.
fn resume_partial(partial: &Path, positions: &[Position]) -> Result<Vec<Example>> {
    let text =
        fs::read_to_string(partial).with_context(|| format!("reading {}", partial.display()))?;
    // Only lines ended by a newline were written whole.
    let whole = &text[..text.rfind('\n').map_or(0, |i| i + 1)];
    let done = parse_lines(whole, partial, parse_example)?;
    for (i, e) in done.iter().enumerate() {
        anyhow::ensure!(
            positions.get(i) == Some(&e.position),
            "{} line {} is not this run's position {} (the file belongs to another sample: remove it)",
            partial.display(),
            i + 1,
            i + 1
        );
    }
    Ok(done)
}

/// Examples as lines: the position's Position ID, then its five
/// probabilities.
fn examples_text(examples: &[Example]) -> String {
    let mut text = String::with_capacity(examples.len() * 64);
    for e in examples {
        let p = e.target.0;
        text.push_str(&format!(
            "{} {} {} {} {} {}\n",
            position_id::encode(&e.position),
            p[0],
            p[1],
            p[2],
            p[3],
            p[4]
        ));
    }
    text
}

/// Writes labelled examples atomically, one per line ([`examples_text`]).
pub fn save_examples(path: &Path, examples: &[Example]) -> Result<()> {
    save_labels(path, &examples_text(examples))
}

/// Writes a label file atomically, making its directory if need be.
pub(crate) fn save_labels(path: &Path, text: &str) -> Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    crate::checkpoint::write_atomic(path, text.as_bytes())
}

/// Reads examples written by [`save_examples`]; a malformed line is an
/// error naming the file and the line.
pub fn load_examples(path: &Path) -> Result<Vec<Example>> {
    load_labels(path, parse_example)
}

/// Reads a label file, one item per line; an error names the file and the
/// line.
pub(crate) fn load_labels<T>(path: &Path, parse: impl Fn(&str) -> Result<T>) -> Result<Vec<T>> {
    let text = fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    parse_lines(&text, path, parse)
}

/// The items in `text`, one per line; an error names `path` and the line.
fn parse_lines<T>(text: &str, path: &Path, parse: impl Fn(&str) -> Result<T>) -> Result<Vec<T>> {
    text.lines()
        .enumerate()
        .map(|(i, line)| parse(line).with_context(|| format!("{} line {}", path.display(), i + 1)))
        .collect()
}

fn parse_example(line: &str) -> Result<Example> {
    let mut fields = line.split_whitespace();
    let id = fields.next().context("empty line")?;
    let position = position_id::decode(id)?;
    let mut p = [0.0f32; 5];
    for (k, slot) in p.iter_mut().enumerate() {
        let f = fields
            .next()
            .with_context(|| format!("probability {} missing", k + 1))?;
        // A search's averages may stray from 0..1 by rounding; more is a
        // corrupt file.
        *slot = f
            .parse()
            .ok()
            .filter(|x: &f32| (-1e-4..=1.0 + 1e-4).contains(x))
            .map(|x: f32| x.clamp(0.0, 1.0))
            .with_context(|| format!("probability {} is {f:?}, not a number in 0..1", k + 1))?;
    }
    anyhow::ensure!(fields.next().is_none(), "more than six fields");
    Ok(Example {
        phase: Phase::of(&position),
        position,
        target: Probs(p),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use sheshbesh_engine::Dice;

    #[test]
    fn labels_round_trip_through_their_file_and_bad_lines_are_named() {
        let dir = std::env::temp_dir().join(format!("shb-labels-{}", std::process::id()));
        let path = dir.join("sub").join("round-1.labels");
        let examples = vec![
            Example {
                phase: Phase::of(&Position::start()),
                position: Position::start(),
                target: Probs([0.51, 0.15, 0.007, 0.13, 0.006]),
            },
            Example {
                phase: Phase::of(&Position::start()),
                position: Position::start().swapped(),
                target: Probs([0.25, 0.0, 0.0, 0.0625, 0.001]),
            },
        ];
        save_examples(&path, &examples).unwrap();
        let back = load_examples(&path).unwrap();
        assert_eq!(back.len(), 2);
        for (a, b) in examples.iter().zip(&back) {
            assert_eq!(a.position, b.position);
            assert_eq!(a.target.0, b.target.0);
            assert_eq!(a.phase, b.phase);
        }
        let text = fs::read_to_string(&path).unwrap();
        for (bad, why) in [
            ("4HPwATDgc/ABMA 0.5 0.1 0.0 0.1", "probability 5 missing"),
            (
                "4HPwATDgc/ABMA 0.5 0.1 0.0 0.1 1.5",
                "probability 5 is \"1.5\"",
            ),
            ("4HPwATDgc/ABM! 0.5 0.1 0.0 0.1 0.0", "line 3"),
        ] {
            fs::write(&path, format!("{text}{bad}\n")).unwrap();
            let err = format!("{:#}", load_examples(&path).unwrap_err());
            assert!(err.contains("line 3") && err.contains(why), "{bad}: {err}");
        }
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_stopped_labelling_resumes_where_it_stopped() {
        let dir = std::env::temp_dir().join(format!("shb-resume-{}", std::process::id()));
        let path = dir.join("round-1.labels");
        let partial = dir.join("round-1.labels.partial");
        let ev = crate::train::fresh(3, 32, 32, sheshbesh_engine::inputs::Layout::DEFAULT);
        let positions = sample(&ev, LABEL_PIECE + 500, 0.1, 4);
        let n = positions.len();
        // A stand-in labeller whose label is the position's index.
        let labelled = std::sync::atomic::AtomicUsize::new(0);
        let by_index = |range: std::ops::Range<usize>| {
            labelled.fetch_add(range.len(), std::sync::atomic::Ordering::Relaxed);
            range
                .map(|i| Example {
                    phase: Phase::of(&positions[i]),
                    position: positions[i],
                    target: Probs([i as f32 / n as f32, 0.0, 0.0, 0.0, 0.0]),
                })
                .collect::<Vec<_>>()
        };
        // A run stopped after 100 labels, in the middle of the 101st line.
        fs::create_dir_all(&dir).unwrap();
        let cut = examples_text(&by_index(0..101));
        fs::write(&partial, &cut[..cut.len() - 9]).unwrap();
        labelled.store(0, std::sync::atomic::Ordering::Relaxed);
        let all = label_resumably(&path, &positions, by_index).unwrap();
        assert_eq!(labelled.into_inner(), n - 100, "only the rest is labelled");
        assert_eq!(all.len(), n);
        for (i, e) in all.iter().enumerate() {
            assert_eq!(e.position, positions[i]);
            assert_eq!(e.target.0[0], i as f32 / n as f32);
        }
        assert!(!partial.exists());
        assert_eq!(load_examples(&path).unwrap().len(), n);
        // A partial file from another sample is refused, not mixed in.
        let other = sample(&ev, 10, 0.1, 5);
        fs::write(dir.join("x.labels.partial"), examples_text(&all[..3])).unwrap();
        let err = format!(
            "{:#}",
            label_resumably(&dir.join("x.labels"), &other, |_| Vec::new()).unwrap_err()
        );
        assert!(
            err.contains("line 1") && err.contains("another sample"),
            "{err}"
        );
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn rollout_labels_know_a_won_position() {
        // One checker each, both on their one-points: whoever rolls wins,
        // and no net can make a rollout say otherwise.
        let mut one = [0u8; 24];
        one[0] = 1;
        let pos = Position::from_sides(&one, 0, &one, 0).unwrap();
        let ev = crate::train::fresh(5, 32, 32, sheshbesh_engine::inputs::Layout::DEFAULT);
        let labels = label_by_rollouts(&ev, &[pos], 0, 36, None, 7);
        assert_eq!(labels.len(), 1);
        assert!(
            (labels[0].target.win() - 1.0).abs() < 1e-6,
            "{:?}",
            labels[0].target
        );
        assert!(labels[0].target.0[1..].iter().all(|&x| x.abs() < 1e-6));
    }

    #[test]
    fn competing_plays_are_the_best_few_boards_from_the_next_side() {
        let ev = crate::train::fresh(3, 32, 32, sheshbesh_engine::inputs::Layout::DEFAULT);
        let positions = sample(&ev, 40, 0.0, 6);
        let plays = competing_plays(&ev, &positions, 3, 7);
        assert!(plays.len() > positions.len(), "{}", plays.len());
        assert!(plays.len() <= 3 * positions.len());
        // Each is a board some roll of some sampled position reaches, seen
        // from the side to roll next.
        let mut list = MoveList::new();
        let mut reachable = std::collections::HashSet::new();
        for p in &positions {
            for d in Dice::all_21() {
                generate(p, d, &mut list);
                reachable.extend(list.as_slice().iter().map(|c| c.position.swapped()));
            }
        }
        assert!(plays.iter().all(|p| reachable.contains(p)));
        assert_eq!(plays, competing_plays(&ev, &positions, 3, 7));
    }

    #[test]
    fn game_labels_cover_every_turn_and_fit_by_adam() {
        let mut ev = crate::train::fresh(3, 32, 32, sheshbesh_engine::inputs::Layout::DEFAULT);
        let examples = label_games(&ev, 6, 8);
        assert!(examples.len() > 6 * 20, "{}", examples.len());
        assert_eq!(examples[0].position, Position::start());
        assert!(examples.iter().all(|e| e.phase == Phase::of(&e.position)));
        assert_eq!(label_games(&ev, 6, 8).len(), examples.len());
        // Adam on batches brings the fitted error down pass by pass.
        let passes = fit(&mut ev, &examples, 8, (0.003, 0.003), 16, 9);
        assert!(passes[7].fitted < 0.8 * passes[0].fitted, "{passes:?}");
    }
}
