//! Bear-off databases, computed by our own code: exact values once both
//! sides have every checker in their home boards.
//!
//! - **One-sided**: for each of the 54,264 ways to place up to 15 checkers
//!   on six points, the distribution of the number of turns to bear them
//!   all off (playing to minimise the mean), and of the turns to bear off
//!   the first one (playing to minimise that, which is what saving a gammon
//!   asks). Two sides' distributions combine into win and gammon chances;
//!   the dice of the two sides are independent, so this is exact but for
//!   the mover aiming at the mean instead of at winning.
//! - **Two-sided**: the exact cubeless winning chance for every pair of
//!   positions with up to [`TWO_SIDED_CHECKERS`] checkers each, by backward
//!   induction over both sides' plays.
//!
//! Positions are numbered by the combinatorial number system: with `s_k`
//! the checkers on points 1..=k, the six numbers `s_k + k - 1` are distinct
//! and increasing, and their ranks `sum C(s_k + k - 1, k)` number the
//! positions densely, fewer checkers first.
//!
//! [`Bearoff::to_bytes`] stores both compactly (u16 fixed point, only the
//! non-zero range of each distribution) with a SHA-256 checksum; building
//! takes a few seconds, so callers cache the bytes in a file
//! ([`load_or_build`]), which is built again when it fails its checks.

use std::path::Path;

use rayon::prelude::*;

use crate::evaluation::probs::Probs;
use crate::rules::dice::Dice;
use crate::rules::movegen::{generate, MoveList};
use crate::rules::position::{Checkers, Position};
use sha2::{Digest, Sha256};

/// Positions of up to 15 checkers on 6 points: C(21, 6).
pub const ONE_SIDED: usize = 54_264;
/// Checkers per side covered by the two-sided table.
pub const TWO_SIDED_CHECKERS: u32 = 6;
/// Positions of up to 6 checkers on 6 points: C(12, 6).
pub const TWO_SIDED: usize = 924;
/// Longest bear-off, in turns (15 checkers on the six point take at most
/// 30 turns of 2-1).
pub const MAX_TURNS: usize = 32;

const MAGIC: &[u8; 8] = b"SHBEAROF";
/// 2: the bytes end with the SHA-256 of all before them.
const FORMAT: u32 = 2;
/// Bytes of the checksum at the end.
const DIGEST: usize = 32;

fn binom(n: u32, k: u32) -> u32 {
    if k > n {
        return 0;
    }
    let mut r = 1u64;
    for i in 0..k {
        r = r * u64::from(n - i) / u64::from(i + 1);
    }
    r as u32
}

/// C(n, k) for n < 22, k <= 6.
static BINOM: std::sync::LazyLock<[[u32; 7]; 22]> = std::sync::LazyLock::new(|| {
    let mut t = [[0u32; 7]; 22];
    for (n, row) in t.iter_mut().enumerate() {
        for (k, v) in row.iter_mut().enumerate() {
            *v = binom(n as u32, k as u32);
        }
    }
    t
});

/// The index of a side's home-board position (points 1..6 only).
#[inline]
pub fn index(side: &Checkers) -> usize {
    let b = &*BINOM;
    let mut s = 0u32;
    let mut r = 0u32;
    for k in 1..=6u32 {
        s += u32::from(side.at(k as usize));
        r += b[(s + k - 1) as usize][k as usize];
    }
    r as usize
}

/// Every position with all checkers at home, by index.
fn all_positions() -> Vec<Checkers> {
    let mut out = vec![Checkers::EMPTY; ONE_SIDED];
    let mut c = [0u8; 6];
    fn rec(k: usize, left: u8, c: &mut [u8; 6], out: &mut Vec<Checkers>) {
        if k == 6 {
            let mut pts = [0u8; 24];
            pts[..6].copy_from_slice(c);
            let side = Checkers::from_points(&pts, 0).expect("at most 15");
            let i = index(&side);
            out[i] = side;
            return;
        }
        for n in 0..=left {
            c[k] = n;
            rec(k + 1, left - n, c, out);
        }
        c[k] = 0;
    }
    rec(0, 15, &mut c, &mut out);
    out
}

/// A distribution over turns.
type Dist = [f32; MAX_TURNS];

fn mean(d: &Dist) -> f32 {
    d.iter().enumerate().map(|(n, p)| n as f32 * p).sum()
}

/// Both databases, in memory.
#[derive(Clone, Debug, PartialEq)]
pub struct Bearoff {
    /// Turns to bear all off, by index.
    off: Vec<Dist>,
    /// Turns to bear the first checker off (zero when one is off already).
    first: Vec<Dist>,
    /// Two-sided winning chance of the player on roll, `me * TWO_SIDED + opp`.
    two_sided: Vec<u16>,
}

impl Bearoff {
    /// Computes both databases (a few seconds, on all threads).
    pub fn build() -> Bearoff {
        let positions = all_positions();
        let mut order: Vec<usize> = (0..ONE_SIDED).collect();
        order.sort_by_key(|&i| positions[i].pips());
        let mut off = vec![[0.0f32; MAX_TURNS]; ONE_SIDED];
        let mut first = vec![[0.0f32; MAX_TURNS]; ONE_SIDED];
        let mut off_mean = vec![0.0f32; ONE_SIDED];
        let mut first_mean = vec![0.0f32; ONE_SIDED];
        off[0][0] = 1.0;
        first[0][0] = 1.0;
        // Positions in order of pips: every play leads to fewer pips.
        let mut list = MoveList::new();
        for &i in &order[1..] {
            let side = positions[i];
            let pos = Position {
                me: side,
                opp: Checkers::EMPTY,
            };
            let mut d_off = [0.0f32; MAX_TURNS];
            let mut d_first = [0.0f32; MAX_TURNS];
            let none_off = side.off() == 0;
            for dice in Dice::all_21() {
                generate(&pos, dice, &mut list);
                let w = dice.weight() as f32 / 36.0;
                let best = list
                    .iter()
                    .map(|c| index(&c.position.me))
                    .min_by(|&a, &b| off_mean[a].total_cmp(&off_mean[b]))
                    .expect("a play");
                for n in 1..MAX_TURNS {
                    d_off[n] += w * off[best][n - 1];
                }
                if none_off {
                    let best = list
                        .iter()
                        .map(|c| index(&c.position.me))
                        .min_by(|&a, &b| first_mean[a].total_cmp(&first_mean[b]))
                        .expect("a play");
                    for n in 1..MAX_TURNS {
                        d_first[n] += w * first[best][n - 1];
                    }
                }
            }
            if !none_off {
                d_first[0] = 1.0;
            }
            off_mean[i] = mean(&d_off);
            first_mean[i] = mean(&d_first);
            off[i] = d_off;
            first[i] = d_first;
        }
        let two_sided = build_two_sided(&positions);
        Bearoff {
            off,
            first,
            two_sided,
        }
    }

    /// Whether the databases apply: no contact, every checker home.
    pub fn covers(pos: &Position) -> bool {
        pos.me.all_home() && pos.opp.all_home()
    }

    /// Outcome probabilities of a covered position for the player on roll.
    pub fn probs(&self, pos: &Position) -> Probs {
        let (a, b) = (index(&pos.me), index(&pos.opp));
        if a < TWO_SIDED && b < TWO_SIDED {
            let w = f32::from(self.two_sided[a * TWO_SIDED + b]) / 65535.0;
            return Probs([w, 0.0, 0.0, 0.0, 0.0]);
        }
        let (me, opp) = (&self.off[a], &self.off[b]);
        // I win when I finish on my n-th turn and the opponent needs n or
        // more (it has had n - 1 turns by then).
        let mut opp_tail = [0.0f32; MAX_TURNS + 1];
        let mut opp_first_tail = [0.0f32; MAX_TURNS + 1];
        let mut me_first_tail = [0.0f32; MAX_TURNS + 1];
        for n in (0..MAX_TURNS).rev() {
            opp_tail[n] = opp_tail[n + 1] + opp[n];
            opp_first_tail[n] = opp_first_tail[n + 1] + self.first[b][n];
            me_first_tail[n] = me_first_tail[n + 1] + self.first[a][n];
        }
        let mut win = 0.0;
        let mut win_g = 0.0;
        let mut lose_g = 0.0;
        for n in 1..MAX_TURNS {
            win += me[n] * opp_tail[n];
            win_g += me[n] * opp_first_tail[n];
            // The opponent finishes on its n-th turn, after my n turns.
            lose_g += opp[n] * me_first_tail[(n + 1).min(MAX_TURNS)];
        }
        let mut p = Probs([win.min(1.0), 0.0, 0.0, 0.0, 0.0]);
        if pos.opp.off() == 0 {
            p.0[1] = win_g;
        }
        if pos.me.off() == 0 {
            p.0[3] = lose_g;
        }
        p.consistent()
    }

    /// Mean turns to bear off a side (covered positions only).
    pub fn mean_turns(&self, side: &Checkers) -> f32 {
        mean(&self.off[index(side)])
    }

    /// The compact serialized form.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        out.extend(FORMAT.to_le_bytes());
        for table in [&self.off, &self.first] {
            for d in table.iter() {
                let lo = d.iter().position(|&p| p > 0.0).unwrap_or(0);
                let hi = d.iter().rposition(|&p| p > 0.0).map_or(lo, |h| h + 1);
                out.push(lo as u8);
                out.push((hi - lo) as u8);
                for &p in &d[lo..hi] {
                    out.extend(((p * 65535.0).round() as u16).to_le_bytes());
                }
            }
        }
        for &w in &self.two_sided {
            out.extend(w.to_le_bytes());
        }
        let digest = Sha256::digest(&out);
        out.extend_from_slice(&digest);
        out
    }

    /// Reads [`Self::to_bytes`]'s form, checking its checksum (a cache
    /// damaged on disk would otherwise turn wins into losses) and its
    /// structure.
    pub fn from_bytes(bytes: &[u8]) -> Result<Bearoff, String> {
        if bytes.len() < 12 || &bytes[..8] != MAGIC {
            return Err("not a bear-off database (bad magic bytes)".into());
        }
        let format = u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes"));
        if format != FORMAT {
            return Err(format!(
                "bear-off database format {format}, this build reads {FORMAT}"
            ));
        }
        if bytes.len() < 12 + DIGEST {
            return Err("bear-off database is truncated".into());
        }
        let (bytes, digest) = bytes.split_at(bytes.len() - DIGEST);
        if Sha256::digest(bytes).as_slice() != digest {
            return Err("bear-off database fails its checksum".into());
        }
        let mut at = 12;
        let mut take = |n: usize| -> Result<&[u8], String> {
            let s = bytes
                .get(at..at + n)
                .ok_or("bear-off database is truncated")?;
            at += n;
            Ok(s)
        };
        let mut tables = Vec::new();
        for _ in 0..2 {
            let mut t = vec![[0.0f32; MAX_TURNS]; ONE_SIDED];
            for d in t.iter_mut() {
                let h = take(2)?;
                let (lo, len) = (usize::from(h[0]), usize::from(h[1]));
                if lo + len > MAX_TURNS {
                    return Err("bear-off database has a distribution out of range".into());
                }
                let v = take(2 * len)?;
                for k in 0..len {
                    d[lo + k] = f32::from(u16::from_le_bytes([v[2 * k], v[2 * k + 1]])) / 65535.0;
                }
            }
            tables.push(t);
        }
        let raw = take(2 * TWO_SIDED * TWO_SIDED)?;
        let two_sided = raw
            .chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .collect();
        if at != bytes.len() {
            return Err("bear-off database has trailing bytes".into());
        }
        let first = tables.pop().expect("two tables");
        let off = tables.pop().expect("two tables");
        Ok(Bearoff {
            off,
            first,
            two_sided,
        })
    }
}

/// The exact two-sided table by backward induction, layer by layer of
/// total pips (every play lowers the total, so a layer needs only lower
/// ones), each layer in parallel.
fn build_two_sided(positions: &[Checkers]) -> Vec<u16> {
    let n = TWO_SIDED;
    let mut win = vec![0.0f32; n * n];
    let pips: Vec<u32> = positions[..n].iter().map(Checkers::pips).collect();
    let max = 2 * pips.iter().max().copied().unwrap_or(0);
    for total in 1..=max {
        let cells: Vec<(usize, usize)> = (0..n)
            .flat_map(|a| (0..n).map(move |b| (a, b)))
            .filter(|&(a, b)| pips[a] + pips[b] == total)
            .collect();
        let values: Vec<f32> = cells
            .par_iter()
            .map_init(MoveList::new, |list, &(a, b)| {
                if a == 0 {
                    return 0.0; // I have borne off: the game ended before.
                }
                if b == 0 {
                    return 0.0; // The opponent has finished: I lost.
                }
                let pos = Position {
                    me: positions[a],
                    opp: positions[b],
                };
                let mut v = 0.0;
                for dice in Dice::all_21() {
                    generate(&pos, dice, list);
                    let best = list
                        .iter()
                        .map(|c| {
                            let a2 = index(&c.position.me);
                            if a2 == 0 {
                                1.0
                            } else {
                                1.0 - win[b * n + a2]
                            }
                        })
                        .fold(0.0f32, f32::max);
                    v += best * dice.weight() as f32 / 36.0;
                }
                v
            })
            .collect();
        for (&(a, b), v) in cells.iter().zip(values) {
            win[a * n + b] = v;
        }
    }
    win.iter().map(|&w| (w * 65535.0).round() as u16).collect()
}

/// Where the databases are cached: `$SHESHBESH_CACHE_DIR`, else
/// `$XDG_CACHE_HOME/sheshbesh`, else `~/.cache/sheshbesh`, else the
/// system's temporary folder; file `bearoff-v2.bin` (the format's number).
pub fn default_path() -> std::path::PathBuf {
    let env = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty());
    let dir = env("SHESHBESH_CACHE_DIR")
        .map(std::path::PathBuf::from)
        .or_else(|| env("XDG_CACHE_HOME").map(|d| Path::new(&d).join("sheshbesh")))
        .or_else(|| env("HOME").map(|d| Path::new(&d).join(".cache").join("sheshbesh")))
        .unwrap_or_else(|| std::env::temp_dir().join("sheshbesh"));
    dir.join(format!("bearoff-v{FORMAT}.bin"))
}

/// Loads the databases from `path`, or builds them and writes `path`
/// (atomically, through a temporary file) for the next run: also when
/// the file fails its checksum or structure, or is longer than any
/// database (a few megabytes).
pub fn load_or_build(path: &Path) -> std::io::Result<Bearoff> {
    if let Ok(bytes) = crate::formats::files::read_bounded(path, 64 << 20) {
        if let Ok(db) = Bearoff::from_bytes(&bytes) {
            return Ok(db);
        }
    }
    let db = Bearoff::build();
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    crate::formats::files::write_atomic(path, &db.to_bytes())?;
    Ok(db)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn side(points: &[(usize, u8)]) -> Checkers {
        crate::rules::position::test_side(points, 0)
    }

    #[test]
    fn indices_are_dense_and_distinct() {
        let all = all_positions();
        let mut seen = vec![false; ONE_SIDED];
        for c in &all {
            let i = index(c);
            assert!(!seen[i]);
            seen[i] = true;
        }
        assert_eq!(index(&Checkers::EMPTY), 0);
        assert!(index(&side(&[(6, 6)])) < TWO_SIDED);
        assert!(index(&side(&[(6, 7)])) >= TWO_SIDED);
    }

    #[test]
    fn known_values() {
        let db = Bearoff::build();
        // One checker on the ace point: off in one turn.
        assert!((db.mean_turns(&side(&[(1, 1)])) - 1.0).abs() < 1e-6);
        // Two on the ace point: one turn.
        assert!((db.mean_turns(&side(&[(1, 2)])) - 1.0).abs() < 1e-6);
        // One checker on the 6 point against one on the ace point, me on
        // roll: I win when my roll carries it 6 pips or more.
        let pos = Position {
            me: side(&[(6, 1)]),
            opp: side(&[(1, 1)]),
        };
        let mut wins = 0;
        for d in Dice::all_21() {
            let total = if d.is_double() {
                4 * d.high()
            } else {
                d.high() + d.low()
            };
            if total >= 6 {
                wins += d.weight();
            }
        }
        let p = db.probs(&pos);
        assert!(
            (p.win() - wins as f32 / 36.0).abs() < 1e-4,
            "{} vs {}",
            p.win(),
            wins
        );
        // A round trip through the compact form.
        let back = Bearoff::from_bytes(&db.to_bytes()).unwrap();
        let q = back.probs(&Position {
            me: side(&[(6, 5), (5, 5), (4, 5)]),
            opp: side(&[(3, 5), (2, 5), (1, 5)]),
        });
        let r = db.probs(&Position {
            me: side(&[(6, 5), (5, 5), (4, 5)]),
            opp: side(&[(3, 5), (2, 5), (1, 5)]),
        });
        for k in 0..5 {
            assert!((q.0[k] - r.0[k]).abs() < 1e-3);
        }
        assert!(r.0[1] < 1e-4 && r.0[3] < 1e-4);
        // Fifteen on my 6 point against one on the opponent's ace point: I
        // am gammoned unless my first roll bears a checker off: any 6, 5-1,
        // 4-2, 3-3 and 2-2 do (17 of 36); 4-4 and 5-5 do not, as a die
        // larger than needed bears off only from the highest point.
        let p = db.probs(&Position {
            me: side(&[(6, 15)]),
            opp: side(&[(1, 1)]),
        });
        assert!(p.win() < 1e-6);
        assert!((p.0[3] - 19.0 / 36.0).abs() < 1e-4, "{p:?}");
        assert!(Bearoff::from_bytes(&db.to_bytes()[..1000]).is_err());
        // A cache zeroed in part (a disk's damage) fails its checksum,
        // and load_or_build builds the databases again over it.
        let mut bytes = db.to_bytes();
        let mid = bytes.len() / 2;
        bytes[mid..mid + 4096].fill(0);
        let e = Bearoff::from_bytes(&bytes).unwrap_err();
        assert!(e.contains("checksum"), "{e}");
        let dir = std::env::temp_dir().join(format!("sheshbesh-bearoff-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("bearoff.bin");
        std::fs::write(&path, &bytes).unwrap();
        let rebuilt = load_or_build(&path).unwrap();
        assert_eq!(rebuilt.probs(&pos_far()), db.probs(&pos_far()));
        assert!(Bearoff::from_bytes(&std::fs::read(&path).unwrap()).is_ok());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    fn pos_far() -> Position {
        Position {
            me: side(&[(6, 5), (5, 5), (4, 5)]),
            opp: side(&[(3, 5), (2, 5), (1, 5)]),
        }
    }
}
