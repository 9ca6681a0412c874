//! Evaluators: anything that gives [`Probs`] for positions, and the net
//! evaluator that picks a net by game phase.
//!
//! Evaluators stack: [`crate::search::Ply`] wraps any [`Evaluator`] to look
//! further ahead, and a rollout wraps either. Tests use
//! [`Evaluator`] doubles instead of a trained net.

use std::sync::Arc;

use crate::bearoff::Bearoff;
use crate::inputs::{Layout, SparseInputs};
use crate::movegen::Candidate;
use crate::net::Net;
use crate::position::{Checkers, Position, CHECKERS};
use crate::probs::Probs;
use crate::rules::{win_kind, WinKind};
use crate::weights::{WeightsError, WeightsSet};

/// Gives outcome probabilities for the player on roll, before the roll.
pub trait Evaluator: Sync {
    /// Evaluates a batch: `out[i]` for `positions[i]` (same lengths).
    fn eval_batch(&self, positions: &[Position], out: &mut [Probs]);

    /// Evaluates one position.
    fn eval(&self, pos: &Position) -> Probs {
        let mut out = [Probs::default()];
        self.eval_batch(std::slice::from_ref(pos), &mut out);
        out[0]
    }
}

/// The value, for the mover, of a play's resulting board (mover's view):
/// exact when the play ends the game, otherwise the evaluation of the
/// opponent's turn, flipped.
pub fn after_value<E: Evaluator + ?Sized>(eval: &E, after: &Position) -> Probs {
    match final_result(after) {
        Some(p) => p,
        None => eval.eval(&after.swapped()).flipped(),
    }
}

/// The exact result for the mover when `after` (mover's view) ends the
/// game, else `None`.
pub fn final_result(after: &Position) -> Option<Probs> {
    if after.me.off() != 15 {
        return None;
    }
    Some(Probs::certain(match win_kind(&after.opp) {
        WinKind::Single => 1,
        WinKind::Gammon => 2,
        WinKind::Backgammon => 3,
    }))
}

/// Values of every candidate for the mover (batched), into `out`.
pub fn candidate_values<E: Evaluator + ?Sized>(
    eval: &E,
    candidates: &[Candidate],
    out: &mut Vec<Probs>,
) {
    thread_local! {
        static SCRATCH: std::cell::RefCell<Vec<Position>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    out.clear();
    out.resize(candidates.len(), Probs::default());
    SCRATCH.with(|s| {
        let mut swapped = s.borrow_mut();
        swapped.clear();
        swapped.extend(candidates.iter().map(|c| c.position.swapped()));
        eval.eval_batch(&swapped, out);
    });
    for (o, c) in out.iter_mut().zip(candidates) {
        *o = match final_result(&c.position) {
            Some(p) => p,
            None => o.flipped(),
        };
    }
}

/// Index of the highest cubeless equity (the first on ties).
pub fn argmax_equity(values: &[Probs]) -> usize {
    let mut best = 0;
    for (i, v) in values.iter().enumerate().skip(1) {
        if v.equity() > values[best].equity() {
            best = i;
        }
    }
    best
}

/// The best candidate by cubeless equity, and its value.
pub fn best_candidate<E: Evaluator + ?Sized>(
    eval: &E,
    candidates: &[Candidate],
    scratch: &mut Vec<Probs>,
) -> (usize, Probs) {
    candidate_values(eval, candidates, scratch);
    let best = argmax_equity(scratch);
    (best, scratch[best])
}

/// A player that takes the play with the best 0-ply equity.
pub struct Greedy<'a, E: Evaluator + ?Sized> {
    eval: &'a E,
    scratch: Vec<Probs>,
}

impl<'a, E: Evaluator + ?Sized> Greedy<'a, E> {
    /// Plays by `eval`.
    pub fn new(eval: &'a E) -> Self {
        Greedy {
            eval,
            scratch: Vec::new(),
        }
    }
}

impl<E: Evaluator + ?Sized> crate::duel::Chooser for Greedy<'_, E> {
    fn choose(&mut self, _before: &Position, candidates: &[Candidate]) -> usize {
        best_candidate(self.eval, candidates, &mut self.scratch).0
    }
}

/// Which net a position belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// The sides can still hit each other.
    Contact,
    /// Contact where a side has crashed: at most six of its checkers
    /// still in play beyond those piled on its ace and deuce points (bearing
    /// off against an anchor, a busted back game). Its own net when the
    /// weights have one, else the contact net.
    Crashed,
    /// A pure race.
    Race,
}

impl Phase {
    /// The phase of a position.
    pub fn of(pos: &Position) -> Phase {
        if !pos.is_contact() {
            Phase::Race
        } else if crashed(&pos.me) || crashed(&pos.opp) {
            Phase::Crashed
        } else {
            Phase::Contact
        }
    }
}

/// Whether a side in contact has crashed: at most six of its checkers
/// (bar included, borne off not) are still in play once the dead ones on
/// its low points are set aside — a pile of two or more on the ace point
/// with all but one of a pile on the deuce point, or with a bare ace point
/// all but one of the deuce point's (gnubg's class of the same name).
fn crashed(side: &Checkers) -> bool {
    const LIVE: i32 = 6;
    let in_play = i32::from(CHECKERS - side.off());
    let (ace, deuce) = (i32::from(side.at(1)), i32::from(side.at(2)));
    if in_play <= LIVE {
        return true;
    }
    if ace > 1 {
        in_play - ace <= LIVE || (deuce > 1 && in_play - ace - (deuce - 1) <= LIVE)
    } else {
        in_play - (deuce - 1) <= LIVE
    }
}

/// The neural evaluator: a contact net, a race net, and the bear-off
/// databases once every checker is home.
#[derive(Clone, Debug, PartialEq)]
pub struct NetEvaluator {
    /// Net for positions with contact.
    pub contact: Net,
    /// Net for races.
    pub race: Net,
    /// Net for crashed positions (`None`: the contact net plays them).
    pub crashed: Option<Net>,
    /// Exact values for bear-offs (`None`: the race net plays them too).
    pub bearoff: Option<Arc<Bearoff>>,
    /// The input layout both nets read.
    pub layout: Layout,
}

impl NetEvaluator {
    /// Builds the evaluator from a weights file's nets.
    pub fn from_weights(set: &WeightsSet) -> Result<NetEvaluator, WeightsError> {
        Ok(NetEvaluator {
            contact: set.get("contact")?.clone(),
            race: set.get("race")?.clone(),
            crashed: set.get("crashed").ok().cloned(),
            bearoff: None,
            layout: set.layout,
        })
    }

    /// With the bear-off databases.
    pub fn with_bearoff(mut self, db: Arc<Bearoff>) -> NetEvaluator {
        self.bearoff = Some(db);
        self
    }

    /// The exact value when the databases cover `pos`.
    #[inline]
    pub fn exact(&self, pos: &Position) -> Option<Probs> {
        match &self.bearoff {
            Some(db) if Bearoff::covers(pos) => Some(db.probs(pos)),
            _ => None,
        }
    }

    /// The nets as a weights set, with provenance text.
    pub fn to_weights(&self, provenance: &str) -> WeightsSet {
        let mut nets = vec![
            ("contact".into(), self.contact.clone()),
            ("race".into(), self.race.clone()),
        ];
        if let Some(c) = &self.crashed {
            nets.push(("crashed".into(), c.clone()));
        }
        WeightsSet {
            layout: self.layout,
            nets,
            provenance: provenance.into(),
        }
    }

    /// Encodes `pos` as the nets read it (training must use this too, so
    /// that what is learnt is what is evaluated).
    #[inline]
    pub fn encode_into(&self, pos: &Position, x: &mut SparseInputs) {
        x.fill_as(pos, self.layout);
    }

    /// The net for a phase.
    pub fn net(&self, phase: Phase) -> &Net {
        match phase {
            Phase::Contact => &self.contact,
            Phase::Crashed => self.crashed.as_ref().unwrap_or(&self.contact),
            Phase::Race => &self.race,
        }
    }

    /// The net that evaluates `pos`: as [`Phase::of`], but the crashed
    /// test, on the hot path, is made only when there is a crashed net.
    #[inline]
    fn net_for(&self, pos: &Position) -> &Net {
        if !pos.is_contact() {
            &self.race
        } else {
            match &self.crashed {
                Some(c) if crashed(&pos.me) || crashed(&pos.opp) => c,
                _ => &self.contact,
            }
        }
    }

    /// The net for a phase, mutably (training).
    pub fn net_mut(&mut self, phase: Phase) -> &mut Net {
        match (phase, &mut self.crashed) {
            (Phase::Crashed, Some(c)) => c,
            (Phase::Contact | Phase::Crashed, _) => &mut self.contact,
            (Phase::Race, _) => &mut self.race,
        }
    }

    /// `self += scale * (other - base)` for every net ([`Net::add_delta`]):
    /// folds another worker's progress since `base` into this evaluator.
    /// The three must have the same nets.
    pub fn add_delta(&mut self, other: &NetEvaluator, base: &NetEvaluator, scale: f32) {
        self.contact.add_delta(&other.contact, &base.contact, scale);
        self.race.add_delta(&other.race, &base.race, scale);
        if let (Some(c), Some(o), Some(b)) = (&mut self.crashed, &other.crashed, &base.crashed) {
            c.add_delta(o, b, scale);
        }
    }
}

/// Removes outcomes the position rules out: no gammons once the loser has
/// borne a checker off, no backgammons in a race where the loser is out of
/// the winner's home board, then orders the outputs.
pub fn sanitize(pos: &Position, p: Probs) -> Probs {
    let mut v = p.0;
    if pos.opp.off() > 0 {
        v[1] = 0.0;
        v[2] = 0.0;
    }
    if pos.me.off() > 0 {
        v[3] = 0.0;
        v[4] = 0.0;
    }
    if !pos.is_contact() {
        // The opponent's checkers in my home board (its 19..24) or on its bar.
        if pos.opp.occupied() & (0x3F << 19) == 0 {
            v[2] = 0.0;
        }
        if pos.me.occupied() & (0x3F << 19) == 0 {
            v[4] = 0.0;
        }
    }
    Probs(v).consistent()
}

impl Evaluator for NetEvaluator {
    fn eval_batch(&self, positions: &[Position], out: &mut [Probs]) {
        let mut x = SparseInputs::default();
        let mut act = self.contact.activations();
        for (pos, o) in positions.iter().zip(out.iter_mut()) {
            if let Some(p) = self.exact(pos) {
                *o = p;
                continue;
            }
            self.encode_into(pos, &mut x);
            *o = sanitize(pos, self.net_for(pos).eval(&x, &mut act));
        }
    }
}

/// Test doubles.
#[cfg(test)]
pub(crate) mod testing {
    use super::*;

    /// Knows only the pip count: a logistic in the race lead (the roll
    /// counting 8 pips) over a scale of `self.0` pips, without gammons.
    pub struct PipRace(pub f32);

    impl Evaluator for PipRace {
        fn eval_batch(&self, positions: &[Position], out: &mut [Probs]) {
            for (p, o) in positions.iter().zip(out) {
                let (me, opp) = p.pips();
                let w = 1.0 / (1.0 + (-(opp as f32 - me as f32 + 8.0) / self.0).exp());
                *o = Probs([w, 0.0, 0.0, 0.0, 0.0]);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dice::Dice;
    use crate::movegen::legal_moves;

    /// Prefers whoever has fewer pips (a test double).
    struct PipCounter;

    impl Evaluator for PipCounter {
        fn eval_batch(&self, positions: &[Position], out: &mut [Probs]) {
            for (p, o) in positions.iter().zip(out) {
                let (me, opp) = p.pips();
                let w = 0.5 + (opp as f32 - me as f32) / 100.0;
                *o = Probs([w.clamp(0.0, 1.0), 0.0, 0.0, 0.0, 0.0]);
            }
        }
    }

    #[test]
    fn crashed_positions_are_told_from_contact_and_race() {
        use crate::position::test_side as side;
        assert_eq!(Phase::of(&Position::start()), Phase::Contact);
        // I hold the opponent's 1 point; it has six checkers left, all on
        // its low points: it has crashed.
        let me = side(&[(24, 2), (13, 5), (8, 4), (6, 4)], 0);
        let six = side(&[(3, 2), (2, 2), (1, 2)], 0);
        assert_eq!(Phase::of(&Position { me, opp: six }), Phase::Crashed);
        // Ten checkers, but six of them dead on its ace: four live.
        let piled = side(&[(3, 1), (2, 2), (1, 6), (5, 1)], 0);
        assert_eq!(Phase::of(&Position { me, opp: piled }), Phase::Crashed);
        // Ten checkers spread over its home board: not crashed.
        let spread = side(&[(6, 2), (5, 2), (4, 2), (3, 2), (2, 2)], 0);
        assert_eq!(Phase::of(&Position { me, opp: spread }), Phase::Contact);
        // No contact: a race, however few checkers are left.
        let home = side(&[(6, 2), (5, 2), (4, 2), (3, 2), (2, 2), (1, 5)], 0);
        let race = Position {
            me: side(&[(1, 2)], 0),
            opp: home,
        };
        assert_eq!(Phase::of(&race), Phase::Race);
    }

    #[test]
    fn a_crashed_net_is_used_when_present_and_kept_by_the_weights_file() {
        use rand::SeedableRng;
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(9);
        let layout = Layout::V3;
        let mut ev = NetEvaluator {
            contact: Net::random(layout.inputs(), 32, &mut rng),
            race: Net::random(layout.inputs(), 32, &mut rng),
            crashed: None,
            bearoff: None,
            layout,
        };
        assert_eq!(ev.net(Phase::Crashed), &ev.contact);
        let crashed = Net::random(layout.inputs(), 64, &mut rng);
        ev.crashed = Some(crashed.clone());
        assert_eq!(ev.net(Phase::Crashed), &crashed);
        assert_eq!(ev.net_mut(Phase::Crashed), &crashed);
        let bytes = crate::weights::encode(&ev.to_weights("t"));
        let back = NetEvaluator::from_weights(&crate::weights::decode(&bytes).unwrap()).unwrap();
        assert_eq!(back, ev);
    }

    #[test]
    fn the_best_candidate_is_chosen_from_the_movers_side() {
        // With a pip counter every play of 6-5 is equally good, but a play
        // that ends the game beats all.
        let cands = legal_moves(&Position::start(), Dice::new(6, 5).unwrap());
        let mut scratch = Vec::new();
        let (_, v) = best_candidate(&PipCounter, &cands, &mut scratch);
        assert!((v.win() - (0.5 + 11.0 / 100.0)).abs() < 1e-6);
    }

    #[test]
    fn sanitize_drops_impossible_gammons() {
        let mut pos = Position::start();
        pos.opp = crate::position::Checkers::from_points(&[0; 24], 0).unwrap();
        let p = sanitize(&pos, Probs([0.9, 0.5, 0.2, 0.1, 0.05]));
        assert_eq!(p.0[1], 0.0);
        assert_eq!(p.0[2], 0.0);
    }
}
