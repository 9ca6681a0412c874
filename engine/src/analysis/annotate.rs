//! Match annotation: every checker play and cube decision of a recorded
//! match, replayed through the rules engine and judged at a chosen search
//! depth, with marks, luck and per-player statistics as gnubg reports them.
//!
//! Units are normalized equity (EMG): in match play the match-winning
//! chance is mapped linearly so that winning a single game at the current
//! cube is +1 and losing it -1 (gnubg's EMG); in money play it is the
//! equity per unit cube. Checker plays compare cubeful equities (as gnubg
//! does; [`rank_plays`], the cubeless ones when [`Settings::checker`] says
//! so); cube decisions use [`cube_decision`]: cubeful money equities or the
//! match cube model on Kazaross-XG2, searched `ply` deep.

use crate::cube::decision::{
    cube_decision, owner_of, play_equity, rank_plays, valuation, PlayEquity,
};
use crate::cube::met::MetError;
use crate::cube::money::{self, Owner};
use crate::evaluation::evaluator::{candidate_values, Evaluator};
use crate::evaluation::probs::Probs;
use crate::formats::matfile::{Action, MatError, MatchFile};
use crate::formats::story::{self, Answer, Step, Walk};
use crate::rules::dice::Dice;
use crate::rules::match_state::{CubeState, MatchState, Player};
use crate::rules::movegen::{generate, Candidate, MoveList};
use crate::rules::position::Position;
use crate::rules::scoring::{GameResult, Rules, WinKind};
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};

/// Thresholds of the marks, in EMG (gnubg 1.07's defaults).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Thresholds {
    /// At least this loss is doubtful (`?!`).
    pub doubtful: f32,
    /// At least this loss is bad (`?`).
    pub bad: f32,
    /// At least this loss is very bad (`??`).
    pub very_bad: f32,
}

impl Default for Thresholds {
    fn default() -> Self {
        Thresholds {
            doubtful: 0.03,
            bad: 0.06,
            very_bad: 0.12,
        }
    }
}

/// How a decision is judged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Mark {
    /// Below the doubtful threshold.
    None,
    /// `?!`
    Doubtful,
    /// `?`
    Bad,
    /// `??`
    VeryBad,
}

impl Mark {
    /// The mark of an equity loss.
    pub fn of(loss: f32, t: &Thresholds) -> Mark {
        if loss >= t.very_bad {
            Mark::VeryBad
        } else if loss >= t.bad {
            Mark::Bad
        } else if loss >= t.doubtful {
            Mark::Doubtful
        } else {
            Mark::None
        }
    }

    /// gnubg's word for it: `none`, `doubtful`, `bad`, `very bad`.
    pub fn word(self) -> &'static str {
        match self {
            Mark::None => "none",
            Mark::Doubtful => "doubtful",
            Mark::Bad => "bad",
            Mark::VeryBad => "very bad",
        }
    }

    /// The chess-style sign: ``, `?!`, `?`, `??`.
    pub fn sign(self) -> &'static str {
        match self {
            Mark::None => "",
            Mark::Doubtful => "?!",
            Mark::Bad => "?",
            Mark::VeryBad => "??",
        }
    }
}

/// What is analysed and how.
#[derive(Clone, Copy, Debug)]
pub struct Settings {
    /// Search depth of checker plays and cube decisions.
    pub ply: u32,
    /// Mark thresholds.
    pub thresholds: Thresholds,
    /// What checker plays are valued by.
    pub checker: PlayEquity,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            ply: 2,
            thresholds: Thresholds::default(),
            checker: PlayEquity::Cubeful,
        }
    }
}

/// Checker play or cube action.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A checker play.
    Checker,
    /// Double or not, take or pass.
    Cube,
}

/// A checker play the analysis ranked.
#[derive(Clone, Debug, PartialEq)]
pub struct Alternative {
    /// gnubg notation.
    pub play: String,
    /// Board after it, from the mover's side.
    pub after: Position,
    /// Value for the mover, EMG.
    pub equity: f32,
    /// The mover's cubeless chances after it, of the line searched.
    pub probs: Probs,
    /// The depth it was searched to.
    pub ply: u32,
}

/// One analysed decision.
#[derive(Clone, Debug, PartialEq)]
pub struct Decision {
    /// Game number (as in the file).
    pub game: u32,
    /// Move number within the game (turns counted from 1; a cube action
    /// takes the number of the turn it precedes).
    pub move_number: u32,
    /// Who decided (0 = the file's first player).
    pub player: usize,
    /// Line of the file (or node of an SGF game).
    pub line: usize,
    /// Checker or cube.
    pub kind: Kind,
    /// Board before the decision, from the decider's side for a checker
    /// play or a double, from the doubler's side for a take or pass.
    pub position: Position,
    /// The match state at the decision (as gnubg's Match ID says it).
    pub state: MatchState,
    /// The dice of a checker play.
    pub dice: Option<Dice>,
    /// What was played: a move, `Double`, `No double`, `Take`, `Pass`.
    pub played: String,
    /// The best action found.
    pub best: String,
    /// Equity lost against the best action (EMG, never negative).
    pub equity_loss: f32,
    /// The mover's equity before the decision at the analysis ply (EMG
    /// at a match score): the value of its best choice, so a graph of the
    /// match can be drawn from the decisions.
    pub equity: f32,
    /// The mark.
    pub mark: Mark,
    /// Checker plays: the best few plays (up to 5) and the one played.
    pub alternatives: Vec<Alternative>,
    /// Index of the played play in `alternatives`.
    pub played_index: Option<usize>,
    /// Cube decisions: the three equities for the doubler (EMG).
    pub cube: Option<Decision3>,
    /// Checker plays: the roll's luck (EMG): the best play's 0-ply value
    /// for the roll thrown minus its mean over the 36 rolls.
    pub luck: Option<f32>,
}

impl Decision {
    /// Whether this is an answer to a double (take, pass or beaver).
    pub fn is_answer(&self) -> bool {
        self.kind == Kind::Cube && self.state.doubled
    }

    /// The board from the side of the player who decided: the position
    /// itself, or for an answer to a double the taker's view of the
    /// doubler's position.
    pub fn decider_board(&self) -> Position {
        if self.is_answer() {
            self.position.swapped()
        } else {
            self.position
        }
    }
}

/// No double, double/take and double/pass equities for the doubler.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Decision3 {
    /// No double.
    pub no_double: f32,
    /// Double, take.
    pub double_take: f32,
    /// Double, pass.
    pub double_pass: f32,
    /// The proper action in gnubg's words.
    pub action: &'static str,
}

/// One player's totals.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PlayerStats {
    /// Name as in the file.
    pub name: String,
    /// Unforced checker plays.
    pub checker_decisions: u32,
    /// Their total loss (EMG).
    pub checker_loss: f32,
    /// Cube decisions that were actual (double, take, pass) or close.
    pub cube_decisions: u32,
    /// Their total loss (EMG).
    pub cube_loss: f32,
    /// Count of doubtful, bad and very bad decisions.
    pub marks: [u32; 3],
    /// Sum of luck over every roll (EMG; positive is lucky).
    pub luck: f32,
    /// Luck in points: each roll's luck times the cube value then.
    pub luck_points: f32,
    /// Points won in the analysed games (computed from the final board,
    /// the cube, drops and resignations, not from the file's `Wins` lines).
    pub points: u64,
}

impl PlayerStats {
    fn rate(loss: f32, n: u32) -> f32 {
        if n == 0 {
            0.0
        } else {
            1000.0 * loss / n as f32
        }
    }

    /// mEMG lost per unforced decision, checker and cube together.
    pub fn error_rate(&self) -> f32 {
        Self::rate(
            self.checker_loss + self.cube_loss,
            self.checker_decisions + self.cube_decisions,
        )
    }

    /// mEMG lost per unforced checker play.
    pub fn checker_error_rate(&self) -> f32 {
        Self::rate(self.checker_loss, self.checker_decisions)
    }

    /// mEMG lost per cube decision.
    pub fn cube_error_rate(&self) -> f32 {
        Self::rate(self.cube_loss, self.cube_decisions)
    }

    /// Performance Rating on XG's scale: 500 times the mean loss per
    /// non-obvious decision (so half the mEMG rate).
    pub fn pr(&self) -> f32 {
        self.error_rate() / 2.0
    }

    /// Net points won against `opponent`, minus the net luck in points:
    /// the result the play deserved.
    pub fn luck_adjusted(&self, opponent: &PlayerStats) -> f32 {
        (self.points as f32 - opponent.points as f32) - (self.luck_points - opponent.luck_points)
    }

    /// gnubg's rating band for the error rate.
    pub fn rating(&self) -> &'static str {
        // gnubg's thresholds in EMG per decision.
        let r = self.error_rate() / 1000.0;
        match r {
            r if r < 0.002 => "Supernatural",
            r if r < 0.005 => "World class",
            r if r < 0.008 => "Expert",
            r if r < 0.012 => "Advanced",
            r if r < 0.018 => "Intermediate",
            r if r < 0.026 => "Casual player",
            r if r < 0.035 => "Beginner",
            _ => "Awful!",
        }
    }
}

/// A whole match, annotated.
#[derive(Clone, Debug, PartialEq)]
pub struct Annotation {
    /// Match length (0: money).
    pub length: u32,
    /// Both players' totals.
    pub players: [PlayerStats; 2],
    /// Every unforced checker play and every actual or close cube decision.
    pub decisions: Vec<Decision>,
    /// Games analysed.
    pub games: usize,
    /// How each game ended, when it did.
    pub results: Vec<GameOutcome>,
}

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameOutcome {
    /// Game number (as in the file).
    pub game: u32,
    /// The winner (0 = the file's first player).
    pub winner: usize,
    /// Points won (cube value times 1, 2 or 3).
    pub points: u64,
    /// Single, gammon or backgammon.
    pub kind: WinKind,
    /// Ended by a dropped double.
    pub dropped: bool,
    /// Ended by a resignation.
    pub resigned: bool,
}

/// Why a match could not be annotated.
#[derive(Debug, thiserror::Error)]
pub enum AnnotateError {
    /// A move or line of the file.
    #[error("{0}")]
    File(#[from] MatError),
    /// The score is beyond the match equity table.
    #[error("match equity table: {0}")]
    Met(#[from] MetError),
    /// Asked to stop before the end ([`annotate_until`]).
    #[error("stopped before the end")]
    Stopped,
}

/// Mean over the 36 rolls of the best play's 0-ply value (EMG), and the
/// value of each of the 21 distinct rolls.
fn roll_values<E: Evaluator + ?Sized>(
    ev: &E,
    pos: &Position,
    state: &MatchState,
    me: Player,
    list: &mut MoveList,
) -> Result<(f32, [f32; 21]), MetError> {
    // The score's outcome table once, not per play.
    let valuation = valuation(state, me)?;
    let mut values = Vec::new();
    let mut each = [0.0f32; 21];
    let mut mean = 0.0;
    for (k, dice) in Dice::all_21().enumerate() {
        generate(pos, dice, list);
        candidate_values(ev, list.as_slice(), &mut values);
        let mut best = f32::NEG_INFINITY;
        for v in &values {
            best = best.max(valuation.value(v, true));
        }
        each[k] = best;
        mean += best * if dice.is_double() { 1.0 } else { 2.0 } / 36.0;
    }
    Ok((mean, each))
}

/// Index of a roll in [`Dice::all_21`] order (high die, then low die
/// ascending), whatever order the dice were written in.
fn roll_index(dice: Dice) -> usize {
    let (a, b) = (usize::from(dice.high()), usize::from(dice.low()));
    a * (a - 1) / 2 + (b - 1)
}

/// Whether a cube decision counts as one: it was acted on, or doubling was
/// within 0.16 of not doubling (gnubg's "close").
fn close(d: &money::CubeDecision) -> bool {
    d.double_take.min(d.double_pass) > d.no_double - 0.16
}

/// The doubler's best action and its equity, given the opponent answers
/// best.
fn best_cube(d: &money::CubeDecision) -> (f32, &'static str) {
    let double = d.double_take.min(d.double_pass);
    if double > d.no_double {
        (double, "Double")
    } else {
        (d.no_double, "No double")
    }
}

struct GameRun<'a, E: Evaluator + ?Sized> {
    ev: &'a E,
    settings: &'a Settings,
    out: &'a mut Annotation,
    list: MoveList,
    progress: &'a (dyn Fn() + Sync),
    stop: &'a AtomicBool,
}

impl<E: Evaluator + ?Sized> GameRun<'_, E> {
    fn push(&mut self, d: Decision, counted: bool) {
        let stats = &mut self.out.players[d.player];
        match d.kind {
            Kind::Checker => {
                stats.checker_decisions += 1;
                stats.checker_loss += d.equity_loss;
            }
            Kind::Cube if counted => {
                stats.cube_decisions += 1;
                stats.cube_loss += d.equity_loss;
            }
            Kind::Cube => {}
        }
        if d.mark != Mark::None {
            stats.marks[d.mark as usize - 1] += 1;
        }
        if counted {
            self.out.decisions.push(d);
        }
    }

    /// Records how the game ended.
    fn finish(
        &mut self,
        game: u32,
        result: &GameResult,
        cube: CubeState,
        dropped: bool,
        resigned: bool,
    ) {
        let winner = result.winner.index();
        self.out.players[winner].points += result.points;
        self.out.results.push(GameOutcome {
            game,
            winner,
            points: result.points,
            // A gammon that scores single (Jacoby) is reported as single.
            kind: if result.points == cube.value() {
                WinKind::Single
            } else {
                result.kind
            },
            dropped,
            resigned,
        });
    }

    /// Ranks the plays of a roll for the player on roll of `state` and
    /// judges the one played.
    fn checker(
        &mut self,
        pos: &Position,
        state: &MatchState,
        dice: Dice,
        played: &Candidate,
    ) -> Result<Option<(f32, Vec<Alternative>, usize)>, MetError> {
        let (ply, equity) = (self.settings.ply, self.settings.checker);
        let ranked = rank_plays(self.ev, pos, dice, state, ply, equity)?;
        if ranked.len() <= 1 {
            return Ok(None);
        }
        let top = ranked[0].ply;
        let mut alts = Vec::new();
        for r in ranked.iter().take_while(|r| r.ply == top) {
            alts.push(Alternative {
                play: r.candidate.mv.to_string(),
                after: r.candidate.position,
                equity: r.equity,
                probs: r.probs,
                ply: r.ply,
            });
        }
        let played_index = match alts.iter().position(|a| a.after == played.position) {
            Some(i) => i,
            None => {
                let (value, probs) = play_equity(self.ev, &played.position, state, top, equity)?;
                alts.push(Alternative {
                    play: played.mv.to_string(),
                    after: played.position,
                    equity: value,
                    probs,
                    ply: top,
                });
                alts.len() - 1
            }
        };
        let played_eq = alts[played_index].equity;
        let mut order: Vec<usize> = (0..alts.len()).collect();
        order.sort_by(|&a, &b| alts[b].equity.total_cmp(&alts[a].equity));
        let best_eq = alts[order[0]].equity;
        let keep: Vec<usize> = order
            .iter()
            .copied()
            .enumerate()
            .filter(|&(rank, i)| rank < 5 || i == played_index)
            .map(|(_, i)| i)
            .collect();
        let new_index = keep
            .iter()
            .position(|&i| i == played_index)
            .expect("the played play is kept");
        let kept = keep.into_iter().map(|i| alts[i].clone()).collect();
        Ok(Some(((best_eq - played_eq).max(0.0), kept, new_index)))
    }
}

/// Annotates a whole match.
pub fn annotate<E: Evaluator + ?Sized>(
    m: &MatchFile,
    ev: &E,
    settings: &Settings,
) -> Result<Annotation, AnnotateError> {
    annotate_with_progress(m, ev, settings, &|| {})
}

/// The rolls of a match: the steps of [`annotate_with_progress`].
pub fn rolls(m: &MatchFile) -> u64 {
    m.games
        .iter()
        .flat_map(|g| &g.entries)
        .filter(|e| matches!(e.action, Action::Roll { .. }))
        .count() as u64
}

/// [`annotate`], calling `progress` (from any thread) as each roll has
/// been judged, for a display of progress and time remaining.
pub fn annotate_with_progress<E: Evaluator + ?Sized>(
    m: &MatchFile,
    ev: &E,
    settings: &Settings,
    progress: &(dyn Fn() + Sync),
) -> Result<Annotation, AnnotateError> {
    annotate_until(m, ev, settings, progress, &AtomicBool::new(false))
}

/// [`annotate_with_progress`] that gives up with
/// [`AnnotateError::Stopped`] at the next roll once `stop` is set (a
/// reader that left).
pub fn annotate_until<E: Evaluator + ?Sized>(
    m: &MatchFile,
    ev: &E,
    settings: &Settings,
    progress: &(dyn Fn() + Sync),
    stop: &AtomicBool,
) -> Result<Annotation, AnnotateError> {
    let names = m.games.first().map(|g| g.names.clone()).unwrap_or_default();
    let mut out = Annotation {
        length: m.length,
        players: [
            PlayerStats {
                name: names[0].clone(),
                ..Default::default()
            },
            PlayerStats {
                name: names[1].clone(),
                ..Default::default()
            },
        ],
        decisions: Vec::new(),
        games: 0,
        results: Vec::new(),
    };
    // The story gives each game's starting score, Crawford and cube, so
    // games are independent: they are analysed in parallel and merged in
    // order.
    let starts = story::check(m)?;
    let rules = story::rules(m);
    let jobs: Vec<_> = m.games.iter().zip(starts).collect();
    let parts: Vec<Result<Annotation, AnnotateError>> = jobs
        .par_iter()
        .map(|(game, state)| {
            let mut part = Annotation {
                length: m.length,
                players: Default::default(),
                decisions: Vec::new(),
                games: 1,
                results: Vec::new(),
            };
            let mut run = GameRun {
                ev,
                settings,
                out: &mut part,
                list: MoveList::new(),
                progress,
                stop,
            };
            annotate_game(&mut run, game, *state, rules)?;
            Ok(part)
        })
        .collect();
    for part in parts {
        let part = part?;
        out.games += part.games;
        for (total, p) in out.players.iter_mut().zip(&part.players) {
            total.checker_decisions += p.checker_decisions;
            total.checker_loss += p.checker_loss;
            total.cube_decisions += p.cube_decisions;
            total.cube_loss += p.cube_loss;
            total.luck += p.luck;
            total.luck_points += p.luck_points;
            total.points += p.points;
            for (t, n) in total.marks.iter_mut().zip(p.marks) {
                *t += n;
            }
        }
        out.decisions.extend(part.decisions);
        out.results.extend(part.results);
    }
    Ok(out)
}

fn annotate_game<E: Evaluator + ?Sized>(
    run: &mut GameRun<'_, E>,
    game: &crate::formats::matfile::Game,
    mut state: MatchState,
    rules: Rules,
) -> Result<(), AnnotateError> {
    let mut walk = Walk::new(game, state, rules);
    // (dropped, resigned) once the game has ended.
    let mut how: Option<(bool, bool)> = None;
    let mut move_number = 0u32;
    let mut doubled_now = false;
    // Cube decision pending an answer: (position from the doubler's side,
    // state, decision).
    let mut pending: Option<(Position, MatchState, money::CubeDecision)> = None;
    let ply = run.settings.ply;
    let t = run.settings.thresholds;
    for e in &game.entries {
        let p = e.player;
        let me = Player::from_bit(p as u32);
        let step = walk.step(e)?;
        // A roll may accept a beaver; an answer is judged in the state
        // of its double.
        state.cube = walk.cube();
        let dropped = matches!(step, Step::Answer { .. });
        match step {
            Step::Double { board: pos } => {
                state.on_roll = me;
                state.turn = me;
                state.dice = None;
                let (_, d) = cube_decision(run.ev, &pos, &state, ply)?;
                let (best_eq, best) = best_cube(&d);
                let loss = (best_eq - d.double_take.min(d.double_pass)).max(0.0);
                run.push(
                    cube_verdict(
                        (game.number, move_number + 1, p, e.line),
                        (pos, state),
                        ("Double", best),
                        (best_eq, loss),
                        &t,
                        three(&d, owner_of(state.cube, me) == Owner::Me),
                    ),
                    true,
                );
                pending = Some((pos, state, d));
                doubled_now = true;
            }
            // The original doubler's answer to a beaver is not judged.
            Step::Answer {
                to_beaver: true, ..
            } => {}
            Step::Answer { answer, .. } => {
                let (dpos, mut dstate, d) = pending.take().expect("the walk checked the double");
                let took = answer != Answer::Drop;
                // For the taker: take is -DT, pass is -DP.
                let (take_eq, pass_eq) = (-d.double_take, -d.double_pass);
                let best_eq = take_eq.max(pass_eq);
                let loss = (best_eq - if took { take_eq } else { pass_eq }).max(0.0);
                dstate.doubled = true;
                dstate.turn = me;
                run.push(
                    cube_verdict(
                        (game.number, move_number + 1, p, e.line),
                        (dpos, dstate),
                        (
                            if took { "Take" } else { "Pass" },
                            if take_eq >= pass_eq { "Take" } else { "Pass" },
                        ),
                        (best_eq, loss),
                        &t,
                        three(&d, owner_of(dstate.cube, dstate.on_roll) == Owner::Me),
                    ),
                    true,
                );
            }
            Step::Roll {
                board: pos,
                dice,
                played,
            } => {
                move_number += 1;
                if run.stop.load(Ordering::Relaxed) {
                    return Err(AnnotateError::Stopped);
                }
                (run.progress)();
                state.on_roll = me;
                state.turn = me;
                state.dice = None;
                // Not doubling was a decision when the cube was available
                // and alive (a player whose stake already wins the match
                // has nothing to double for).
                if !doubled_now
                    && move_number > 1
                    && state.may_double(me)
                    && state.cube_is_live_for(me)
                {
                    let (_, d) = cube_decision(run.ev, &pos, &state, ply)?;
                    let (best_eq, best) = best_cube(&d);
                    let loss = (best_eq - d.no_double).max(0.0);
                    let counted = close(&d);
                    run.push(
                        cube_verdict(
                            (game.number, move_number, p, e.line),
                            (pos, state),
                            ("No double", best),
                            (best_eq, loss),
                            &t,
                            three(&d, owner_of(state.cube, me) == Owner::Me),
                        ),
                        counted,
                    );
                }
                doubled_now = false;
                // `None`: rolled, then resigned.
                if let Some(played) = played {
                    state.dice = Some(dice);
                    let (mean, each) = roll_values(run.ev, &pos, &state, me, &mut run.list)?;
                    let luck = each[roll_index(dice)] - mean;
                    run.out.players[p].luck += luck;
                    run.out.players[p].luck_points += luck * state.cube.value() as f32;
                    if let Some((loss, alternatives, played_index)) =
                        run.checker(&pos, &state, dice, &played)?
                    {
                        let top = alternatives
                            .iter()
                            .max_by(|a, b| a.equity.total_cmp(&b.equity));
                        let best = top.map(|a| a.play.clone()).unwrap_or_default();
                        let equity = top.map_or(0.0, |a| a.equity);
                        run.push(
                            Decision {
                                game: game.number,
                                move_number,
                                player: p,
                                line: e.line,
                                kind: Kind::Checker,
                                position: pos,
                                state,
                                dice: Some(dice),
                                played: played.mv.to_string(),
                                best,
                                equity_loss: loss,
                                equity,
                                mark: Mark::of(loss, &t),
                                alternatives,
                                played_index: Some(played_index),
                                cube: None,
                                luck: Some(luck),
                            },
                            true,
                        );
                    }
                }
            }
            Step::Result => {}
        }
        // How the game ended; its winner is read after its last line (a
        // `Wins` line may overrule a `Losses` line).
        if how.is_none() && walk.ended().is_some() {
            let resigned = matches!(e.action, Action::Wins(_) | Action::Losses(_));
            how = Some((dropped, resigned));
        }
    }
    if let (Some(result), Some((dropped, resigned))) = (walk.ended(), how) {
        run.finish(game.number, &result, walk.cube(), dropped, resigned);
    }
    Ok(())
}

/// A cube decision's record: (game, move number, player, line), the
/// board and state it was taken in, (played, best), its loss.
fn cube_verdict(
    (game, move_number, player, line): (u32, u32, usize, usize),
    (position, state): (Position, MatchState),
    (played, best): (&str, &str),
    (equity, loss): (f32, f32),
    t: &Thresholds,
    cube: Decision3,
) -> Decision {
    Decision {
        game,
        move_number,
        player,
        line,
        kind: Kind::Cube,
        position,
        state,
        dice: None,
        played: played.into(),
        best: best.into(),
        equity_loss: loss,
        equity,
        mark: Mark::of(loss, t),
        alternatives: Vec::new(),
        played_index: None,
        cube: Some(cube),
        luck: None,
    }
}

fn three(d: &money::CubeDecision, redouble: bool) -> Decision3 {
    Decision3 {
        no_double: d.no_double,
        double_take: d.double_take,
        double_pass: d.double_pass,
        action: d.action.words(redouble),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evaluation::evaluator::testing::PipRace;

    fn parse(text: &str) -> Result<MatchFile, MatError> {
        story::read(text, false)
    }

    #[test]
    fn roll_index_follows_all_21_in_either_order() {
        for (k, d) in Dice::all_21().enumerate() {
            assert_eq!(roll_index(d), k);
            assert_eq!(roll_index(Dice::new(d.low(), d.high()).unwrap()), k);
        }
    }

    #[test]
    fn marks_follow_the_thresholds() {
        let t = Thresholds::default();
        assert_eq!(Mark::of(0.0, &t), Mark::None);
        assert_eq!(Mark::of(0.03, &t), Mark::Doubtful);
        assert_eq!(Mark::of(0.07, &t), Mark::Bad);
        assert_eq!(Mark::of(0.2, &t), Mark::VeryBad);
    }

    /// A match file's text annotated at 0-ply by the pip-race double.
    fn annotated(text: &str) -> Annotation {
        let settings = Settings {
            ply: 0,
            ..Settings::default()
        };
        annotate(&parse(text).unwrap(), &PipRace(20.0), &settings).unwrap()
    }

    #[test]
    fn a_missed_hit_is_marked_and_the_hit_named() {
        // a leaves blots; b's 61 can hit on its 7 point (13/7* or 8/7*)
        // but runs instead. The pip-race double values the hit's 18 pips.
        let a = annotated(
            "1 point match\n Game 1\n a : 0   b : 0\n  1) 62: 24/18 13/11   61: 24/18 6/5\n",
        );
        assert_eq!(a.games, 1);
        let d = a.decisions.iter().find(|d| d.player == 1).unwrap();
        assert_eq!(d.kind, Kind::Checker);
        assert_eq!(d.played, "24/18 6/5");
        assert!(d.best.contains('*'), "best {}", d.best);
        assert!(d.equity_loss > 0.1, "loss {}", d.equity_loss);
        assert_eq!(d.mark, Mark::VeryBad);
        assert_eq!(a.players[1].marks, [0, 0, 1]);
        assert!(a.players[1].error_rate() > 0.0);
        let played = &d.alternatives[d.played_index.unwrap()];
        assert_eq!(played.play, d.played);
    }

    #[test]
    fn a_stopped_annotation_gives_up_at_the_next_roll() {
        let m =
            parse("1 point match\n Game 1\n a : 0   b : 0\n  1) 62: 24/18 13/11   61: 24/18 6/5\n")
                .unwrap();
        let (ev, settings) = (PipRace(20.0), Settings::default());
        let rolls = std::sync::atomic::AtomicU64::new(0);
        let count = || {
            rolls.fetch_add(1, Ordering::Relaxed);
        };
        let go_on = AtomicBool::new(false);
        assert!(annotate_until(&m, &ev, &settings, &count, &go_on).is_ok());
        assert_eq!(rolls.load(Ordering::Relaxed), self::rolls(&m));
        let stop = AtomicBool::new(true);
        let e = annotate_until(&m, &ev, &settings, &count, &stop).unwrap_err();
        assert!(matches!(e, AnnotateError::Stopped), "{e}");
        assert_eq!(rolls.load(Ordering::Relaxed), self::rolls(&m));
    }

    #[test]
    fn a_match_no_rules_allow_is_refused_naming_the_line() {
        // The readers check the story; annotation checks it too, for a
        // match built or changed in memory.
        let mut m = parse("3 point match\n Game 1\n a : 0   b : 0\n  1) 31: 8/5 6/5\n").unwrap();
        let mut again = m.games[0].entries[0].clone();
        again.line = 5;
        m.games[0].entries.push(again);
        let settings = Settings {
            ply: 0,
            ..Settings::default()
        };
        let msg = annotate(&m, &PipRace(20.0), &settings)
            .unwrap_err()
            .to_string();
        assert!(
            msg.contains("line 5") && msg.contains("twice in a row"),
            "{msg}"
        );
    }

    #[test]
    fn a_dead_cube_is_no_decision() {
        // An evaluator that gives the player on roll a doubling edge in
        // every position, so every "no double" with a live cube is close.
        use crate::evaluation::probs::Probs;
        struct Edge;
        impl Evaluator for Edge {
            fn eval_batch(&self, positions: &[Position], out: &mut [Probs]) {
                for o in out.iter_mut().take(positions.len()) {
                    *o = Probs([0.70, 0.15, 0.0, 0.05, 0.0]);
                }
            }
        }
        // Match 05 of the real files ends with a game at 4-4 of 5 after
        // the Crawford game: double match point, the cube dead for both.
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../data/matches/05_galaxy_5pt_match2430002.mat");
        let m = parse(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let settings = Settings {
            ply: 0,
            ..Settings::default()
        };
        let a = annotate(&m, &Edge, &settings).unwrap();
        let last = m.games.last().unwrap();
        assert_eq!(last.scores, [4, 4]);
        let cube_in = |game: u32| {
            a.decisions
                .iter()
                .filter(|d| d.kind == Kind::Cube && d.game == game)
                .count()
        };
        assert_eq!(cube_in(last.number), 0, "no cube decision at a dead cube");
        let earlier: usize = m.games[..m.games.len() - 1]
            .iter()
            .map(|g| cube_in(g.number))
            .sum();
        assert!(earlier > 0, "live cubes earlier in the match are judged");
    }

    #[test]
    fn cube_actions_are_judged_for_doubler_and_taker() {
        let a = annotated("3 point match\n Game 1\n a : 0   b : 0\n  1) 62: 24/18 13/11   61: 24/18 6/5\n  2)  Doubles => 2     Drops\n      Wins 1 point\n");
        let cube: Vec<&Decision> = a
            .decisions
            .iter()
            .filter(|d| d.kind == Kind::Cube)
            .collect();
        assert_eq!(cube.len(), 2);
        assert_eq!((cube[0].player, cube[0].played.as_str()), (0, "Double"));
        assert_eq!((cube[1].player, cube[1].played.as_str()), (1, "Pass"));
        assert!(cube
            .iter()
            .all(|d| d.cube.is_some() && d.equity_loss >= 0.0));
        assert_eq!(a.players[0].cube_decisions + a.players[1].cube_decisions, 2);
    }

    #[test]
    fn game_results_are_computed_as_gnubg_scores_them() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/matches");
        // gnubg's per-game results (docs/FORMATS.md): W = player 0.
        let expected: [(&str, &str); 6] = [
            ("03_galaxy_3pt_match1061881.mat", "B+2 W+1 W+6"),
            ("04_galaxy_3pt_match5000740.mat", "W+2 B+1 B+1 B+1R"),
            ("09_galaxy_8pt_match8808604_8cube.mat", "W+8"),
            (
                "12_bgstudio_3pt_MrPurple-Lasse_garbage_resign.mat",
                "B+1 B+12R",
            ),
            ("19_xgmobile_money_Ken-XGIntermediate.mat", "W+4 W+2"),
            ("20_gnubg108_charlot1-charlot2_7p.mat", "B+2R W+2 W+4 W+3R"),
        ];
        for (file, want) in expected {
            let a = annotated(&std::fs::read_to_string(dir.join(file)).unwrap());
            let got: Vec<String> = a
                .results
                .iter()
                .map(|r| {
                    let side = if r.winner == 0 { "W" } else { "B" };
                    let r_mark = if r.resigned { "R" } else { "" };
                    format!("{side}+{}{r_mark}", r.points)
                })
                .collect();
            assert_eq!(got.join(" "), want, "{file}");
        }
    }
}
