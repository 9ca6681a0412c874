//! Trials played in batches over rayon's threads, so that stopping points
//! (target error, interruption, progress) do not depend on the number of
//! threads.

use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;

/// Trials per batch: results are checked (target error, interruption,
/// progress) only between batches, so stopping points do not depend on the
/// number of threads. Four rounds of 36 give each thread enough games of
/// uneven length to keep busy until the batch ends.
pub const BATCH: u32 = 144;

/// The first batch: a quarter of [`BATCH`], so a progress bar moves within
/// a second.
const FIRST_BATCH: u32 = 36;

/// Plays trials `0..trials` in batches over rayon's threads, summarizing
/// after each batch for `progress` and the target error; a `stop` is seen
/// between trials, and the trials after the first one skipped are dropped,
/// so the result always covers trials `0..n`.
pub(crate) fn run_batches<T: Send, R>(
    trials: u32,
    target_se: Option<f32>,
    stop: &AtomicBool,
    play: impl Fn(u32) -> T + Sync,
    summarize: impl Fn(&[T]) -> R,
    se: impl Fn(&R) -> f32,
    mut progress: impl FnMut(&R),
) -> R {
    let mut done_trials: Vec<T> = Vec::with_capacity(trials as usize);
    let mut done = 0u32;
    while done < trials && !stop.load(Ordering::Relaxed) {
        // A first short batch, so progress shows early; then batches that
        // end on multiples of BATCH.
        let step = if done == 0 {
            FIRST_BATCH
        } else {
            BATCH - done % BATCH
        };
        let hi = (done + step).min(trials);
        let batch: Vec<Option<T>> = (done..hi)
            .into_par_iter()
            .map(|i| (!stop.load(Ordering::Relaxed)).then(|| play(i)))
            .collect();
        let complete = batch.iter().take_while(|t| t.is_some()).count();
        done_trials.extend(batch.into_iter().take(complete).flatten());
        done += complete as u32;
        let r = summarize(&done_trials);
        progress(&r);
        if done < hi {
            break;
        }
        if target_se.is_some_and(|t| done >= 2 * BATCH && se(&r) <= t) {
            break;
        }
    }
    summarize(&done_trials)
}
