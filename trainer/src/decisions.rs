//! Decision labels: teach the 0-ply net to choose as its own search does.
//!
//! Fitting a search's values position by position spends the net's
//! capacity on the level of its estimates, which play does not depend on:
//! a 0-ply player only compares the plays of one roll. Here a label is a
//! whole decision (a position, a roll, its best plays at 0-ply with the
//! search's equity for each), and the loss is the search's regret of the
//! play the net would choose, softened into a softmax over the net's
//! equities so that it has a gradient. The net's own 0-ply outputs anchor
//! its values, so it changes where its choices are wrong and little else.

use std::path::Path;

use crate::adam::BatchFit;
use crate::labels::{best_plays_of_a_roll, held_out_split, FitPass, LabelLines};
use anyhow::{Context, Result};
use rand::seq::SliceRandom;
use sheshbesh_engine::evaluation::evaluator::{final_result, Evaluator, NetClass, NetEvaluator};
use sheshbesh_engine::evaluation::inputs::SparseInputs;
use sheshbesh_engine::evaluation::net::Activations;
use sheshbesh_engine::search::ply::{MoveFilter, Ply};
use sheshbesh_engine::{formats::position_id, Position, Probs};

/// One play of a decision.
#[derive(Clone, Debug, PartialEq)]
pub struct Choice {
    /// The board after the play, from the side to roll next.
    pub next: Position,
    /// Its value for the mover when no net decides it (the game is over or
    /// a database knows it); such a play takes part in the choice but
    /// teaches nothing.
    pub fixed: Option<f32>,
    /// The search's equity of the play for the mover.
    pub search: f32,
    /// The labelling net's 0-ply probabilities of `next` (side to roll
    /// next), the anchor that keeps the net's values where they were.
    pub anchor: Probs,
}

/// The best plays of one roll, as the search values them.
#[derive(Clone, Debug, PartialEq)]
pub struct DecisionLabel {
    /// At least two plays.
    pub choices: Vec<Choice>,
}

impl DecisionLabel {
    /// The search's regret of play `i`: how much less it is worth than the
    /// search's best.
    fn regret(&self, i: usize) -> f32 {
        let best = self
            .choices
            .iter()
            .map(|c| c.search)
            .fold(f32::NEG_INFINITY, f32::max);
        best - self.choices[i].search
    }
}

/// The decisions of one roll of each position: a roll drawn from `seed`
/// and the position's index in the whole sample (`first` is the index of
/// `positions[0]`), the best plays at 0-ply within `filter`, each
/// valued by a `ply`-ply search. Rolls with a single play within the filter
/// teach nothing and are left out, and so, when `disputed`, are the rolls
/// where a 1-ply search picks the same play as 0-ply: a cheap screen (a
/// 1-ply value costs a twentieth of a 2-ply one) that keeps the deep
/// search for the rolls whose choice is in doubt.
pub fn label(
    ev: &NetEvaluator,
    positions: &[Position],
    first: usize,
    filter: MoveFilter,
    ply: u32,
    disputed: bool,
    seed: u64,
) -> Vec<DecisionLabel> {
    let search = Ply::new(ev, ply);
    let screen = Ply::new(ev, 1);
    best_plays_of_a_roll(ev, positions, first, seed ^ 0xDEC1, filter, |plays| {
        if plays.len() < 2 || (disputed && !one_ply_disputes(&screen, ev, &plays)) {
            return None;
        }
        let choices = plays
            .into_iter()
            .map(|after| {
                let next = after.swapped();
                match known_value(ev, &after) {
                    Some(v) => Choice {
                        next,
                        fixed: Some(v),
                        search: v,
                        anchor: Probs::default(),
                    },
                    None => Choice {
                        next,
                        fixed: None,
                        search: -search.eval(&next).equity(),
                        anchor: ev.eval(&next),
                    },
                }
            })
            .collect();
        Some(DecisionLabel { choices })
    })
    .into_iter()
    .flatten()
    .collect()
}

/// Whether a 1-ply search values another of `plays` (best first at 0-ply,
/// boards from the mover's side) above the first.
fn one_ply_disputes(screen: &Ply<'_, NetEvaluator>, ev: &NetEvaluator, plays: &[Position]) -> bool {
    let value = |after: &Position| {
        known_value(ev, after).unwrap_or_else(|| -screen.eval(&after.swapped()).equity())
    };
    let first = value(&plays[0]);
    plays[1..].iter().any(|p| value(p) > first)
}

/// The mover's equity after a play (`after`, mover's side) when no net
/// decides it: the game is over, or a database knows the position.
fn known_value(ev: &NetEvaluator, after: &Position) -> Option<f32> {
    final_result(after)
        .map(|p| p.equity())
        .or_else(|| ev.exact(&after.swapped()).map(|p| -p.equity()))
}

/// Sets each choice's anchor to `ev`'s own 0-ply outputs of its board,
/// so that a fit holds `ev`'s values instead of the labelling net's.
pub fn reanchor(ev: &NetEvaluator, labels: &mut [DecisionLabel]) {
    use rayon::prelude::*;
    labels.par_iter_mut().for_each(|d| {
        for c in d.choices.iter_mut().filter(|c| c.fixed.is_none()) {
            c.anchor = ev.eval(&c.next);
        }
    });
}

/// Settings of a decision fit.
#[derive(Clone, Copy, Debug)]
pub struct DecisionFit {
    /// Passes over the decisions.
    pub epochs: usize,
    /// Adam's learning rate on the first pass and on the last (geometric
    /// in between).
    pub alpha: (f32, f32),
    /// Decisions per Adam step.
    pub batch: usize,
    /// Softmax temperature in equity: differences well below it barely
    /// change the choice, well above it decide it.
    pub temperature: f32,
    /// Weight of the anchor (cross-entropy to the labelling net's own
    /// outputs) against the regret.
    pub anchor: f32,
    /// Fit only this net: the others value their plays but stay as they
    /// are (a blitz net taught beside a contact net it must not move).
    /// `None`: every net that values a play.
    pub only: Option<NetClass>,
}

/// The derivative of the mover's equity with respect to the next side's
/// five probabilities (the mover's equity is minus the next side's).
const D_EQUITY: [f32; 5] = [-2.0, -1.0, -1.0, 1.0, 1.0];

/// The nets' outputs for the plays of `d` (from the side to roll next;
/// default for a fixed play) into `outs`, the mover's equities into `eq`,
/// the plays' inputs into `xs`; returns the play the nets choose.
fn net_choice(
    ev: &NetEvaluator,
    d: &DecisionLabel,
    act: &mut Activations,
    (xs, outs, eq): (&mut Vec<SparseInputs>, &mut Vec<Probs>, &mut Vec<f32>),
) -> usize {
    xs.resize_with(d.choices.len(), SparseInputs::default);
    outs.clear();
    eq.clear();
    for (c, x) in d.choices.iter().zip(xs.iter_mut()) {
        let (y, e) = match c.fixed {
            Some(v) => (Probs::default(), v),
            None => {
                ev.encode_into(&c.next, x);
                let y = ev.net(ev.class_of(&c.next)).eval(x, act);
                (y, -y.equity())
            }
        };
        outs.push(y);
        eq.push(e);
    }
    (0..eq.len())
        .max_by(|&a, &b| eq[a].total_cmp(&eq[b]))
        .unwrap_or(0)
}

/// Fits the nets so that their 0-ply choices follow the search's values.
/// A [`crate::labels::HELD_OUT`] share is never fitted; returns the
/// search's mean regret of the nets' choices before the fit (pass 0) and
/// after each pass.
pub fn fit(
    ev: &mut NetEvaluator,
    decisions: &[DecisionLabel],
    cfg: &DecisionFit,
    seed: u64,
) -> Vec<FitPass> {
    let (mut rng, held, mut order) = held_out_split(decisions.len(), seed);
    let mut act = ev.contact.activations();
    let mut nets = BatchFit::default();
    let (mut xs, mut outs, mut eq) = (Vec::new(), Vec::new(), Vec::new());
    let regret_of = |ev: &NetEvaluator, set: &[usize], act: &mut Activations| {
        let mut scratch = (Vec::new(), Vec::new(), Vec::new());
        let sum: f64 = set
            .iter()
            .map(|&i| {
                let d = &decisions[i];
                let pick = net_choice(ev, d, act, (&mut scratch.0, &mut scratch.1, &mut scratch.2));
                f64::from(d.regret(pick))
            })
            .sum();
        sum / set.len().max(1) as f64
    };
    let mut passes = vec![FitPass {
        fitted: regret_of(ev, &order, &mut act),
        held_out: regret_of(ev, &held, &mut act),
    }];
    let tau = cfg.temperature;
    for epoch in 0..cfg.epochs {
        let t = if cfg.epochs > 1 {
            epoch as f32 / (cfg.epochs - 1) as f32
        } else {
            0.0
        };
        let alpha = cfg.alpha.0 * (cfg.alpha.1 / cfg.alpha.0).powf(t);
        order.shuffle(&mut rng);
        let mut regret = 0.0;
        for chunk in order.chunks(cfg.batch.max(1)) {
            for &i in chunk {
                let d = &decisions[i];
                let pick = net_choice(ev, d, &mut act, (&mut xs, &mut outs, &mut eq));
                regret += f64::from(d.regret(pick));
                // Softmax policy over the net's equities, its expected regret
                // and that regret's derivative along each play's equity.
                let top = eq[pick];
                let w: Vec<f32> = eq.iter().map(|&e| ((e - top) / tau).exp()).collect();
                let z: f32 = w.iter().sum();
                let expected: f32 = (0..w.len()).map(|k| w[k] / z * d.regret(k)).sum();
                for (k, c) in d.choices.iter().enumerate() {
                    let class = ev.class_of(&c.next);
                    if c.fixed.is_some() || cfg.only.is_some_and(|only| only != class) {
                        continue;
                    }
                    let de = w[k] / z * (d.regret(k) - expected) / tau;
                    let y = outs[k].0;
                    // The backward pass takes the error at the output logits
                    // as output minus target: build the target that gives
                    // the loss's own error there.
                    let target = Probs(std::array::from_fn(|j| {
                        let logit_error = de * D_EQUITY[j] * y[j] * (1.0 - y[j])
                            + cfg.anchor * (y[j] - c.anchor.0[j]);
                        y[j] - logit_error
                    }));
                    nets.backward(ev, class, &xs[k], &target, &mut act);
                }
            }
            nets.step(ev, alpha);
        }
        passes.push(FitPass {
            fitted: regret / order.len().max(1) as f64,
            held_out: regret_of(ev, &held, &mut act),
        });
    }
    passes
}

/// Decisions as lines: per play, its board's Position ID, `-` or the fixed
/// value, the search's equity and the anchor's five probabilities, the
/// plays separated by `;`.
fn text(decisions: &[DecisionLabel]) -> String {
    let mut out = String::with_capacity(decisions.len() * 400);
    for d in decisions {
        let plays: Vec<String> = d
            .choices
            .iter()
            .map(|c| {
                let a = c.anchor.0;
                let fixed = c.fixed.map_or("-".to_string(), |v| v.to_string());
                format!(
                    "{} {fixed} {} {} {} {} {} {}",
                    position_id::encode(&c.next),
                    c.search,
                    a[0],
                    a[1],
                    a[2],
                    a[3],
                    a[4]
                )
            })
            .collect();
        out.push_str(&plays.join(";"));
        out.push('\n');
    }
    out
}

/// Writes decisions atomically.
pub fn save(path: &Path, decisions: &[DecisionLabel]) -> Result<()> {
    crate::labels::save_labels(path, &text(decisions))
}

/// Reads decisions written by [`save`]; a malformed line is an error
/// naming the file and the line.
pub fn load(path: &Path) -> Result<Vec<DecisionLabel>> {
    crate::labels::load_labels(path, parse)
}

impl LabelLines for DecisionLabel {
    fn text(items: &[DecisionLabel]) -> String {
        text(items)
    }

    fn parse(line: &str) -> Result<DecisionLabel> {
        parse(line)
    }
}

fn parse(line: &str) -> Result<DecisionLabel> {
    let choices = line
        .split(';')
        .enumerate()
        .map(|(k, play)| parse_choice(play).with_context(|| format!("play {}", k + 1)))
        .collect::<Result<Vec<_>>>()?;
    anyhow::ensure!(choices.len() >= 2, "a decision needs at least two plays");
    Ok(DecisionLabel { choices })
}

fn parse_choice(play: &str) -> Result<Choice> {
    let fields: Vec<&str> = play.split_whitespace().collect();
    anyhow::ensure!(fields.len() == 8, "{} fields, not 8", fields.len());
    let next = position_id::decode(fields[0])?;
    // A search's averages may stray past -3..3 by rounding; more is a
    // corrupt file.
    let number = |s: &str, what: &str| -> Result<f32> {
        s.parse::<f32>()
            .ok()
            .filter(|x| x.is_finite() && x.abs() <= 3.001)
            .map(|x| x.clamp(-3.0, 3.0))
            .with_context(|| format!("{what} is {s:?}, not a number in -3..3"))
    };
    let fixed = match fields[1] {
        "-" => None,
        v => Some(number(v, "the fixed value")?),
    };
    let search = number(fields[2], "the search's equity")?;
    let mut anchor = [0.0f32; 5];
    for (k, slot) in anchor.iter_mut().enumerate() {
        *slot = number(fields[3 + k], "an anchor probability")?;
        anyhow::ensure!(
            (0.0..=1.0).contains(slot),
            "anchor probability {} is {}, not in 0..1",
            k + 1,
            slot
        );
    }
    Ok(Choice {
        next,
        fixed,
        search,
        anchor: Probs(anchor),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::labels::sample;
    use sheshbesh_engine::evaluation::inputs::Layout;
    use std::fs;

    fn decisions(ev: &NetEvaluator) -> Vec<DecisionLabel> {
        let positions = sample(ev, 60, 0.0, 6);
        label(ev, &positions, 0, MoveFilter::ROOT, 1, false, 7)
    }

    #[test]
    fn disputed_decisions_are_those_whose_zero_ply_choice_the_search_regrets() {
        // Labelled at 1-ply, the screen is the search itself: the disputed
        // decisions are exactly those where the 0-ply choice (the first
        // play) has a regret.
        let ev = crate::train::fresh(3, 32, 32, Layout::V2);
        let all = decisions(&ev);
        let positions = sample(&ev, 60, 0.0, 6);
        let disputed = label(&ev, &positions, 0, MoveFilter::ROOT, 1, true, 7);
        let expected: Vec<DecisionLabel> = all.into_iter().filter(|d| d.regret(0) > 0.0).collect();
        assert!(!disputed.is_empty());
        assert_eq!(disputed, expected);
    }

    #[test]
    fn decisions_are_the_best_plays_of_a_roll_valued_by_the_search() {
        let ev = crate::train::fresh(3, 32, 32, Layout::V2);
        let all = decisions(&ev);
        assert!(all.len() > 20, "{}", all.len());
        assert_eq!(all, decisions(&ev));
        let search = Ply::new(&ev, 1);
        for d in &all {
            assert!((2..=MoveFilter::ROOT.keep).contains(&d.choices.len()));
            for c in &d.choices {
                match c.fixed {
                    Some(v) => assert_eq!(c.search, v),
                    None => {
                        assert_eq!(c.search, -search.eval(&c.next).equity());
                        assert_eq!(c.anchor, ev.eval(&c.next));
                    }
                }
            }
            // Someone's choice is the search's best: no regret below zero.
            assert!((0..d.choices.len()).all(|k| d.regret(k) >= 0.0));
            assert!((0..d.choices.len()).any(|k| d.regret(k) == 0.0));
        }
    }

    #[test]
    fn reanchored_decisions_hold_the_fitted_nets_values() {
        // Labelled by one net, reanchored to another: every anchor is the
        // other's 0-ply value of its board, everything else as labelled.
        let labeller = crate::train::fresh(3, 32, 32, Layout::V2);
        let other = crate::train::fresh(4, 32, 32, Layout::V2);
        let labelled = decisions(&labeller);
        let mut moved = labelled.clone();
        reanchor(&other, &mut moved);
        let mut changed = 0;
        for (d, m) in labelled.iter().zip(&moved) {
            for (c, n) in d.choices.iter().zip(&m.choices) {
                assert_eq!((c.next, c.fixed, c.search), (n.next, n.fixed, n.search));
                match c.fixed {
                    Some(_) => assert_eq!(n.anchor, c.anchor),
                    None => {
                        assert_eq!(n.anchor, other.eval(&n.next));
                        changed += usize::from(n.anchor != c.anchor);
                    }
                }
            }
        }
        assert!(changed > 0);
    }

    #[test]
    fn decisions_round_trip_through_their_file_and_bad_lines_are_named() {
        let ev = crate::train::fresh(3, 32, 32, Layout::V2);
        let all = decisions(&ev);
        let dir = std::env::temp_dir().join(format!("shb-decisions-{}", std::process::id()));
        let path = dir.join("round-1.decisions");
        save(&path, &all).unwrap();
        assert_eq!(load(&path).unwrap(), all);
        let good = text(&all[..1]);
        let bad = good.replacen(" - ", " x ", 1);
        fs::write(&path, crate::labels::with_checksum(&format!("{good}{bad}"))).unwrap();
        let err = format!("{:#}", load(&path).unwrap_err());
        assert!(
            err.contains("line 2") && err.contains("fixed value"),
            "{err}"
        );
        let single = good.split(';').next().unwrap().to_string();
        fs::write(&path, crate::labels::with_checksum(&format!("{single}\n"))).unwrap();
        let err = format!("{:#}", load(&path).unwrap_err());
        assert!(err.contains("line 1") && err.contains("two plays"), "{err}");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_fit_lowers_the_regret_of_the_nets_choices() {
        let mut ev = crate::train::fresh(3, 32, 32, Layout::V2);
        let all = decisions(&ev);
        let cfg = DecisionFit {
            only: None,
            epochs: 12,
            alpha: (0.003, 0.003),
            batch: 4,
            temperature: 0.02,
            anchor: 0.1,
        };
        let passes = fit(&mut ev, &all, &cfg, 9);
        assert_eq!(passes.len(), 13);
        assert!(passes[0].fitted > 0.0, "{passes:?}");
        assert!(passes[12].fitted < 0.5 * passes[0].fitted, "{passes:?}");
    }
}
