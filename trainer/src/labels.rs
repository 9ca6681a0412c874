//! Labels for expert iteration and their files: positions sampled from
//! self-play, the plays competing for a roll, values by our own search,
//! and label files that are made in pieces, so that a stopped run resumes
//! where it stopped and separate runs (shards on other machines or
//! sessions) fill in the same set.

use std::fs;
use std::ops::Range;
use std::path::{Path, PathBuf};

use crate::selfplay::roll;
use anyhow::{Context, Result};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use rayon::prelude::*;
use sheshbesh_engine::evaluation::evaluator::{
    best_candidate, candidate_values, Evaluator, NetEvaluator, Phase,
};
use sheshbesh_engine::formats::files::write_atomic;
use sheshbesh_engine::rules::movegen::{generate, MoveList};
use sheshbesh_engine::search::ply::{shortlist, MoveFilter, Ply};
use sheshbesh_engine::{formats::position_id, Position, Probs};

/// One labelled position.
#[derive(Clone, Debug)]
pub struct Example {
    /// Its phase (what `--phase` keeps; the net that learns it is the one
    /// that values it, [`sheshbesh_engine::evaluation::evaluator::NetEvaluator::class_of`]).
    pub phase: Phase,
    /// The position (player on roll).
    pub position: Position,
    /// The search's probabilities.
    pub target: Probs,
}

/// Positions from self-play games of `ev`, every position where a side is
/// on roll and no database knows the answer. Game `g` has its own dice, so
/// the sample is the same on any number of threads.
pub fn sample(ev: &NetEvaluator, n: usize, explore: f64, seed: u64) -> Vec<Position> {
    let per_game = 60;
    let games = n.div_ceil(per_game / 2).max(1);
    let all: Vec<Position> = (0..games as u64)
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
    first_of_shuffled(all, n, seed)
}

/// The first `n` of `all` shuffled by `seed`.
fn first_of_shuffled(mut all: Vec<Position>, n: usize, seed: u64) -> Vec<Position> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    all.shuffle(&mut rng);
    all.truncate(n);
    all
}

/// Each of `list` after `turns` turns of `ev`'s own play (the best 0-ply
/// play of a roll drawn from `seed` and the position's index), in order;
/// a game that ends on the way gives nothing. Real play's neighbourhood:
/// the boards its positions lead to on other rolls.
pub fn walked(ev: &NetEvaluator, list: &[Position], turns: u32, seed: u64) -> Vec<Position> {
    if turns == 0 {
        return list.to_vec();
    }
    list.par_iter()
        .enumerate()
        .map_init(
            || (MoveList::new(), Vec::new()),
            |(moves, values), (i, start)| {
                let mut rng = Xoshiro256PlusPlus::seed_from_u64(
                    seed ^ 0x5741_4C4B ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15),
                );
                let mut pos = *start;
                for _ in 0..turns {
                    generate(&pos, roll(&mut rng), moves);
                    if moves.as_slice().is_empty() {
                        return None;
                    }
                    let (best, _) = best_candidate(ev, moves.as_slice(), values);
                    let after = moves.as_slice()[best].position;
                    if after.me.off() == 15 {
                        return None;
                    }
                    pos = after.swapped();
                }
                Some(pos)
            },
        )
        .flatten()
        .collect()
}

/// `n` of `list` (all of them if it holds fewer), in an order set by
/// `seed`, without those a database knows: the sample of a round whose
/// positions are given.
pub fn drawn(ev: &NetEvaluator, list: &[Position], n: usize, seed: u64) -> Vec<Position> {
    let known = |p: &&Position| ev.exact(p).is_none();
    first_of_shuffled(list.iter().filter(known).copied().collect(), n, seed)
}

/// For each of `positions`, in parallel and in order: a roll drawn from
/// `seed` and the position's index in the whole sample (`first` is the
/// index of `positions[0]`, so labelling in pieces gives the same rolls;
/// the same on any number of threads),
/// and the boards after that roll's best plays at 0-ply within `filter`,
/// best first, handed to `each`.
pub(crate) fn best_plays_of_a_roll<T: Send>(
    ev: &NetEvaluator,
    positions: &[Position],
    first: usize,
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
                    seed ^ ((first + i) as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15),
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

/// Each position labelled by its value as a rollout's luck pass measures
/// it with `ev` ([`sheshbesh_engine::rollout::luck_pass_value`]).
pub fn label_luck(ev: &NetEvaluator, positions: &[Position]) -> Vec<Example> {
    positions
        .par_iter()
        .map(|p| Example {
            phase: Phase::of(p),
            position: *p,
            target: sheshbesh_engine::rollout::luck_pass_value(ev, p),
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

/// A fit's split of `n` labels: the generator of its shuffles (seeded by
/// `seed`), the [`HELD_OUT`] share never fitted, and the rest, both drawn
/// from one shuffle.
pub(crate) fn held_out_split(n: usize, seed: u64) -> (Xoshiro256PlusPlus, Vec<usize>, Vec<usize>) {
    let mut order: Vec<usize> = (0..n).collect();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    order.shuffle(&mut rng);
    let held = (n as f64 * HELD_OUT) as usize;
    let fitted = order.split_off(held);
    (rng, order, fitted)
}

/// Positions labelled per piece by [`label_in_pieces`].
pub const LABEL_PIECE: usize = 2048;

/// A kind of label kept in a file, a line per label.
pub trait LabelLines: Sized {
    /// The labels as lines, each ended by a newline.
    fn text(items: &[Self]) -> String;
    /// One label from its line.
    fn parse(line: &str) -> Result<Self>;
}

/// Which pieces of a sample a run labels: all of them, or shard `index` of
/// `count` (pieces `index`, `index + count`, ...), so that runs on several
/// machines or in several sessions split one sample between them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// This run's share, from 0.
    pub index: usize,
    /// Shares in all.
    pub count: usize,
}

impl Shard {
    /// Every piece.
    pub const ALL: Shard = Shard { index: 0, count: 1 };

    fn takes(self, piece: usize) -> bool {
        piece % self.count.max(1) == self.index
    }
}

/// The folder of `path`'s pieces.
pub fn pieces_dir(path: &Path) -> PathBuf {
    PathBuf::from(format!("{}.pieces", path.display()))
}

/// The file piece `k` of `path`'s labels is kept in until all are made.
pub fn piece_path(path: &Path, k: usize) -> PathBuf {
    pieces_dir(path).join(format!("{k:05}"))
}

/// Labels `positions` (sampled from `seed`) in pieces of [`LABEL_PIECE`]
/// with `label` (given the range of indices to label). Each piece is
/// written atomically to its own file in [`pieces_dir`] as soon as it is
/// done, so a stopped run resumes at the first missing piece. `shard`
/// labels only its share of the pieces; once every piece is there,
/// whichever run finishes last joins them into `path` (atomically) and
/// removes the pieces, and the labels are returned (`None` while other
/// shards' pieces are missing). The folder records the sample it belongs
/// to, and pieces of another sample are refused, not mixed in.
pub fn label_in_pieces<T: LabelLines>(
    path: &Path,
    positions: &[Position],
    seed: u64,
    shard: Shard,
    label: impl Fn(Range<usize>) -> Vec<T>,
) -> Result<Option<Vec<T>>> {
    let dir = pieces_dir(path);
    fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let sample = format!(
        "seed {seed} positions {} first {} last {}\n",
        positions.len(),
        positions.first().map_or(String::new(), position_id::encode),
        positions.last().map_or(String::new(), position_id::encode),
    );
    let manifest = dir.join("sample");
    match fs::read_to_string(&manifest) {
        Ok(text) if text != sample => anyhow::bail!(
            "{} belongs to another sample ({}), not this run's ({}): remove it",
            dir.display(),
            text.trim(),
            sample.trim()
        ),
        Ok(_) => {}
        Err(_) => write_atomic(&manifest, sample.as_bytes())?,
    }
    let pieces = positions.len().div_ceil(LABEL_PIECE);
    let piece_path = |k: usize| piece_path(path, k);
    for k in (0..pieces).filter(|&k| shard.takes(k)) {
        if piece_path(k).exists() {
            continue;
        }
        let range = k * LABEL_PIECE..((k + 1) * LABEL_PIECE).min(positions.len());
        save_labels(&piece_path(k), &T::text(&label(range)))?;
    }
    if (0..pieces).any(|k| !piece_path(k).exists()) {
        return Ok(None);
    }
    let mut all = Vec::new();
    for k in 0..pieces {
        all.extend(load_labels(&piece_path(k), T::parse)?);
    }
    save_labels(path, &T::text(&all))?;
    fs::remove_dir_all(&dir).with_context(|| format!("removing {}", dir.display()))?;
    Ok(Some(all))
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

/// Writes labelled examples atomically, one per line (as `examples_text` writes them).
pub fn save_examples(path: &Path, examples: &[Example]) -> Result<()> {
    save_labels(path, &examples_text(examples))
}

impl LabelLines for Example {
    fn text(items: &[Example]) -> String {
        examples_text(items)
    }

    fn parse(line: &str) -> Result<Example> {
        parse_example(line)
    }
}

/// How the last line of every label file opens: the SHA-256 of the lines
/// above it follows, so a file cut short or damaged is refused, not
/// trained on.
const CHECKSUM: &str = "#sha256 ";

fn sha256_hex(text: &str) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// `text` (whole lines) with its checksum line after it.
pub(crate) fn with_checksum(text: &str) -> String {
    format!("{text}{CHECKSUM}{}\n", sha256_hex(text))
}

/// The lines of a label file above its checksum line, once they match it.
fn checked<'t>(text: &'t str, path: &Path) -> Result<&'t str> {
    let body_end = text.trim_end_matches('\n').rfind('\n').map_or(0, |i| i + 1);
    let (body, last) = text.split_at(body_end);
    let sum = last.trim_end().strip_prefix(CHECKSUM).with_context(|| {
        format!(
            "{}: no checksum line at the end (cut short, or written before labels had one): remove it to label again",
            path.display()
        )
    })?;
    anyhow::ensure!(
        sum == sha256_hex(body),
        "{}: the lines do not match their checksum (damaged): remove it to label again",
        path.display()
    );
    Ok(body)
}

/// Writes a label file atomically with its checksum line, making its
/// directory if need be.
pub(crate) fn save_labels(path: &Path, text: &str) -> Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    Ok(write_atomic(path, with_checksum(text).as_bytes())?)
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
    parse_lines(checked(&text, path)?, path, parse)
}

/// The items in `text`, one per line; an error names `path` and the line.
pub(crate) fn parse_lines<T>(
    text: &str,
    path: &Path,
    parse: impl Fn(&str) -> Result<T>,
) -> Result<Vec<T>> {
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
    use sheshbesh_engine::evaluation::inputs::Layout;

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
        // Cut short or changed, a file is refused whole.
        let body = checked(&text, &path).unwrap().to_string();
        for damaged in [body.clone(), text.replacen("0.51", "0.52", 1)] {
            fs::write(&path, &damaged).unwrap();
            let err = format!("{:#}", load_examples(&path).unwrap_err());
            assert!(err.contains("checksum"), "{err}");
        }
        for (bad, why) in [
            ("4HPwATDgc/ABMA 0.5 0.1 0.0 0.1", "probability 5 missing"),
            (
                "4HPwATDgc/ABMA 0.5 0.1 0.0 0.1 1.5",
                "probability 5 is \"1.5\"",
            ),
            ("4HPwATDgc/ABM! 0.5 0.1 0.0 0.1 0.0", "line 3"),
        ] {
            fs::write(&path, with_checksum(&format!("{body}{bad}\n"))).unwrap();
            let err = format!("{:#}", load_examples(&path).unwrap_err());
            assert!(err.contains("line 3") && err.contains(why), "{bad}: {err}");
        }
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_walk_plays_one_roll_a_turn_and_drops_the_games_it_ends() {
        let ev = crate::train::fresh(3, 32, 32, Layout::V2);
        let start = Position::start();
        let mut last = [0u8; 24];
        last[0] = 1;
        let mut home = [0u8; 24];
        home[5] = 15;
        let ending = Position::from_sides(&last, 0, &home, 0).unwrap();
        let list = vec![start; 200];
        assert_eq!(walked(&ev, &list, 0, 5), list);
        let once = walked(&ev, &list, 1, 5);
        assert_eq!(once.len(), 200);
        for p in &once {
            // The opponent is on roll; the side that moved spent one roll.
            let spent = 167 - p.opp.pips();
            assert!((3..=24).contains(&spent) && p.me.pips() == 167, "{spent}");
        }
        assert!(once.windows(2).any(|w| w[0] != w[1]), "every roll the same");
        assert_eq!(walked(&ev, &list, 1, 5), once);
        assert_ne!(walked(&ev, &list, 1, 6), once);
        // Two turns: both sides have moved; a game that ends is dropped.
        assert!(walked(&ev, &list, 2, 5)
            .iter()
            .all(|p| p.me != start.me && p.opp != start.opp));
        assert_eq!(walked(&ev, &[ending, start], 1, 5).len(), 1);
    }

    #[test]
    fn a_stopped_labelling_resumes_where_it_stopped_and_shards_fill_one_set() {
        let dir = std::env::temp_dir().join(format!("shb-resume-{}", std::process::id()));
        let path = dir.join("round-1.labels");
        let ev = crate::train::fresh(3, 32, 32, Layout::V2);
        let positions = sample(&ev, 2 * LABEL_PIECE + 500, 0.1, 4);
        let n = positions.len();
        // A stand-in labeller whose label is the position's index.
        let labelled = std::sync::atomic::AtomicUsize::new(0);
        let by_index = |range: Range<usize>| {
            labelled.fetch_add(range.len(), std::sync::atomic::Ordering::Relaxed);
            range
                .map(|i| Example {
                    phase: Phase::of(&positions[i]),
                    position: positions[i],
                    target: Probs([i as f32 / n as f32, 0.0, 0.0, 0.0, 0.0]),
                })
                .collect::<Vec<_>>()
        };
        // Shard 1 of 2 labels the middle piece only, and waits for shard 0.
        let half = Shard { index: 1, count: 2 };
        assert!(label_in_pieces(&path, &positions, 4, half, by_index)
            .unwrap()
            .is_none());
        assert_eq!(
            labelled.swap(0, std::sync::atomic::Ordering::Relaxed),
            LABEL_PIECE
        );
        // A run of all stopped after the first piece: its piece is there.
        let first = by_index(0..LABEL_PIECE);
        let pieces = pieces_dir(&path);
        save_labels(&pieces.join("00000"), &Example::text(&first)).unwrap();
        labelled.store(0, std::sync::atomic::Ordering::Relaxed);
        let all = label_in_pieces(&path, &positions, 4, Shard::ALL, by_index)
            .unwrap()
            .unwrap();
        assert_eq!(
            labelled.into_inner(),
            n - 2 * LABEL_PIECE,
            "only the rest is labelled"
        );
        assert_eq!(all.len(), n);
        for (i, e) in all.iter().enumerate() {
            assert_eq!(e.position, positions[i]);
            assert_eq!(e.target.0[0], i as f32 / n as f32);
        }
        assert!(!pieces.exists());
        assert_eq!(load_examples(&path).unwrap().len(), n);
        // Pieces of another sample are refused, not mixed in.
        let other = sample(&ev, 10, 0.1, 5);
        let x = dir.join("x.labels");
        label_in_pieces(
            &x,
            &positions[..10],
            4,
            Shard { index: 1, count: 2 },
            |_| Vec::<Example>::new(),
        )
        .unwrap();
        let err = format!(
            "{:#}",
            label_in_pieces(&x, &other, 5, Shard::ALL, |_| Vec::<Example>::new()).unwrap_err()
        );
        assert!(err.contains("another sample"), "{err}");
        fs::remove_dir_all(&dir).unwrap();
    }
}
