//! Cube decisions by match-winning chance, for match play, and the
//! recursive live-cube model that also generates whole match equity
//! tables.
//!
//! # The model
//! For a score, a cube value `c` and its owner, the value (MWC) to the
//! player on roll is a function of its winning chance `p`, with the
//! position's gammon and backgammon shares of wins and losses held fixed:
//! - dead cube: `p W + (1 - p) L`, `W` and `L` the mean MWC after a win and
//!   after a loss at this cube;
//! - live cube: piecewise linear from `L` at `p = 0` to `W` at `p = 1`,
//!   through `MWC(lose c)` at the player's take point `TP` (where it would
//!   pass the opponent's double) and `MWC(win c)` at its cash point `CP`
//!   (where the opponent would pass); where a side may not double its point
//!   drops out. Beyond a point a side is too good to double and plays on.
//!   `TP` and `CP` solve `V(2c, owned by the taker, p) = pass value`, so the
//!   model recurses on the cube until doubling no longer matters. Which
//!   `V` they solve is [`CubePoints`]: the value as the model gives it
//!   (below) at 0 ply, the live value in a search's leaves;
//! - the value is `x` times the live value plus `1 - x` times the dead one,
//!   `x` the cube efficiency, as in Janowski's money formulas (to which the
//!   model reduces when MWC is replaced by points);
//! - except where a side with access to the cube redoubles at once: when a
//!   loss at this cube already loses it the match (2-away 4-away after the
//!   4-away side took a 2-cube, the trailer after the Crawford game), a
//!   bigger cube only adds to its wins, so it redoubles as soon as the
//!   other side would still take and the cube is then dead for both. It
//!   realises the cube's whole value, so the value is the live one
//!   (efficiency 1). Where the other side would pass, that side cashes
//!   or plays on for its gammons, and with contact its cube is then
//!   partly dead like anyone's: it takes the better of the pass and the
//!   mixed value. The player on roll's own no-double value leaves its
//!   immediate redouble out: doubling now is the other choice. Past its
//!   cash point it would play on instead, and waiting costs it market
//!   unless the chances move little from roll to roll: so there its cube
//!   is fully live only in a race ([`CubeLife`]). Where it should double,
//!   it would double at its next turn anyway, so its no double closes
//!   the share `x` of the gap to doubling ([`Solver::cube_mwc`]).
//!
//! No cube in the Crawford game; after it, either side may double. A side
//! gains nothing from a cube of at least its own away count, so it does
//! not double then. A generated table's entry is the value of a game that
//! starts even, either side equally likely to roll first, and the first to
//! roll doubling at once when that is right.

use crate::cube::met::{Met, MetError, Score};
use crate::cube::money::{efficiency, CubeAction, CubeDecision, Owner};
use crate::evaluation::evaluator::Evaluator;
use crate::evaluation::probs::Probs;
use crate::rules::position::Position;

/// The shares of wins and losses that are gammons and backgammons.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Shares {
    /// Gammons (incl. backgammons) per win.
    pub win_gammon: f32,
    /// Backgammons per win.
    pub win_backgammon: f32,
    /// Gammons (incl. backgammons) per loss.
    pub lose_gammon: f32,
    /// Backgammons per loss.
    pub lose_backgammon: f32,
}

impl Shares {
    /// The shares in a set of probabilities.
    pub fn of(p: &Probs) -> Shares {
        let [w, wg, wbg, lg, lbg] = p.0;
        let per = |x: f32, n: f32| if n > 1e-6 { (x / n).min(1.0) } else { 0.0 };
        Shares {
            win_gammon: per(wg, w),
            win_backgammon: per(wbg, w),
            lose_gammon: per(lg, 1.0 - w),
            lose_backgammon: per(lbg, 1.0 - w),
        }
    }

    /// The same shares seen by the opponent.
    pub fn flipped(self) -> Shares {
        Shares {
            win_gammon: self.lose_gammon,
            win_backgammon: self.lose_backgammon,
            lose_gammon: self.win_gammon,
            lose_backgammon: self.win_backgammon,
        }
    }
}

/// Where MWC come from: a table, or the table being generated.
pub trait Equities {
    /// MWC of the player after scoring `points` (negative: the opponent
    /// scores) at `score`.
    fn after(&self, score: Score, points: i32) -> f32;
}

impl Equities for Met {
    fn after(&self, score: Score, points: i32) -> f32 {
        Met::after(self, score, points).unwrap_or(if points > 0 { 1.0 } else { 0.0 })
    }
}

/// What the model needs of a position besides its chances: how much of a
/// live cube its players realise.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CubeLife {
    /// The cube efficiency ([`efficiency`]).
    pub x: f32,
    /// A race: the chances move little from roll to roll, so a side that
    /// plays on past its cash point can still cash close to it.
    pub race: bool,
}

impl CubeLife {
    /// A contact position's.
    pub const CONTACT: CubeLife = CubeLife {
        x: crate::cube::money::CONTACT_EFFICIENCY,
        race: false,
    };

    /// `pos`'s.
    pub fn of(pos: &Position) -> CubeLife {
        CubeLife {
            x: efficiency(pos),
            race: !pos.is_contact(),
        }
    }
}

/// Which value the take and cash points solve: how the model counts on a
/// bigger cube's life.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CubePoints {
    /// The value as the model gives it, live and dead mixed: where a side
    /// would really take or cash if it realises `x` of the bigger cube.
    /// A 0-ply value has no search to play the cube out, and these points
    /// price it nearer to the searched values: held-out 0-ply cube cost
    /// 4.1 mEMG a decision where the live points' is 4.7.
    Realised,
    /// The fully live value, as in Janowski's money formulas and gnubg:
    /// for the leaves of a search of one ply or more, which plays the
    /// cube's next actions out itself. Realised points there counted the
    /// bigger cube's losses twice (a live redouble's take priced too dear:
    /// race double/takes at 5-away 5-away and longer 0.02 to 0.03 EMG
    /// below gnubg's rollouts).
    Live,
}

impl CubePoints {
    /// The points of a value searched `ply` deep.
    pub fn at_ply(ply: u32) -> CubePoints {
        if ply == 0 {
            CubePoints::Realised
        } else {
            CubePoints::Live
        }
    }
}

/// The live value's two end points: (p, MWC) left and right.
type Ends = (f32, f32, f32, f32);

/// What a solver knows of one (score, cube, owner): the mean MWC after a
/// win and after a loss, and the live value's end points.
#[derive(Clone, Copy)]
struct Level {
    win: f32,
    lose: f32,
    ends: Ends,
}

impl Level {
    /// The fully live value at `p`: straight lines through the ends.
    fn live(&self, p: f32) -> f32 {
        let (pl, vl, pr, vr) = self.ends;
        crate::cube::money::through(&[(0.0, self.lose), (pl, vl), (pr, vr), (1.0, self.win)], p)
    }
}

/// A (score, cube, owner) as the solver's memo keys it.
type LevelKey = (u32, u32, bool, u32, u8);

/// The solver for one position class: shares and cube life fixed.
pub struct Solver<'a, E: Equities> {
    eq: &'a E,
    shares: Shares,
    life: CubeLife,
    points: CubePoints,
    /// The few levels a decision reaches (one per cube value and owner),
    /// searched in order: a search prices thousands of leaves, each with
    /// a solver of its own, so a hash map's cost showed.
    memo: Vec<(LevelKey, Level)>,
}

fn crawford_game(s: Score) -> bool {
    !s.post_crawford && (s.me == 1 || s.opp == 1)
}

fn owner_key(o: Owner) -> u8 {
    match o {
        Owner::Centred => 0,
        Owner::Me => 1,
        Owner::Opponent => 2,
    }
}

impl<'a, E: Equities> Solver<'a, E> {
    /// A solver with these shares and cube life, its points
    /// [`CubePoints::Realised`].
    pub fn new(eq: &'a E, shares: Shares, life: CubeLife) -> Self {
        Solver {
            eq,
            shares,
            life,
            points: CubePoints::Realised,
            memo: Vec::new(),
        }
    }

    /// This solver with take and cash points `points`.
    pub fn with_points(self, points: CubePoints) -> Self {
        Solver { points, ..self }
    }

    /// The value the take and cash points solve (see [`CubePoints`]).
    fn point_value(&mut self, s: Score, c: u32, owner: Owner, p: f32) -> f32 {
        match self.points {
            CubePoints::Realised => self.value(s, c, owner, p),
            CubePoints::Live => self.level(s, c, owner).live(p),
        }
    }

    /// Mean MWC after a win and after a loss at cube `c`.
    fn win_lose(&self, s: Score, c: i32) -> (f32, f32) {
        let sh = self.shares;
        let win = (1.0 - sh.win_gammon) * self.eq.after(s, c)
            + (sh.win_gammon - sh.win_backgammon) * self.eq.after(s, 2 * c)
            + sh.win_backgammon * self.eq.after(s, 3 * c);
        let lose = (1.0 - sh.lose_gammon) * self.eq.after(s, -c)
            + (sh.lose_gammon - sh.lose_backgammon) * self.eq.after(s, -2 * c)
            + sh.lose_backgammon * self.eq.after(s, -3 * c);
        (win, lose)
    }

    fn may_double(s: Score, c: u32, doubler_away: u32) -> bool {
        !crawford_game(s) && c < doubler_away
    }

    /// Whether the side whose away count is `mine`, with access to cube
    /// `c`, redoubles at its next turn whenever the other side would take:
    /// a cube of `c` already wins the other side the match when it loses,
    /// so a higher cube only adds to its own wins, and after the take the
    /// cube is dead for both. Its chances being a martingale, waiting
    /// gains it nothing, so it realises the whole value of the cube: its
    /// cube is fully live (efficiency 1), where a live cube's model
    /// otherwise counts on `x` of it.
    fn redoubles_at_once(s: Score, c: u32, access: bool, mine: u32, theirs: u32) -> bool {
        access && Self::may_double(s, c, mine) && c >= theirs
    }

    /// Cubeful MWC for the player on roll with winning chance `p`.
    pub fn value(&mut self, s: Score, c: u32, owner: Owner, p: f32) -> f32 {
        self.value_of(s, c, owner, p, true)
    }

    /// [`Solver::value`]; with `mine_at_once` false, the player on roll's
    /// own immediate redouble while the other side would take is left out:
    /// its value of not doubling now, at the root of a decision (with it,
    /// no double would tie double/take there).
    fn value_of(&mut self, s: Score, c: u32, owner: Owner, p: f32, mine_at_once: bool) -> f32 {
        let level = self.level(s, c, owner);
        let (w, l) = (level.win, level.lose);
        let (pl, pass, pr, cash) = level.ends;
        let dead = p * w + (1.0 - p) * l;
        let live = level.live(p);
        let mixed = self.life.x * live + (1.0 - self.life.x) * dead;
        let me = Self::redoubles_at_once(s, c, owner != Owner::Opponent, s.me, s.opp);
        let opp = Self::redoubles_at_once(s, c, owner != Owner::Me, s.opp, s.me);
        let race = self.life.race;
        // Past its cash point the side plays on, and only in a race does
        // it lose little by waiting: there its chances move little from
        // roll to roll, so it cashes near the cash point. With contact they
        // jump, past the cash point or back below it, so its cube is
        // partly dead, as anyone's.
        let playing_on = p > pr && race;
        if opp {
            // The redouble at once is for a side the other would take
            // from. Where the other would pass, the side either cashes or
            // plays on for its gammons with a cube it may no longer turn
            // in time (contact); it takes the better of the two.
            if p >= pl || race {
                live
            } else {
                mixed.min(pass)
            }
        } else if me && (mine_at_once || playing_on) {
            if p <= pr || race {
                live
            } else {
                mixed.max(cash)
            }
        } else {
            mixed
        }
    }

    fn ends(&mut self, s: Score, c: u32, owner: Owner) -> Ends {
        self.level(s, c, owner).ends
    }

    fn level(&mut self, s: Score, c: u32, owner: Owner) -> Level {
        let key = (s.me, s.opp, s.post_crawford, c, owner_key(owner));
        if let Some((_, level)) = self.memo.iter().find(|(k, _)| *k == key) {
            return *level;
        }
        let (w, l) = self.win_lose(s, c as i32);
        let ci = c as i32;
        let me_may = owner != Owner::Opponent && Self::may_double(s, c, s.me);
        let opp_may = owner != Owner::Me && Self::may_double(s, c, s.opp);
        let (mut pl, mut vl) = (0.0, l);
        if opp_may {
            // I take the opponent's double above TP: V(2c, mine) = pass.
            let pass = self.eq.after(s, -ci);
            let tp = self.solve(s, 2 * c, Owner::Me, pass);
            pl = tp;
            vl = pass;
        }
        let (mut pr, mut vr) = (1.0, w);
        if me_may {
            let cash = self.eq.after(s, ci);
            let cp = self.solve(s, 2 * c, Owner::Opponent, cash);
            pr = cp;
            vr = cash;
        }
        if pr <= pl {
            // Degenerate (extreme scores): meet in the middle.
            let m = 0.5 * (pl + pr);
            pl = m;
            pr = m + 1e-6;
        }
        let level = Level {
            win: w,
            lose: l,
            ends: (pl, vl, pr, vr),
        };
        self.memo.push((key, level));
        level
    }

    /// The `p` at which `value(s, c, owner, p)` reaches `target` (0 or 1
    /// when it never does). Values grow with `p` along straight lines
    /// between the level's end points (dead and live values alike), so
    /// the crossing is found on the segment that holds it: four values
    /// where a bisection took forty, and a search prices a decision at
    /// every leaf.
    fn solve(&mut self, s: Score, c: u32, owner: Owner, target: f32) -> f32 {
        let (pl, _, pr, _) = self.ends(s, c, owner);
        let mut prev = (0.0f32, self.point_value(s, c, owner, 0.0));
        if prev.1 >= target {
            return 0.0;
        }
        // Never above the target (up to it only where the value is flat
        // at the top): the whole range, as the bisection had it.
        if self.point_value(s, c, owner, 1.0) <= target {
            return 1.0;
        }
        let (k1, k2) = self.kinks(s, c, owner);
        for x in [k1, pl, pr, k2, 1.0] {
            let v = self.point_value(s, c, owner, x);
            // A value flat at the target from a kink on may round a
            // hair below it there.
            if v >= target - 1e-6 {
                let (x0, v0) = prev;
                return if v > v0 {
                    (x0 + (x - x0) * (target - v0) / (v - v0)).clamp(x0, x)
                } else {
                    x
                };
            }
            prev = (x, v);
        }
        1.0
    }

    /// Where a side that would redouble at once, in contact, starts to
    /// cash rather than play on ([`Solver::value`]): the mixed value
    /// crosses the other side's pass value below the left end, or the
    /// side's own cash value above the right end (the ends themselves
    /// where it does not). The values bend there too.
    fn kinks(&mut self, s: Score, c: u32, owner: Owner) -> (f32, f32) {
        let level = self.level(s, c, owner);
        let (w, l, x) = (level.win, level.lose, self.life.x);
        let (pl, pass, pr, cash) = level.ends;
        let mixed = |p: f32, live: f32| x * live + (1.0 - x) * (p * w + (1.0 - p) * l);
        let at_pl = mixed(pl, pass);
        let k1 = if at_pl > pass && pass > l {
            pl * (pass - l) / (at_pl - l)
        } else {
            pl
        };
        let at_pr = mixed(pr, cash);
        let k2 = if at_pr < cash && w > cash {
            pr + (1.0 - pr) * (cash - at_pr) / (w - at_pr)
        } else {
            pr
        };
        (k1, k2)
    }

    /// [`Solver::solve`] by bisection, as it was: the reference the
    /// segment search is tested against.
    #[cfg(test)]
    fn bisect(&mut self, s: Score, c: u32, owner: Owner, target: f32) -> f32 {
        let (mut lo, mut hi) = (0.0f32, 1.0f32);
        if self.point_value(s, c, owner, 0.0) >= target {
            return 0.0;
        }
        if self.point_value(s, c, owner, 1.0) <= target {
            return 1.0;
        }
        for _ in 0..40 {
            let mid = 0.5 * (lo + hi);
            if mid <= lo || mid >= hi {
                break;
            }
            if self.point_value(s, c, owner, mid) < target {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        0.5 * (lo + hi)
    }
}

/// The three match-winning chances of a cube decision, for the player on
/// roll.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CubeMwc {
    /// Not doubling now.
    pub no_double: f32,
    /// Doubling, the opponent taking.
    pub double_take: f32,
    /// Doubling, the opponent passing.
    pub double_pass: f32,
}

impl Solver<'_, Met> {
    /// The model's cube MWCs for the player on roll with this solver's
    /// shares and cube life, for winning chance `p`: one solver prices
    /// every cube of a position, sharing the levels they reach.
    ///
    /// A side whose redouble is free that should double now loses little
    /// by waiting, as it doubles at its next turn anyway: its no double
    /// closes the share `x` of the gap between the mixed value and
    /// doubling (the mixed value alone was 0.15 to 0.28 EMG below our
    /// cube rollouts of the grid's opening position and back game). The
    /// verdict, and so every search leaf's best value, is the mixed
    /// value's.
    pub fn cube_mwc(&mut self, score: Score, cube: u32, owner: Owner, p: f32) -> CubeMwc {
        let mut no_double = self.value_of(score, cube, owner, p, false);
        let double_take = self.value(score, 2 * cube, Owner::Opponent, p);
        let double_pass = Equities::after(self.eq, score, cube as i32);
        let doubled = double_take.min(double_pass);
        let access = owner != Owner::Opponent;
        if Self::redoubles_at_once(score, cube, access, score.me, score.opp) && no_double < doubled
        {
            let x = self.life.x;
            no_double = x * doubled + (1.0 - x) * no_double;
        }
        CubeMwc {
            no_double,
            double_take,
            double_pass,
        }
    }
}

/// Whether the player on roll may turn the cube (`access`) and whether a
/// double gains it anything (`may`: the cube is below its away count).
pub fn cube_access(score: Score, cube: u32, owner: Owner) -> (bool, bool) {
    let access = owner != Owner::Opponent && !crawford_game(score);
    (access, access && cube < score.me)
}

/// A match MWC as EMG, normalized as gnubg does: winning a single game at
/// the current cube is +1, losing it -1.
pub fn emg_of(met: &Met, score: Score, cube: u32, mwc: f32) -> f32 {
    let c = cube as i32;
    let (w1, l1) = (
        Equities::after(met, score, c),
        Equities::after(met, score, -c),
    );
    (2.0 * mwc - (w1 + l1)) / (w1 - l1).max(1e-9)
}

/// A match-play cube decision: equities as EMG (normalized so that winning
/// a single game at the current cube is +1 and losing it -1), like gnubg.
pub fn match_decision(
    met: &Met,
    score: Score,
    cube: u32,
    owner: Owner,
    p: &Probs,
    life: CubeLife,
) -> Result<CubeDecision, MetError> {
    met.mwc(score)?;
    // One solver for the equities and the points: they share its levels.
    let mut solver = Solver::new(met, Shares::of(p), life);
    let m = solver.cube_mwc(score, cube, owner, p.win());
    let emg = |v: f32| emg_of(met, score, cube, v);
    let (nd, dt, dp) = (m.no_double, m.double_take, m.double_pass);
    let (access, may) = cube_access(score, cube, owner);
    let (tp_p, _, cp_p, _) = solver.ends(score, cube, owner);
    let action = match_action(nd, dt, dp, access, may);
    Ok(CubeDecision {
        no_double: emg(nd),
        double_take: emg(dt),
        double_pass: emg(dp),
        action,
        take_point: tp_p,
        cash_point: cp_p,
    })
}

/// The cube action in match play from the three equities (MWC or EMG,
/// any unit that grows with the doubler's chances): `access` when the
/// player on roll may double at all, `may` when the cube is not dead
/// for it.
pub fn match_action(nd: f32, dt: f32, dp: f32, access: bool, may: bool) -> CubeAction {
    if !access {
        CubeAction::NoCubeAccess
    } else if !may {
        CubeAction::DeadCube
    } else if dt >= dp {
        if nd > dp + 1e-4 {
            CubeAction::TooGoodPass
        } else {
            CubeAction::DoublePass
        }
    } else if nd >= dt {
        if nd > dp {
            CubeAction::TooGoodTake
        } else {
            CubeAction::NoDoubleTake
        }
    } else {
        CubeAction::DoubleTake
    }
}

/// A table generated by the model: MWC at every score up to `length`
/// away, for games with the given shares, cube efficiency `x` and an even
/// start.
pub struct Generated {
    length: usize,
    pre: Vec<Vec<f32>>,
    post: Vec<f32>,
}

impl Equities for Generated {
    fn after(&self, s: Score, points: i32) -> f32 {
        let crawford = crawford_game(s);
        let (me, opp) = if points > 0 {
            (s.me.saturating_sub(points as u32), s.opp)
        } else {
            (s.me, s.opp.saturating_sub((-points) as u32))
        };
        let post = s.post_crawford || crawford;
        if me == 0 {
            return 1.0;
        }
        if opp == 0 {
            return 0.0;
        }
        let (a, b) = (me as usize, opp as usize);
        if post && (a == 1 || b == 1) {
            if a == 1 && b == 1 {
                return 0.5;
            }
            return if a == 1 {
                1.0 - self.post[b - 1]
            } else {
                self.post[a - 1]
            };
        }
        self.pre[a - 1][b - 1]
    }
}

/// The value of a game starting at `p = 0.5` for the player `s` describes:
/// with equal chances either side is first to roll, and the first to roll
/// doubles at once when that is right (as the trailer does after the
/// Crawford game).
fn game_start<E: Equities>(eq: &E, s: Score, shares: Shares, x: f32) -> f32 {
    let first = |s: Score, shares: Shares| -> f32 {
        let mut solver = Solver::new(eq, shares, CubeLife { x, race: false });
        let nd = solver.value(s, 1, Owner::Centred, 0.5);
        if crawford_game(s) || s.me <= 1 {
            return nd;
        }
        let dt = solver.value(s, 2, Owner::Opponent, 0.5);
        let dp = eq.after(s, 1);
        nd.max(dt.min(dp))
    };
    let back = Score {
        me: s.opp,
        opp: s.me,
        post_crawford: s.post_crawford,
    };
    0.5 * first(s, shares) + 0.5 * (1.0 - first(back, shares.flipped()))
}

/// Generates a match equity table of `length` points by the model.
pub fn generate(length: usize, shares: Shares, x: f32) -> Met {
    let mut g = Generated {
        length,
        pre: vec![vec![0.5; length]; length],
        post: vec![0.5; length],
    };
    // Post-Crawford first (it only looks at smaller away counts), from the
    // trailer's side.
    for b in 2..=length {
        let s = Score {
            me: b as u32,
            opp: 1,
            post_crawford: true,
        };
        g.post[b - 1] = game_start(&g, s, shares, x);
    }
    // Pre-Crawford by total away count: results only lower it.
    for total in 2..=2 * length {
        for a in 1..=length {
            if total < a + 1 || total - a > length {
                continue;
            }
            let b = total - a;
            let s = Score {
                me: a as u32,
                opp: b as u32,
                post_crawford: false,
            };
            g.pre[a - 1][b - 1] = game_start(&g, s, shares, x);
        }
    }
    // Symmetrize: the model is exact in symmetry up to bisection error.
    for a in 0..length {
        for b in 0..a {
            let m = 0.5 * (g.pre[a][b] + 1.0 - g.pre[b][a]);
            g.pre[a][b] = m;
            g.pre[b][a] = 1.0 - m;
        }
    }
    let _ = g.length;
    Met {
        name: "Sheshbesh model".into(),
        description: format!(
            "live-cube model, cube efficiency {x}, gammons {:.3}/{:.3} of wins/losses",
            shares.win_gammon, shares.lose_gammon
        ),
        length,
        pre: g.pre,
        post: g.post,
    }
}

/// A match equity table of `length` points generated by the model from
/// `ev`'s view of the opening: the gammon and backgammon shares of both
/// sides at the start, averaged (the table is for a game that starts
/// even), and the cube efficiency of the opening position.
pub fn generate_from<E: Evaluator + ?Sized>(ev: &E, length: usize) -> Met {
    let start = Position::start();
    let s = Shares::of(&ev.eval(&start));
    let f = s.flipped();
    let avg = |x: f32, y: f32| 0.5 * (x + y);
    let shares = Shares {
        win_gammon: avg(s.win_gammon, f.win_gammon),
        win_backgammon: avg(s.win_backgammon, f.win_backgammon),
        lose_gammon: avg(s.lose_gammon, f.lose_gammon),
        lose_backgammon: avg(s.lose_backgammon, f.lose_backgammon),
    };
    generate(length, shares, efficiency(&start))
}

/// Where two tables differ most before Crawford: the absolute difference
/// and the score (`a`-away, `b`-away) where it is, over the scores both
/// cover.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LargestDifference {
    /// Absolute difference in match-winning chance.
    pub difference: f32,
    /// Row: the player's away count.
    pub away: usize,
    /// Column: the opponent's away count.
    pub opp_away: usize,
}

/// The largest pre-Crawford difference between two tables.
pub fn largest_difference(a: &Met, b: &Met) -> LargestDifference {
    let n = a.length.min(b.length);
    let mut worst = LargestDifference {
        difference: 0.0,
        away: 0,
        opp_away: 0,
    };
    for i in 0..n {
        for j in 0..n {
            let d = (a.pre[i][j] - b.pre[i][j]).abs();
            if d > worst.difference {
                worst = LargestDifference {
                    difference: d,
                    away: i + 1,
                    opp_away: j + 1,
                };
            }
        }
    }
    worst
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(me: u32, opp: u32) -> Score {
        Score::pre(me, opp)
    }

    #[test]
    fn take_and_cash_points_are_found_where_a_bisection_finds_them() {
        let met = Met::kazaross_xg2();
        let mut worst = 0.0f32;
        for (w, g) in [(0.5, 0.0), (0.6, 0.15), (0.7, 0.3), (0.35, 0.25)] {
            let shares = Shares::of(&Probs([w, g, g / 10.0, g * 0.8, g / 12.0]));
            for me in 1..=9 {
                for opp in 1..=9 {
                    for post_crawford in [false, true] {
                        let sc = Score {
                            me,
                            opp,
                            post_crawford,
                        };
                        for c in [1, 2, 4, 8] {
                            for owner in [Owner::Centred, Owner::Me, Owner::Opponent] {
                                for (target, points) in
                                    [0.05, 0.3, 0.5, 0.77, 0.95].into_iter().flat_map(|t| {
                                        [(t, CubePoints::Realised), (t, CubePoints::Live)]
                                    })
                                {
                                    let solver = || {
                                        Solver::new(met, shares, CubeLife::CONTACT)
                                            .with_points(points)
                                    };
                                    let exact = solver().solve(sc, c, owner, target);
                                    let bisected = solver().bisect(sc, c, owner, target);
                                    worst = worst.max((exact - bisected).abs());
                                }
                            }
                        }
                    }
                }
            }
        }
        assert!(worst < 1e-5, "{worst}");
    }

    #[test]
    fn gammonless_dead_crawford_game_is_the_win_chance() {
        // At 1-away 1-away the match is one game: MWC is p.
        let met = Met::kazaross_xg2();
        let shares = Shares::of(&Probs([0.6, 0.0, 0.0, 0.0, 0.0]));
        let mut solver = Solver::new(met, shares, CubeLife::CONTACT);
        let v = solver.value(s(1, 1), 1, Owner::Centred, 0.6);
        assert!((v - 0.6).abs() < 1e-6);
    }

    #[test]
    fn live_points_price_a_live_redouble_cheaper_for_the_doubler() {
        // 7-away 5-away, a gammonless race at 68%: the 5-away taker may
        // redouble to 4, which the doubler can still turn. The realised
        // points put the doubler's take of that 4-cube higher, so its
        // double/take is lower; at 4-away the taker's 2-cube is dead and
        // the two agree.
        let met = Met::kazaross_xg2();
        let shares = Shares::of(&Probs([0.68, 0.0, 0.0, 0.0, 0.0]));
        let race = CubeLife {
            x: 0.64,
            race: true,
        };
        let dt = |sc: Score, points| {
            let m = Solver::new(met, shares, race).with_points(points).cube_mwc(
                sc,
                1,
                Owner::Centred,
                0.68,
            );
            emg_of(met, sc, 1, m.double_take)
        };
        let long = s(7, 5);
        let (live, realised) = (dt(long, CubePoints::Live), dt(long, CubePoints::Realised));
        assert!(
            live > realised + 0.01,
            "live {live:+.4}, realised {realised:+.4}"
        );
        let dead = s(7, 4);
        let (live, realised) = (dt(dead, CubePoints::Live), dt(dead, CubePoints::Realised));
        assert!(
            (live - realised).abs() < 1e-4,
            "live {live:+.4}, realised {realised:+.4}"
        );
    }

    #[test]
    fn double_match_point_cube_actions() {
        let met = Met::kazaross_xg2();
        // 2-away 2-away: a double is for the match. At 80% the opponent
        // must pass (its take point is 32%).
        let p = Probs([0.8, 0.0, 0.0, 0.0, 0.0]);
        let d = match_decision(met, s(2, 2), 1, Owner::Centred, &p, CubeLife::CONTACT).unwrap();
        assert_eq!(d.action, CubeAction::DoublePass);
        let p = Probs([0.5, 0.1, 0.0, 0.1, 0.0]);
        let d = match_decision(met, s(2, 2), 1, Owner::Centred, &p, CubeLife::CONTACT).unwrap();
        assert_eq!(d.action, CubeAction::NoDoubleTake);
        // No cube in the Crawford game.
        let d = match_decision(met, s(1, 3), 1, Owner::Centred, &p, CubeLife::CONTACT).unwrap();
        assert_eq!(d.action, CubeAction::NoCubeAccess);
        assert!((d.double_pass - 1.0).abs() < 1e-5);
    }

    #[test]
    fn the_taker_of_a_cube_that_covers_the_doublers_score_redoubles_at_once() {
        // 2-away 4-away: after the 4-away side takes a 2-cube it redoubles
        // to 4 while the 2-away side would take (a loss of 2 already loses
        // it the match), and the game is then for the match: with no
        // gammons the doubler's MWC is its winning chance. The efficiency
        // mix with a dead 2-cube (0.5 MWC after a loss) would give more.
        let met = Met::kazaross_xg2();
        let shares = Shares::of(&Probs([0.68, 0.0, 0.0, 0.0, 0.0]));
        let mut solver = Solver::new(met, shares, CubeLife::CONTACT);
        let dt = solver.value(s(2, 4), 2, Owner::Opponent, 0.68);
        assert!((dt - 0.68).abs() < 1e-4, "{dt}");
        // Where the 2-away side would pass the 4-cube (below 50%) it is
        // not redoubled and keeps the dead 2-cube's chances in part.
        let low = solver.value(s(2, 4), 2, Owner::Opponent, 0.3);
        assert!(low > 0.3 + 1e-3, "{low}");
        // Post-Crawford, the leader on roll faces the trailer's double at
        // once: at 1-away 2-away the game is for the match either way.
        let lead = solver.value(
            Score {
                me: 1,
                opp: 2,
                post_crawford: true,
            },
            1,
            Owner::Centred,
            0.68,
        );
        assert!((lead - 0.68).abs() < 1e-4, "{lead}");
        // The doubler's own no double stays below its double/take.
        let p = Probs([0.4, 0.0, 0.0, 0.0, 0.0]);
        let post = Score {
            me: 2,
            opp: 1,
            post_crawford: true,
        };
        let d = match_decision(met, post, 1, Owner::Centred, &p, CubeLife::CONTACT).unwrap();
        assert!(d.no_double < d.double_take, "{d:?}");
        assert_eq!(d.action, CubeAction::DoubleTake);
    }

    #[test]
    fn a_side_that_would_pass_the_redouble_at_once_is_worth_its_pass() {
        // The grid's back game at 2-away 7-away, the back-game side's
        // double taken (our 1,296-trial cubeless rollout's chances). The
        // 7-away taker may redouble to 4 for free, but the 2-away side
        // would pass it (a gammon at 4 loses the match), so the taker
        // cashes 2 points at once rather than play on for gammons with a
        // cube it may not turn in time: gnubg's cubeful rollout -2.036
        // EMG, the value of that pass. Fully live, the model had the
        // taker play on to a perfect cash: -2.617.
        let met = Met::kazaross_xg2();
        let p = Probs([0.4636, 0.0366, 0.0015, 0.3049, 0.0501]);
        let (sc, pass) = (s(2, 7), met.mwc(s(2, 5)).unwrap());
        let mut solver = Solver::new(met, Shares::of(&p), CubeLife::CONTACT);
        let dt = solver.value(sc, 2, Owner::Opponent, p.win());
        assert!(dt <= pass + 1e-6 && dt > pass - 0.005, "{dt} {pass}");
        let d = match_decision(met, sc, 1, Owner::Centred, &p, CubeLife::CONTACT).unwrap();
        assert!((d.double_take + 2.036).abs() < 0.05, "{d:?}");
        // Where it would take, the redouble comes at once and the 4-cube
        // is dead: the live value, as before.
        let high = Probs([0.75, 0.0366, 0.0015, 0.3049, 0.0501]);
        let mut solver = Solver::new(met, Shares::of(&high), CubeLife::CONTACT);
        let level = solver.level(sc, 2, Owner::Opponent);
        assert!(high.win() >= level.ends.0, "{:?}", level.ends);
        let v = solver.value(sc, 2, Owner::Opponent, high.win());
        assert!((v - level.live(high.win())).abs() < 1e-6);
        // The same seen from the side with the free redouble, on roll past
        // its cash point: at least the cash, and with contact less than
        // the fully live value of playing on; in a race fully live.
        let mine = s(7, 2);
        let cash = met.mwc(s(5, 2)).unwrap();
        let gammonish = Probs([0.8, 0.45, 0.02, 0.05, 0.0]);
        let shares = Shares::of(&gammonish);
        let mut contact = Solver::new(met, shares, CubeLife::CONTACT);
        let level = contact.level(mine, 2, Owner::Me);
        assert!(gammonish.win() > level.ends.2, "{:?}", level.ends);
        let live = level.live(gammonish.win());
        let v = contact.value(mine, 2, Owner::Me, gammonish.win());
        assert!(v >= cash - 1e-6 && v < live - 1e-3, "{v} {cash} {live}");
        let race = CubeLife {
            x: 0.68,
            race: true,
        };
        let mut racing = Solver::new(met, shares, race);
        let level = racing.level(mine, 2, Owner::Me);
        let v = racing.value(mine, 2, Owner::Me, gammonish.win());
        assert!((v - level.live(gammonish.win())).abs() < 1e-6);
    }

    #[test]
    fn a_side_whose_redouble_is_free_loses_little_by_waiting() {
        // The opening position's chances (our net's), 7-away 2-away, the
        // 7-away side owning a 2-cube: a loss at 2 already loses it the
        // match, so it doubles at its next turn if not now. Our 1,296-trial
        // cube rollout: no double +0.969 EMG, double/take +1.304 (the
        // 2-away side passes); gnubg 2-ply +0.974. The mixed value said
        // +0.78.
        let met = Met::kazaross_xg2();
        let p = Probs([0.527, 0.139, 0.006, 0.117, 0.005]);
        let d = match_decision(met, s(7, 2), 2, Owner::Me, &p, CubeLife::CONTACT).unwrap();
        assert_eq!(d.action, CubeAction::DoublePass, "{d:?}");
        assert!((d.no_double - 0.969).abs() < 0.05, "{d:?}");
        // Its no double closes the share x of the gap between the mixed
        // value and doubling, so the verdict is the mixed value's.
        let mut solver = Solver::new(met, Shares::of(&p), CubeLife::CONTACT);
        let mixed = solver.value_of(s(7, 2), 2, Owner::Me, p.win(), false);
        let m = solver.cube_mwc(s(7, 2), 2, Owner::Me, p.win());
        let doubled = m.double_take.min(m.double_pass);
        let x = CubeLife::CONTACT.x;
        assert!(mixed < doubled);
        assert!((m.no_double - (x * doubled + (1.0 - x) * mixed)).abs() < 1e-6);
    }

    #[test]
    fn a_trailer_just_past_its_cash_point_cashes_unless_it_is_a_race() {
        // The opening position's chances (our net's) post-Crawford, the
        // 4-away trailer on roll: just past its cash point (51.7%). With
        // contact its chances jump from roll to roll, so waiting loses its
        // market: double, pass (our 1,296-trial cube rollouts: no double
        // +0.842 EMG when this test was written, +0.933 on 2026-12-07,
        // gnubg 2-ply +0.934; double/take +1.05 to +1.07).
        // Valuing its cube fully live there said "too good" (+1.005); the
        // mixed value (+0.75, gnubg 0-ply's too) is far below the
        // rollouts, as the trailer doubles at its next turn anyway: the
        // share `x` of that gap is closed (+0.92).
        let met = Met::kazaross_xg2();
        let post = Score {
            me: 4,
            opp: 1,
            post_crawford: true,
        };
        let p = Probs([0.527, 0.139, 0.006, 0.117, 0.005]);
        let d = match_decision(met, post, 1, Owner::Centred, &p, CubeLife::CONTACT).unwrap();
        assert_eq!(d.action, CubeAction::DoublePass, "{d:?}");
        assert!((d.no_double - 0.933).abs() < 0.05, "{d:?}");
        // In a race the chances move little, so it can play on and cash
        // close to the cash point: the fully live value.
        let race = CubeLife {
            x: 0.68,
            race: true,
        };
        let r = match_decision(met, post, 1, Owner::Centred, &p, race).unwrap();
        assert!(
            r.no_double > 1.0 && r.no_double > d.no_double + 0.05,
            "{r:?} {d:?}"
        );
    }

    #[test]
    fn generated_table_is_symmetric_and_close_to_kazaross() {
        let shares = Shares {
            win_gammon: 0.27,
            win_backgammon: 0.01,
            lose_gammon: 0.27,
            lose_backgammon: 0.01,
        };
        let m = generate(11, shares, 0.68);
        assert!(m.asymmetry() < 1e-6);
        let k = Met::kazaross_xg2();
        let mut worst = 0.0f32;
        for a in 0..11 {
            for b in 0..11 {
                worst = worst.max((m.pre[a][b] - k.pre[a][b]).abs());
            }
        }
        assert!(worst < 0.05, "largest difference {worst}");
    }
}
