//! Evaluators: anything that gives [`Probs`] for positions, and the net
//! evaluator that picks a net by game phase and, where it has one, by
//! game plan (a blitz, a back game).
//!
//! Evaluators stack: [`crate::search::ply::Ply`] wraps any [`Evaluator`] to look
//! further ahead, and a rollout wraps either. Tests use
//! [`Evaluator`] doubles instead of a trained net.

use std::sync::Arc;

use crate::evaluation::bearoff::Bearoff;
use crate::evaluation::inputs::{Layout, Reference, SparseInputs};
use crate::evaluation::net::{Activations, FirstLayer, FirstSums, Net, GROUP};
use crate::evaluation::prefilter::{Prefilter, PREFILTER_NET};
use crate::evaluation::probs::Probs;
use crate::evaluation::weights::{WeightsError, WeightsSet};
use crate::rules::movegen::Candidate;
use crate::rules::position::{Checkers, Position};
use crate::rules::scoring::{win_kind, WinKind};

/// Gives outcome probabilities for the player on roll, before the roll.
pub trait Evaluator: Sync {
    /// Evaluates a batch: `out[i]` for `positions[i]` (same lengths).
    fn eval_batch(&self, positions: &[Position], out: &mut [Probs]);

    /// Evaluates a batch of positions that are each a few checkers away
    /// from `near` (the plays of one position, or the first of them): an
    /// evaluator may value them by their differences from `near`, within
    /// rounding of [`Self::eval_batch`], which is the default.
    fn eval_batch_near(&self, near: &Position, positions: &[Position], out: &mut [Probs]) {
        let _ = near;
        self.eval_batch(positions, out);
    }

    /// Prepares `near` once for [`Self::eval_batch_prepared`]: a search
    /// values the plays of each of a position's 21 rolls, all a few
    /// checkers from it, so the work done on `near` is shared by the
    /// rolls. The default keeps only the position.
    fn prepare_near(&self, near: &Position) -> Near<'_> {
        Near {
            pos: *near,
            by: 0,
            state: None,
            evaluator: std::marker::PhantomData,
        }
    }

    /// [`Self::eval_batch_near`] from a position [`Self::prepare_near`]
    /// prepared, within rounding of [`Self::eval_batch`]; the default
    /// (and any evaluator given another's preparation) values them as
    /// `eval_batch_near` does.
    fn eval_batch_prepared(&self, near: &Near<'_>, positions: &[Position], out: &mut [Probs]) {
        self.eval_batch_near(&near.pos, positions, out);
    }

    /// Evaluates one position.
    fn eval(&self, pos: &Position) -> Probs {
        let mut out = [Probs::default()];
        self.eval_batch(std::slice::from_ref(pos), &mut out);
        out[0]
    }

    /// The exact value of `pos` when this evaluator knows it (a bear-off
    /// database), so a rollout can stop there; `None` by default.
    fn exact(&self, _pos: &Position) -> Option<Probs> {
        None
    }

    /// The value function a rollout measures the dice's luck with, when
    /// it is not this evaluator. Any fixed function leaves the luck
    /// adjustment unbiased; what a trial keeps of the dice's noise is that
    /// function's 0-ply/1-ply inconsistency along the game, so a net fitted
    /// for self-consistency measures luck better than one fitted to choose
    /// plays. `None` (the default): this evaluator measures it.
    fn luck_yardstick(&self) -> Option<&dyn Evaluator> {
        None
    }

    /// The small net that ranks a roll's plays so that a rollout's luck
    /// pass values fewer of them ([`crate::evaluation::prefilter`]), when
    /// this evaluator has one; `None` (the default): pubeval alone ranks
    /// them.
    fn prefilter(&self) -> Option<&Prefilter> {
        None
    }
}

/// A position prepared by an evaluator for valuing positions near it
/// ([`Evaluator::prepare_near`]). It borrows the evaluator, which can
/// then be neither changed nor dropped, so the address it was prepared
/// by names that evaluator as long as it lives.
pub struct Near<'a> {
    /// The position.
    pos: Position,
    /// The address of the evaluator that prepared it (0: none did).
    by: usize,
    /// What that evaluator keeps of it.
    state: Option<Box<dyn std::any::Any + Send + Sync>>,
    evaluator: std::marker::PhantomData<&'a ()>,
}

impl Near<'_> {
    /// The prepared position.
    pub fn position(&self) -> &Position {
        &self.pos
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
    candidate_values_near(eval, None, candidates, out)
}

/// [`candidate_values`] of plays of a roll from a position whose other
/// side's view `near` holds (`prepare_near(&before.swapped())`): each
/// play is valued by its differences from the position before it. The
/// preparation is shared by every roll of the position.
pub fn candidate_values_near<E: Evaluator + ?Sized>(
    eval: &E,
    near: Option<&Near<'_>>,
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
        match (near, swapped.first()) {
            (Some(near), _) => eval.eval_batch_prepared(near, &swapped, out),
            (None, Some(first)) => eval.eval_batch_near(first, &swapped, out),
            (None, None) => {}
        }
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

/// Which net a position belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// The sides can still hit each other.
    Contact,
    /// A pure race.
    Race,
}

impl Phase {
    /// The phase of a position.
    pub fn of(pos: &Position) -> Phase {
        if pos.is_contact() {
            Phase::Contact
        } else {
            Phase::Race
        }
    }
}

/// Which of a [`NetEvaluator`]'s nets values a position: its phase's, or
/// for a blitz or a back game, that plan's net when the evaluator has
/// one. A net of its own lets a game plan the contact net plays badly be
/// taught without moving the contact net's other positions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NetClass {
    /// The contact net.
    Contact,
    /// The race net.
    Race,
    /// The blitz net ([`is_blitz`] positions).
    Blitz,
    /// The back-game net ([`is_back_game`] positions that are no blitz).
    BackGame,
}

impl From<Phase> for NetClass {
    fn from(phase: Phase) -> NetClass {
        match phase {
            Phase::Contact => NetClass::Contact,
            Phase::Race => NetClass::Race,
        }
    }
}

/// A blitz: one side on the bar against four or more closed points of the
/// other's home board, or with two or more on the bar against three or
/// more. Gammons decide these positions, and there our own 2-ply plays
/// far better than the contact net at 0 ply.
pub fn is_blitz(pos: &Position) -> bool {
    let blitzes = |attacker: &Checkers, defender: &Checkers| {
        // Bits 1..6 are a side's own home board.
        let closed = (attacker.made() & 0x7E).count_ones();
        (defender.bar() >= 1 && closed >= 4) || (defender.bar() >= 2 && closed >= 3)
    };
    blitzes(&pos.me, &pos.opp) || blitzes(&pos.opp, &pos.me)
}

/// The race deficit, in pips, of a side holding a back game.
pub const BACK_GAME_DEFICIT: u32 = 30;

/// A back game: one side holds two or more points in the other's home
/// board and trails the race by [`BACK_GAME_DEFICIT`] pips or more. The
/// contact net misjudges them most (it overrates the side facing the back
/// game), and a fit that mends them there moves other positions with
/// them, so they can have a net of their own.
pub fn is_back_game(pos: &Position) -> bool {
    // Points 19..24 of a side are the other side's home board.
    let anchors = |side: &Checkers| (side.made() & (0x3F << 19)).count_ones();
    let holds = |side: &Checkers, pips_ahead: i64| {
        anchors(side) >= 2 && pips_ahead <= -i64::from(BACK_GAME_DEFICIT)
    };
    let (mine, theirs) = pos.pips();
    let ahead = i64::from(theirs) - i64::from(mine);
    pos.is_contact() && (holds(&pos.me, ahead) || holds(&pos.opp, -ahead))
}

/// The neural evaluator: a contact net, a race net, optionally a blitz
/// net and a back-game net, and the bear-off databases once every checker
/// is home.
#[derive(Clone, Debug, PartialEq)]
pub struct NetEvaluator {
    /// Net for positions with contact.
    pub contact: Net,
    /// Net for races.
    pub race: Net,
    /// Net for blitzes ([`is_blitz`]; `None`: the contact net plays them).
    pub blitz: Option<Net>,
    /// Net for back games ([`is_back_game`] positions that are no blitz;
    /// `None`: the contact net plays them).
    pub back_game: Option<Net>,
    /// Exact values for bear-offs (`None`: the race net plays them too).
    pub bearoff: Option<Arc<Bearoff>>,
    /// The input layout both nets read.
    pub layout: Layout,
    /// Nets that measure a rollout's luck instead of these (a weights
    /// file's `luck` contact net beside the same race net; see
    /// [`Evaluator::luck_yardstick`]).
    pub luck: Option<Arc<NetEvaluator>>,
    /// The play pre-filter distilled from these nets (a weights file's
    /// `prefilter` net; see [`Evaluator::prefilter`]).
    pub prefilter: Option<Arc<Prefilter>>,
}

/// The name of a weights file's luck-yardstick contact net.
pub const LUCK_NET: &str = "luck";

/// The name of a weights file's blitz net.
pub const BLITZ_NET: &str = "blitz";

/// The name of a weights file's back-game net.
pub const BACK_GAME_NET: &str = "backgame";

impl NetEvaluator {
    /// Builds the evaluator from a weights file's nets.
    pub fn from_weights(set: &WeightsSet) -> Result<NetEvaluator, WeightsError> {
        if let Some((name, _)) = set.nets.iter().find(|(n, _)| {
            ![
                "contact",
                "race",
                BLITZ_NET,
                BACK_GAME_NET,
                LUCK_NET,
                PREFILTER_NET,
            ]
            .contains(&n.as_str())
        }) {
            return Err(WeightsError::Shape(format!(
                "a net named {name:?}: this build evaluates with a contact, a race, a blitz, a back-game, a luck and a prefilter net only"
            )));
        }
        let prefilter = match set.nets.iter().find(|(n, _)| n == PREFILTER_NET) {
            Some((_, net)) => Some(Arc::new(
                Prefilter::new(net.clone()).map_err(|e| WeightsError::Shape(e.to_string()))?,
            )),
            None => None,
        };
        let contact = set.get("contact")?.clone();
        let race = set.get("race")?.clone();
        // A game plan's net reads what the contact net reads.
        let plan_net = |name: &str, what: &str| match set.nets.iter().find(|(n, _)| n == name) {
            Some((_, net)) if net.inputs() != contact.inputs() => {
                Err(WeightsError::Shape(format!(
                    "the {what} net reads {} inputs, the contact net {}",
                    net.inputs(),
                    contact.inputs()
                )))
            }
            found => Ok(found.map(|(_, net)| net.clone())),
        };
        let blitz = plan_net(BLITZ_NET, "blitz")?;
        let back_game = plan_net(BACK_GAME_NET, "back-game")?;
        let luck = set.nets.iter().find(|(n, _)| n == LUCK_NET);
        Ok(NetEvaluator {
            contact,
            race,
            blitz,
            back_game,
            bearoff: None,
            layout: set.layout,
            luck: None,
            prefilter,
        }
        .with_luck(luck.map(|(_, net)| net)))
    }

    /// With every net's first layer computed as `first` when it
    /// evaluates (the luck yardstick's too).
    pub fn with_first_layer(mut self, first: FirstLayer) -> NetEvaluator {
        self.set_first_layer(first);
        self
    }

    fn set_first_layer(&mut self, first: FirstLayer) {
        self.contact.set_first_layer(first);
        self.race.set_first_layer(first);
        for net in [self.blitz.as_mut(), self.back_game.as_mut()]
            .into_iter()
            .flatten()
        {
            net.set_first_layer(first);
        }
        if let Some(luck) = self.luck.as_mut() {
            Arc::make_mut(luck).set_first_layer(first);
        }
    }

    /// With the bear-off databases (the luck yardstick's too).
    pub fn with_bearoff(mut self, db: Arc<Bearoff>) -> NetEvaluator {
        if let Some(luck) = self.luck.as_mut() {
            Arc::make_mut(luck).bearoff = Some(db.clone());
        }
        self.bearoff = Some(db);
        self
    }

    /// With `luck`'s contact net as the luck yardstick (beside this race
    /// net), or with none.
    pub fn with_luck(mut self, luck: Option<&Net>) -> NetEvaluator {
        self.luck = luck.map(|net| {
            Arc::new(NetEvaluator {
                contact: {
                    let mut net = net.clone();
                    net.set_first_layer(self.contact.first_layer());
                    net
                },
                race: self.race.clone(),
                blitz: None,
                back_game: None,
                bearoff: self.bearoff.clone(),
                layout: self.layout,
                luck: None,
                prefilter: None,
            })
        });
        self
    }

    /// The nets as a weights set, with provenance text.
    pub fn to_weights(&self, provenance: &str) -> WeightsSet {
        let mut nets = vec![
            ("contact".into(), self.contact.clone()),
            ("race".into(), self.race.clone()),
        ];
        if let Some(blitz) = &self.blitz {
            nets.push((BLITZ_NET.into(), blitz.clone()));
        }
        if let Some(back_game) = &self.back_game {
            nets.push((BACK_GAME_NET.into(), back_game.clone()));
        }
        if let Some(luck) = &self.luck {
            nets.push((LUCK_NET.into(), luck.contact.clone()));
        }
        if let Some(p) = &self.prefilter {
            nets.push((PREFILTER_NET.into(), p.net().clone()));
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
        x.fill(pos, self.layout);
    }

    /// Which of these nets values `pos`.
    #[inline]
    pub fn class_of(&self, pos: &Position) -> NetClass {
        if !pos.is_contact() {
            NetClass::Race
        } else if self.blitz.is_some() && is_blitz(pos) {
            NetClass::Blitz
        } else if self.back_game.is_some() && is_back_game(pos) {
            NetClass::BackGame
        } else {
            NetClass::Contact
        }
    }

    /// The net of a class (the contact net for a game plan with no net of
    /// its own, as [`Self::class_of`] routes them).
    pub fn net(&self, class: impl Into<NetClass>) -> &Net {
        match class.into() {
            NetClass::Contact => &self.contact,
            NetClass::Race => &self.race,
            NetClass::Blitz => self.blitz.as_ref().unwrap_or(&self.contact),
            NetClass::BackGame => self.back_game.as_ref().unwrap_or(&self.contact),
        }
    }

    /// The net of a class, mutably (training; the contact net for a game
    /// plan with no net of its own).
    pub fn net_mut(&mut self, class: impl Into<NetClass>) -> &mut Net {
        match class.into() {
            NetClass::Contact => &mut self.contact,
            NetClass::Race => &mut self.race,
            NetClass::Blitz => self.blitz.as_mut().unwrap_or(&mut self.contact),
            NetClass::BackGame => self.back_game.as_mut().unwrap_or(&mut self.contact),
        }
    }
}

/// The fewest positions [`NetEvaluator`] values by their differences from
/// a nearby one (which costs one first layer more).
const NEAR_BATCH: usize = 4;

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

/// Positions waiting to be evaluated together by one net from one start
/// ([`Net::forward_group`]), each with its place in the batch.
struct Group {
    xs: [SparseInputs; GROUP],
    slots: [usize; GROUP],
    len: usize,
}

impl Group {
    /// The inputs the next position fills.
    fn next(&mut self) -> &mut SparseInputs {
        &mut self.xs[self.len]
    }
}

impl Default for Group {
    fn default() -> Self {
        Group {
            xs: std::array::from_fn(|_| SparseInputs::default()),
            slots: [0; GROUP],
            len: 0,
        }
    }
}

/// A batch's scratch: a group for each way a position can be valued (the
/// contact net, the race net, the blitz net, the back-game net, the near
/// position's sums) and the activations of the group being evaluated.
struct Scratch {
    groups: [Group; WAYS],
    acts: [Activations; GROUP],
}

/// Which of [`Scratch::groups`] a position joins.
#[derive(Clone, Copy)]
enum Way {
    Contact = 0,
    Race = 1,
    Blitz = 2,
    BackGame = 3,
    Near = 4,
}

/// How many [`Way`]s there are.
const WAYS: usize = 5;

impl From<NetClass> for Way {
    /// The class's net, from the biases.
    fn from(class: NetClass) -> Way {
        match class {
            NetClass::Contact => Way::Contact,
            NetClass::Race => Way::Race,
            NetClass::Blitz => Way::Blitz,
            NetClass::BackGame => Way::BackGame,
        }
    }
}

impl NetEvaluator {
    /// Values `positions` into `out` a group at a time: each position is
    /// either exact, or `sort` fills a group's next inputs with it and
    /// says which; a group is evaluated when full and at the end.
    fn eval_grouped(
        &self,
        positions: &[Position],
        out: &mut [Probs],
        near: Option<(&Net, &FirstSums)>,
        mut sort: impl FnMut(&Position, &mut [Group; WAYS]) -> Way,
    ) {
        thread_local! {
            static SCRATCH: std::cell::RefCell<Option<Box<Scratch>>> =
                const { std::cell::RefCell::new(None) };
        }
        SCRATCH.with(|cell| {
            let mut cell = cell.borrow_mut();
            let s = cell.get_or_insert_with(|| {
                Box::new(Scratch {
                    groups: std::array::from_fn(|_| Group::default()),
                    acts: std::array::from_fn(|_| self.contact.activations()),
                })
            });
            let Scratch { groups, acts } = &mut **s;
            let mut flush = |way: Way, g: &mut Group, out: &mut [Probs]| {
                let n = g.len;
                let (net, sums) = match way {
                    Way::Contact => (&self.contact, None),
                    Way::Race => (&self.race, None),
                    Way::Blitz => (self.net(NetClass::Blitz), None),
                    Way::BackGame => (self.net(NetClass::BackGame), None),
                    Way::Near => {
                        let (net, sums) = near.expect("a near group has sums");
                        (net, Some(sums))
                    }
                };
                net.forward_group(sums, &g.xs[..n], &mut acts[..n]);
                for (&slot, act) in g.slots[..n].iter().zip(acts.iter()) {
                    out[slot] = sanitize(&positions[slot], Probs(act.outputs()));
                }
                g.len = 0;
            };
            for (slot, pos) in positions.iter().enumerate() {
                if let Some(p) = self.exact(pos) {
                    out[slot] = p;
                    continue;
                }
                let way = sort(pos, groups);
                let g = &mut groups[way as usize];
                g.slots[g.len] = slot;
                g.len += 1;
                if g.len == GROUP {
                    flush(way, g, out);
                }
            }
            for way in [
                Way::Contact,
                Way::Race,
                Way::Blitz,
                Way::BackGame,
                Way::Near,
            ] {
                let g = &mut groups[way as usize];
                if g.len > 0 {
                    flush(way, g, out);
                }
            }
        });
    }
}

/// A position's inputs and first-layer sums, from which positions near
/// it are valued by their differences.
struct NearSums {
    class: NetClass,
    reference: Reference,
    sums: FirstSums,
}

impl NearSums {
    fn new(ev: &NetEvaluator, near: &Position) -> NearSums {
        let class = ev.class_of(near);
        let reference = Reference::new(near, ev.layout);
        let mut sums = FirstSums::default();
        ev.net(class).first_sums(reference.inputs(), &mut sums);
        NearSums {
            class,
            reference,
            sums,
        }
    }
}

impl NetEvaluator {
    /// Values `positions`, those of `near`'s net by their differences
    /// from it when they are fewer than their inputs.
    fn eval_from(&self, near: &NearSums, positions: &[Position], out: &mut [Probs]) {
        let NearSums {
            class,
            reference,
            sums,
        } = near;
        let net = self.net(*class);
        self.eval_grouped(positions, out, Some((net, sums)), |pos, groups| {
            let own = self.class_of(pos);
            if own == *class && {
                let x = groups[Way::Near as usize].next();
                x.fill_difference(pos, reference);
                x.len() < reference.inputs().len()
            } {
                Way::Near
            } else {
                let way = Way::from(own);
                self.encode_into(pos, groups[way as usize].next());
                way
            }
        });
    }
}

impl Evaluator for NetEvaluator {
    fn eval_batch(&self, positions: &[Position], out: &mut [Probs]) {
        self.eval_grouped(positions, out, None, |pos, groups| {
            let way = Way::from(self.class_of(pos));
            self.encode_into(pos, groups[way as usize].next());
            way
        });
    }

    fn eval_batch_near(&self, near: &Position, positions: &[Position], out: &mut [Probs]) {
        // Too few positions to repay valuing `near` first.
        if positions.len() < NEAR_BATCH || self.exact(near).is_some() {
            return self.eval_batch(positions, out);
        }
        self.eval_from(&NearSums::new(self, near), positions, out);
    }

    fn prepare_near(&self, near: &Position) -> Near<'_> {
        let state = self
            .exact(near)
            .is_none()
            .then(|| Box::new(NearSums::new(self, near)) as Box<dyn std::any::Any + Send + Sync>);
        Near {
            pos: *near,
            by: self as *const NetEvaluator as usize,
            state,
            evaluator: std::marker::PhantomData,
        }
    }

    fn eval_batch_prepared(&self, near: &Near<'_>, positions: &[Position], out: &mut [Probs]) {
        let mine = near.by == self as *const NetEvaluator as usize;
        match near
            .state
            .as_ref()
            .and_then(|s| s.downcast_ref::<NearSums>())
        {
            Some(sums) if mine => self.eval_from(sums, positions, out),
            _ => self.eval_batch_near(&near.pos, positions, out),
        }
    }

    #[inline]
    fn exact(&self, pos: &Position) -> Option<Probs> {
        match &self.bearoff {
            Some(db) if Bearoff::covers(pos) => Some(db.probs(pos)),
            _ => None,
        }
    }

    fn luck_yardstick(&self) -> Option<&dyn Evaluator> {
        self.luck.as_deref().map(|e| e as &dyn Evaluator)
    }

    fn prefilter(&self) -> Option<&Prefilter> {
        self.prefilter.as_deref()
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
    use crate::rules::dice::Dice;
    use crate::rules::movegen::legal_moves;

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

    /// Random layout-3 nets of these sizes, without bear-off databases.
    fn random_evaluator(seed: u64, contact: usize, race: usize) -> NetEvaluator {
        use rand::SeedableRng;
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
        let layout = Layout::V3;
        NetEvaluator {
            contact: Net::random(layout.inputs(), contact, &mut rng),
            race: Net::random(layout.inputs(), race, &mut rng),
            blitz: None,
            back_game: None,
            bearoff: None,
            layout,
            luck: None,
            prefilter: None,
        }
    }

    /// Random nets as [`random_evaluator`]'s, with a blitz net beside.
    fn with_blitz_net(seed: u64, contact: usize, race: usize) -> NetEvaluator {
        use rand::SeedableRng;
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed ^ 0xB11);
        let ev = random_evaluator(seed, contact, race);
        NetEvaluator {
            blitz: Some(Net::random(ev.layout.inputs(), contact, &mut rng)),
            ..ev
        }
    }

    /// Random nets as [`with_blitz_net`]'s, with a back-game net beside.
    fn with_plan_nets(seed: u64, contact: usize, race: usize) -> NetEvaluator {
        use rand::SeedableRng;
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed ^ 0xBAC);
        let ev = with_blitz_net(seed, contact, race);
        NetEvaluator {
            back_game: Some(Net::random(ev.layout.inputs(), contact, &mut rng)),
            ..ev
        }
    }

    /// A blitz net is written and read back with the others; one that
    /// reads other inputs than the contact net is refused, naming both.
    #[test]
    fn a_blitz_net_reads_back_and_a_misshapen_one_is_refused() {
        use crate::evaluation::weights::{decode, encode};
        use rand::SeedableRng;
        let ev = with_blitz_net(9, 32, 32);
        let back = NetEvaluator::from_weights(&decode(&encode(&ev.to_weights("t"))).unwrap());
        assert_eq!(back.unwrap(), ev);
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(3);
        let mut set = random_evaluator(9, 32, 32).to_weights("t");
        set.nets.push((
            BLITZ_NET.into(),
            Net::random(Layout::V2.inputs(), 32, &mut rng),
        ));
        let err = NetEvaluator::from_weights(&set).unwrap_err().to_string();
        let want = format!(
            "reads {} inputs, the contact net {}",
            Layout::V2.inputs(),
            Layout::V3.inputs()
        );
        assert!(err.contains(&want), "{err}");
    }

    /// Only blitzes go to the blitz net, and only when there is one.
    #[test]
    fn blitzes_go_to_the_blitz_net_when_there_is_one() {
        use crate::formats::position_id::decode;
        // A post-Crawford blitz of real play: four home points closed
        // against a checker on the bar.
        let blitz = decode("sNsNEETjdkMADA").unwrap();
        assert!(is_blitz(&blitz) && is_blitz(&blitz.swapped()));
        assert!(!is_blitz(&Position::start()));
        let (plain, with) = (random_evaluator(9, 32, 32), with_blitz_net(9, 32, 32));
        assert_eq!(plain.class_of(&blitz), NetClass::Contact);
        assert_eq!(with.class_of(&blitz), NetClass::Blitz);
        assert_eq!(with.class_of(&Position::start()), NetClass::Contact);
        assert_ne!(with.eval(&blitz), plain.eval(&blitz));
        assert_eq!(
            with.eval(&Position::start()),
            plain.eval(&Position::start())
        );
    }

    /// Back games go to the back-game net when there is one, blitzes
    /// still to the blitz net; a misshapen back-game net is refused.
    #[test]
    fn back_games_go_to_the_back_game_net_when_there_is_one() {
        use crate::evaluation::weights::{decode, encode};
        use crate::formats::position_id::decode as position;
        use rand::SeedableRng;
        // A real 5-point match position: the side not on roll holds the
        // 3 and 5 points of the mover's home board, 102 pips behind.
        let deep = position("2C0A8Bwz2w0GAA").unwrap();
        assert!(is_back_game(&deep) && is_back_game(&deep.swapped()));
        assert!(!is_blitz(&deep));
        assert!(!is_back_game(&Position::start()));
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(0xBAC);
        let (plain, with) = (with_blitz_net(9, 32, 32), with_plan_nets(9, 32, 32));
        assert_eq!(plain.class_of(&deep), NetClass::Contact);
        assert_eq!(with.class_of(&deep), NetClass::BackGame);
        assert_ne!(with.eval(&deep), plain.eval(&deep));
        assert_eq!(
            with.eval(&Position::start()),
            plain.eval(&Position::start())
        );
        let blitz = position("sNsNEETjdkMADA").unwrap();
        assert_eq!(with.class_of(&blitz), NetClass::Blitz);
        let back = NetEvaluator::from_weights(&decode(&encode(&with.to_weights("t"))).unwrap());
        assert_eq!(back.unwrap(), with);
        let mut set = plain.to_weights("t");
        set.nets.push((
            BACK_GAME_NET.into(),
            Net::random(Layout::V2.inputs(), 32, &mut rng),
        ));
        let err = NetEvaluator::from_weights(&set).unwrap_err().to_string();
        assert!(err.contains("the back-game net reads"), "{err}");
    }

    #[test]
    fn a_file_with_a_net_this_build_does_not_use_is_refused() {
        let ev = random_evaluator(9, 32, 32);
        let mut set = ev.to_weights("t");
        let back = crate::evaluation::weights::decode(&crate::evaluation::weights::encode(&set));
        assert_eq!(NetEvaluator::from_weights(&back.unwrap()).unwrap(), ev);
        set.nets.push(("crashed".into(), ev.contact.clone()));
        let err = NetEvaluator::from_weights(&set).unwrap_err().to_string();
        assert!(err.contains("\"crashed\""), "{err}");
    }

    /// A pre-filter is written and read back with the other nets; a net
    /// of that name that is no pre-filter is refused, naming why.
    #[test]
    fn a_pre_filter_reads_back_and_a_wrong_one_is_refused() {
        use crate::evaluation::prefilter::{random_net, INPUTS};
        use crate::evaluation::weights::{decode, encode};
        use rand::SeedableRng;
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(10);
        let net = random_net(32, &mut rng);
        let five_outputs = Net::random(INPUTS, 32, &mut rng);
        let ev = NetEvaluator {
            prefilter: Some(Arc::new(Prefilter::new(net).unwrap())),
            ..random_evaluator(9, 32, 32)
        };
        let back = NetEvaluator::from_weights(&decode(&encode(&ev.to_weights("t"))).unwrap());
        assert_eq!(back.unwrap(), ev);
        let mut set = random_evaluator(9, 32, 32).to_weights("t");
        set.nets.push((PREFILTER_NET.into(), five_outputs));
        let err = NetEvaluator::from_weights(&decode(&encode(&set)).unwrap())
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("\"prefilter\" has more than one output"),
            "{err}"
        );
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

    /// Positions of random games from the start (contact, hits, the bar,
    /// races and bear-offs), each with the candidates of a random roll.
    fn random_game_steps(games: usize, seed: u64) -> Vec<(Position, Vec<Candidate>)> {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
        let mut steps = Vec::new();
        for _ in 0..games {
            let mut pos = Position::start();
            loop {
                let dice = Dice::new(rng.gen_range(1..=6), rng.gen_range(1..=6)).unwrap();
                let cands = legal_moves(&pos, dice);
                let after = cands[rng.gen_range(0..cands.len())].position;
                steps.push((pos, cands));
                if after.me.off() == 15 {
                    break;
                }
                pos = after.swapped();
            }
        }
        steps
    }

    #[test]
    fn differences_from_a_reference_are_the_inputs_differences() {
        for layout in [Layout::V2, Layout::V3] {
            let n = layout.inputs();
            for (pos, cands) in random_game_steps(20, 5) {
                let reference = Reference::new(&pos.swapped(), layout);
                let old = SparseInputs::encode(&pos.swapped(), layout).dense_of(n);
                assert_eq!(reference.inputs().dense_of(n), old);
                let mut d = SparseInputs::default();
                for c in &cands {
                    let board = c.position.swapped();
                    d.fill_difference(&board, &reference);
                    let new = SparseInputs::encode(&board, layout).dense_of(n);
                    let want: Vec<f32> = new.iter().zip(&old).map(|(a, b)| a - b).collect();
                    assert_eq!(d.dense_of(n), want, "{layout:?}");
                }
            }
        }
    }

    /// Valued by their differences from a nearby position, plays get
    /// their plain values within rounding: from the parent, from the
    /// first play (as [`candidate_values`] does), and across phases (a
    /// play that breaks contact is valued by the race net).
    #[test]
    fn batches_valued_near_a_position_agree_with_plain_batches() {
        let ev = with_plan_nets(11, 96, 64);
        let (mut plain, mut near) = (Vec::new(), Vec::new());
        let mut checked = 0;
        for (pos, cands) in random_game_steps(20, 7) {
            let boards: Vec<Position> = cands.iter().map(|c| c.position.swapped()).collect();
            plain.resize(boards.len(), Probs::default());
            near.resize(boards.len(), Probs::default());
            ev.eval_batch(&boards, &mut plain);
            for reference in [pos.swapped(), boards[0]] {
                ev.eval_batch_near(&reference, &boards, &mut near);
                for (a, b) in plain.iter().zip(&near) {
                    for k in 0..5 {
                        assert!((a.0[k] - b.0[k]).abs() < 2e-6, "{a:?} {b:?}");
                    }
                }
                checked += boards.len();
            }
        }
        assert!(checked > 10_000, "{checked}");
    }

    /// A position prepared once values its plays to the bit as valuing
    /// them near it does (at every batch size); another evaluator's
    /// preparation is not used, only its position.
    #[test]
    fn a_prepared_position_values_its_plays_as_eval_batch_near_does() {
        let ev = random_evaluator(13, 96, 64);
        let other = random_evaluator(14, 96, 64);
        let (mut near, mut prepared) = (Vec::new(), Vec::new());
        let mut checked = 0;
        for (pos, cands) in random_game_steps(10, 9) {
            let boards: Vec<Position> = cands.iter().map(|c| c.position.swapped()).collect();
            near.resize(boards.len(), Probs::default());
            prepared.resize(boards.len(), Probs::default());
            let reference = pos.swapped();
            let mine = ev.prepare_near(&reference);
            assert_eq!(mine.position(), &reference);
            if boards.len() >= NEAR_BATCH {
                ev.eval_batch_near(&reference, &boards, &mut near);
                ev.eval_batch_prepared(&mine, &boards, &mut prepared);
                assert_eq!(bits(&near), bits(&prepared));
                checked += boards.len();
            }
            let theirs = other.prepare_near(&reference);
            ev.eval_batch_prepared(&theirs, &boards, &mut prepared);
            ev.eval_batch_near(&reference, &boards, &mut near);
            assert_eq!(bits(&near), bits(&prepared));
        }
        assert!(checked > 5_000, "{checked}");
    }

    fn bits(v: &[Probs]) -> Vec<u32> {
        v.iter().flat_map(|p| p.0.map(f32::to_bits)).collect()
    }

    /// Grouped by net, a batch of plays from many positions (races and
    /// contact mixed, groups filled and left part-filled) gets each
    /// play's values as one position at a time would, to the bit: plainly,
    /// and by differences from a nearby position.
    #[test]
    fn grouped_batches_give_one_at_a_times_bits() {
        let ev = with_plan_nets(12, 96, 64);
        let mut act = ev.contact.activations();
        let mut x = SparseInputs::default();
        let mut sums = FirstSums::default();
        let (mut races, mut blitzes, mut back_games, mut total) = (0, 0, 0, 0);
        for (pos, cands) in random_game_steps(30, 9) {
            let boards: Vec<Position> = cands.iter().map(|c| c.position.swapped()).collect();
            let net = |p: &Position| ev.net(ev.class_of(p));
            let one = |p: &Position, x: &mut SparseInputs, act: &mut Activations| {
                ev.exact(p).unwrap_or_else(|| {
                    ev.encode_into(p, x);
                    sanitize(p, net(p).eval(x, act))
                })
            };
            let mut out = vec![Probs::default(); boards.len()];
            ev.eval_batch(&boards, &mut out);
            for (p, got) in boards.iter().zip(&out) {
                assert_eq!(*got, one(p, &mut x, &mut act));
            }
            let near = pos.swapped();
            let reference = Reference::new(&near, ev.layout);
            net(&near).first_sums(reference.inputs(), &mut sums);
            ev.eval_batch_near(&near, &boards, &mut out);
            // Short batches are valued plainly.
            let by_near = boards.len() >= NEAR_BATCH && ev.exact(&near).is_none();
            for (p, got) in boards.iter().zip(&out) {
                let want = match ev.exact(p) {
                    Some(v) => v,
                    None if by_near && ev.class_of(p) == ev.class_of(&near) => {
                        x.fill_difference(p, &reference);
                        if x.len() < reference.inputs().len() {
                            sanitize(p, net(p).eval_near(&sums, &x, &mut act))
                        } else {
                            one(p, &mut x, &mut act)
                        }
                    }
                    None => one(p, &mut x, &mut act),
                };
                assert_eq!(*got, want);
            }
            races += boards
                .iter()
                .filter(|p| Phase::of(p) == Phase::Race)
                .count();
            blitzes += boards
                .iter()
                .filter(|p| ev.class_of(p) == NetClass::Blitz)
                .count();
            back_games += boards
                .iter()
                .filter(|p| ev.class_of(p) == NetClass::BackGame)
                .count();
            total += boards.len();
        }
        assert!(races > 500 && total - races > 5_000, "{races} of {total}");
        assert!(blitzes > 100, "{blitzes} blitzes of {total}");
        assert!(back_games > 100, "{back_games} back games of {total}");
    }

    #[test]
    fn sanitize_drops_impossible_gammons() {
        let mut pos = Position::start();
        pos.opp = crate::rules::position::Checkers::from_points(&[0; 24], 0).unwrap();
        let p = sanitize(&pos, Probs([0.9, 0.5, 0.2, 0.1, 0.05]));
        assert_eq!(p.0[1], 0.0);
        assert_eq!(p.0[2], 0.0);
    }
}
