//! Head-to-head cubeless money games on duplicate dice: the yardstick for
//! playing strength.
//!
//! Each dice stream is played twice with the sides swapped, so luck largely
//! cancels and the points per game measure skill. Stream `i` of a duel with
//! seed `s` comes from its own generator seeded by `(s, i)`, so any game
//! can be replayed alone, in any order, on any number of threads.

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::rules::dice::Dice;
use crate::rules::movegen::{generate, MoveList};
use crate::rules::position::Position;
use crate::rules::scoring::{win_kind, WinKind};
use crate::search::chooser::Chooser;

/// The dice of one stream: a non-double opening roll, then any rolls.
#[derive(Clone, Debug)]
pub struct DiceStream(Xoshiro256PlusPlus);

impl DiceStream {
    /// Stream `index` of the duel seeded `seed`.
    pub fn new(seed: u64, index: u64) -> DiceStream {
        // seed_from_u64 expands through SplitMix64, so nearby inputs give
        // unrelated streams.
        DiceStream(Xoshiro256PlusPlus::seed_from_u64(
            seed.rotate_left(32) ^ index.wrapping_mul(0x9E37_79B9_7F4A_7C15),
        ))
    }

    fn die(&mut self) -> u8 {
        self.0.gen_range(1..=6)
    }

    /// The opening roll (ties re-rolled, as the opening rule says).
    pub fn opening(&mut self) -> Dice {
        loop {
            let (a, b) = (self.die(), self.die());
            if a != b {
                return Dice::new(a, b).expect("1..6");
            }
        }
    }

    /// The next roll.
    pub fn roll(&mut self) -> Dice {
        Dice::new(self.die(), self.die()).expect("1..6")
    }
}

/// Plays one cubeless game; `players[0]` moves first. Returns the points
/// won by player 0 (negative when player 1 wins): 1, 2 or 3 times the sign.
pub fn play_game(players: &mut [&mut dyn Chooser; 2], dice: &mut DiceStream) -> i32 {
    let mut list = MoveList::new();
    let mut pos = Position::start();
    let mut roll = dice.opening();
    let mut mover = 0usize;
    loop {
        generate(&pos, roll, &mut list);
        let i = players[mover].choose(&pos, list.as_slice());
        let after = list.as_slice()[i].position;
        if after.me.off() == 15 {
            let points = match win_kind(&after.opp) {
                WinKind::Single => 1,
                WinKind::Gammon => 2,
                WinKind::Backgammon => 3,
            };
            return if mover == 0 { points } else { -points };
        }
        pos = after.swapped();
        mover = 1 - mover;
        roll = dice.roll();
    }
}

/// Points per game of a duel, with its standard error.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DuelResult {
    /// Games played (twice the number of streams).
    pub games: u64,
    /// Mean points per game won by the first player.
    pub ppg: f64,
    /// Standard error of `ppg`, from the variance of the per-stream pair
    /// means (the pair is the independent unit under duplicate dice).
    pub se: f64,
}

/// Plays `streams` duplicate pairs of games between `a` and `b`; results are
/// from `a`'s side.
pub fn duel(a: &mut dyn Chooser, b: &mut dyn Chooser, streams: u64, seed: u64) -> DuelResult {
    let mut pair_means = Vec::with_capacity(streams as usize);
    for i in 0..streams {
        let g1 = play_game(&mut [&mut *a, &mut *b], &mut DiceStream::new(seed, i));
        let g2 = -play_game(&mut [&mut *b, &mut *a], &mut DiceStream::new(seed, i));
        pair_means.push(f64::from(g1 + g2) / 2.0);
    }
    summarize(&pair_means)
}

/// [`duel`] over rayon's threads: each stream gets fresh players from the
/// factories, so the result is the same for any number of threads.
pub fn duel_parallel<A, B>(
    make_a: impl Fn() -> A + Sync,
    make_b: impl Fn() -> B + Sync,
    streams: u64,
    seed: u64,
) -> DuelResult
where
    A: Chooser,
    B: Chooser,
{
    use rayon::prelude::*;
    let pair_means: Vec<f64> = (0..streams)
        .into_par_iter()
        .map(|i| {
            let (mut a, mut b) = (make_a(), make_b());
            let g1 = play_game(&mut [&mut a, &mut b], &mut DiceStream::new(seed, i));
            let g2 = -play_game(&mut [&mut b, &mut a], &mut DiceStream::new(seed, i));
            f64::from(g1 + g2) / 2.0
        })
        .collect();
    summarize(&pair_means)
}

/// Mean and standard error of per-pair means.
pub fn summarize(pair_means: &[f64]) -> DuelResult {
    let n = pair_means.len() as f64;
    let mean = pair_means.iter().sum::<f64>() / n.max(1.0);
    let var = if n > 1.0 {
        pair_means.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)
    } else {
        0.0
    };
    DuelResult {
        games: 2 * pair_means.len() as u64,
        ppg: mean,
        se: (var / n.max(1.0)).sqrt(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::chooser::{Pubeval, RandomPlayer};

    #[test]
    fn a_player_against_itself_scores_zero_on_duplicate_dice() {
        let r = duel(&mut Pubeval, &mut Pubeval, 50, 7);
        assert_eq!(r.ppg, 0.0);
        assert_eq!(r.se, 0.0);
        assert_eq!(r.games, 100);
    }

    #[test]
    fn streams_are_reproducible() {
        let a = play_game(
            &mut [&mut Pubeval, &mut RandomPlayer::new(1)],
            &mut DiceStream::new(3, 9),
        );
        let b = play_game(
            &mut [&mut Pubeval, &mut RandomPlayer::new(1)],
            &mut DiceStream::new(3, 9),
        );
        assert_eq!(a, b);
    }

    #[test]
    fn pubeval_crushes_random_play() {
        let r = duel(&mut Pubeval, &mut RandomPlayer::new(5), 100, 11);
        assert!(r.ppg > 0.8 && r.ppg - 3.0 * r.se > 0.0, "{r:?}");
    }
}
