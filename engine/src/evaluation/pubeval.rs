//! pubeval: Tesauro's public linear move ranker, the classic baseline
//! opponent. Weights are the published ones (`data/pubeval/`); the encoding
//! follows its description there. It ranks plays, it does not estimate
//! probabilities.

use std::sync::OnceLock;

use crate::rules::movegen::Candidate;
use crate::rules::position::{Checkers, Position, POINTS_MASK};

struct Weights {
    contact: Tables,
    race: Tables,
}

/// One weight set laid out for scoring by table: what a point adds given
/// the mover's count there, and what an opponent's blot there adds.
struct Tables {
    /// `mine[p][n]`: the mover's `n` checkers on its point `p`.
    mine: [[f32; 16]; 25],
    /// `blot[p]`: an opponent's blot on the mover's point `p`.
    blot: [f32; 25],
    /// Per opponent checker on the bar, and per mover checker off.
    bar: f32,
    off: f32,
}

impl Tables {
    fn new(w: &[f32; 122]) -> Tables {
        let mut mine = [[0f32; 16]; 25];
        let mut blot = [0f32; 25];
        for (p, row) in mine.iter_mut().enumerate().skip(1) {
            // pubeval numbers points from the mover's far end.
            let k = 5 * (24 - p);
            blot[p] = w[k];
            for (n, v) in row.iter_mut().enumerate() {
                *v = match n {
                    0 => 0.0,
                    1 => w[k + 1],
                    2 => w[k + 2],
                    3 => w[k + 2] + w[k + 3],
                    _ => w[k + 2] + w[k + 4] * (n - 3) as f32 / 2.0,
                };
            }
        }
        Tables {
            mine,
            blot,
            bar: w[120] / 2.0,
            off: w[121] / 15.0,
        }
    }
}

/// The published weights (`contact_wc` or `race_wr`) as they are listed.
fn published(key: &str) -> [f32; 122] {
    let v: serde_json::Value =
        serde_json::from_str(include_str!("../../../data/pubeval/pubeval_weights.json"))
            .expect("shipped pubeval weights are valid JSON");
    let a = v[key].as_array().expect("weights array");
    let mut w = [0f32; 122];
    for (i, x) in a.iter().enumerate() {
        w[i] = x.as_f64().expect("number") as f32;
    }
    w
}

fn weights() -> &'static Weights {
    static W: OnceLock<Weights> = OnceLock::new();
    W.get_or_init(|| Weights {
        contact: Tables::new(&published("contact_wc")),
        race: Tables::new(&published("race_wr")),
    })
}

/// A scored play's place in a ranking, as one integer: ascending keys
/// are descending scores (in [`f32::total_cmp`]'s order), equal scores by
/// ascending index. The order is strict, so a partial selection by it
/// keeps the same plays however it runs, and comparing integers selects
/// faster than comparing `(score, index)` pairs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct RankKey(u64);

impl RankKey {
    /// The key of play `index` scored `score`.
    pub fn new(score: f32, index: usize) -> RankKey {
        let b = score.to_bits();
        // total_cmp's order as an unsigned integer.
        let ordered = if b >> 31 == 1 { !b } else { b | 0x8000_0000 };
        debug_assert!(index <= u32::MAX as usize);
        RankKey((u64::from(!ordered) << 32) | index as u64)
    }

    /// The play's index.
    pub fn index(self) -> usize {
        (self.0 & u64::from(u32::MAX)) as usize
    }
}

/// Keeps the `keep` best of `keys` (fewer when there are fewer), in no
/// particular order.
pub fn keep_best(keys: &mut Vec<RankKey>, keep: usize) {
    if keys.len() > keep && keep > 0 {
        keys.select_nth_unstable(keep - 1);
    }
    keys.truncate(keep);
}

/// A board's score when the mover has borne off all 15: the best there is.
const WON: f32 = 99_999_999.0;

fn tables(race: bool) -> &'static Tables {
    if race {
        &weights().race
    } else {
        &weights().contact
    }
}

/// What the mover's points on `me` add.
#[inline(always)]
fn mine_part(t: &Tables, me: &Checkers) -> f32 {
    let mut s = 0f32;
    let mut mine = me.occupied() & POINTS_MASK;
    while mine != 0 {
        let p = mine.trailing_zeros() as usize;
        mine &= mine - 1;
        s += t.mine[p][usize::from(me.at(p)).min(15)];
    }
    s
}

/// What the opponent's blots and bar add.
#[inline(always)]
fn opp_part(t: &Tables, o: &Checkers) -> f32 {
    let mut s = 0f32;
    let mut blots = Checkers::mirrored(o.occupied() & !o.made());
    while blots != 0 {
        let p = blots.trailing_zeros() as usize;
        blots &= blots - 1;
        s += t.blot[p];
    }
    s + t.bar * f32::from(o.bar())
}

/// pubeval's score of the board `after` a play, seen from the mover
/// (`after.me`); `race` picks the race weights (decided on the board
/// before the play). This walks only the occupied points and the
/// opponent's blots.
pub fn score(after: &Position, race: bool) -> f32 {
    if after.me.off() == 15 {
        return WON;
    }
    let t = tables(race);
    let mut s = mine_part(t, &after.me);
    s += opp_part(t, &after.opp);
    s += t.off * f32::from(after.me.off());
    s
}

/// A position before its roll, scored once so that the plays of all its
/// rolls are scored by what they change ([`Before::score`]): a rollout's
/// luck pass scores every play of every roll.
pub struct Before {
    pos: Position,
    race: bool,
    mine: f32,
    opp: f32,
}

impl Before {
    /// `pos` with the mover on roll; the weights are the race's when it
    /// has no contact.
    pub fn new(pos: &Position) -> Before {
        let race = !pos.is_contact();
        let t = tables(race);
        Before {
            pos: *pos,
            race,
            mine: mine_part(t, &pos.me),
            opp: opp_part(t, &pos.opp),
        }
    }

    /// [`score`] of the board `after` a play from this position, to within
    /// float rounding (the sum runs in another order): the points the play
    /// changed, and the opponent's part again only when it hit.
    pub fn score(&self, after: &Position) -> f32 {
        if after.me.off() == 15 {
            return WON;
        }
        let t = tables(self.race);
        let old = &self.pos.me;
        let mut s = self.mine;
        let mut changed = after.me.differing(old) & POINTS_MASK;
        while changed != 0 {
            let p = changed.trailing_zeros() as usize;
            changed &= changed - 1;
            s += t.mine[p][usize::from(after.me.at(p)).min(15)]
                - t.mine[p][usize::from(old.at(p)).min(15)];
        }
        s += if after.opp == self.pos.opp {
            self.opp
        } else {
            opp_part(t, &after.opp)
        };
        s + t.off * f32::from(after.me.off())
    }
}

/// The index of pubeval's choice among `candidates` (legal plays from
/// `before`); the first of equal scores.
pub fn choose(before: &Position, candidates: &[Candidate]) -> usize {
    let race = !before.is_contact();
    let mut best = 0;
    let mut best_score = f32::NEG_INFINITY;
    for (i, c) in candidates.iter().enumerate() {
        let s = score(&c.position, race);
        if s > best_score {
            best = i;
            best_score = s;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::dice::Dice;
    use crate::rules::movegen::{generate, MoveList};
    use rand::{Rng, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;

    /// Rank keys order plays as the pair comparison does: score down
    /// (`total_cmp`, so -0.0 below 0.0), then index up; and the kept best
    /// are the first of that order.
    #[test]
    fn rank_keys_order_plays_as_scores_then_indices() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
        let pool = [0.0f32, -0.0, 1.0, -1.0, 0.25, -3.5e-7, 1e30, -1e30, 2.0];
        for n in [1usize, 2, 7, 12, 13, 40, 200] {
            let scores: Vec<f32> = (0..n)
                .map(|_| {
                    if rng.gen_bool(0.5) {
                        pool[rng.gen_range(0..pool.len())]
                    } else {
                        rng.gen_range(-2.0f32..2.0)
                    }
                })
                .collect();
            let mut want: Vec<usize> = (0..n).collect();
            want.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]).then(a.cmp(&b)));
            let mut keys: Vec<RankKey> = scores
                .iter()
                .enumerate()
                .map(|(i, &s)| RankKey::new(s, i))
                .collect();
            keys.sort();
            let got: Vec<usize> = keys.iter().map(|k| k.index()).collect();
            assert_eq!(got, want, "{scores:?}");
            for keep in [1, 5, 12] {
                let mut kept: Vec<RankKey> = scores
                    .iter()
                    .enumerate()
                    .map(|(i, &s)| RankKey::new(s, i))
                    .collect();
                keep_best(&mut kept, keep);
                let mut kept: Vec<usize> = kept.iter().map(|k| k.index()).collect();
                kept.sort_unstable();
                let mut first: Vec<usize> = want.iter().copied().take(keep).collect();
                first.sort_unstable();
                assert_eq!(kept, first, "{scores:?} keep {keep}");
            }
        }
    }

    /// pubeval's encoding read point by point, as its description gives it.
    fn reference(after: &Position, w: &[f32; 122]) -> f32 {
        let mut s = 0f32;
        for j in 1..=24usize {
            let p = 25 - j;
            let mine = i32::from(after.me.at(p));
            let n = if mine > 0 {
                mine
            } else {
                -i32::from(after.opp.at(25 - p))
            };
            let k = 5 * (j - 1);
            match n {
                -1 => s += w[k],
                1 => s += w[k + 1],
                n if n >= 2 => {
                    s += w[k + 2];
                    if n == 3 {
                        s += w[k + 3];
                    } else if n >= 4 {
                        s += w[k + 4] * (n - 3) as f32 / 2.0;
                    }
                }
                _ => {}
            }
        }
        s + w[120] * f32::from(after.opp.bar()) / 2.0 + w[121] * f32::from(after.me.off()) / 15.0
    }

    #[test]
    fn tables_score_as_the_encoding_reads() {
        let (wc, wr) = (published("contact_wc"), published("race_wr"));
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
        let mut list = MoveList::new();
        let mut checked = 0;
        for _ in 0..40 {
            let mut pos = Position::start();
            for _ in 0..200 {
                let dice = Dice::new(rng.gen_range(1..=6), rng.gen_range(1..=6)).unwrap();
                generate(&pos, dice, &mut list);
                let race = !pos.is_contact();
                for c in list.as_slice() {
                    if c.position.me.off() == 15 {
                        continue;
                    }
                    let want = reference(&c.position, if race { &wr } else { &wc });
                    let got = score(&c.position, race);
                    assert!(
                        (want - got).abs() <= 1e-4 * (1.0 + want.abs()),
                        "{want} {got}"
                    );
                    // Scored from the position before the roll.
                    let near = Before::new(&pos).score(&c.position);
                    assert!(
                        (want - near).abs() <= 1e-4 * (1.0 + want.abs()),
                        "{want} {near}"
                    );
                    checked += 1;
                }
                let pick = rng.gen_range(0..list.as_slice().len());
                let after = list.as_slice()[pick].position;
                if after.me.off() == 15 {
                    break;
                }
                pos = after.swapped();
            }
        }
        assert!(checked > 10_000, "{checked}");
    }
}
