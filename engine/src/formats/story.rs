//! A match file's story: whether the games it records could have been
//! played, under the rules its tags set. [`read`] reads a match file of
//! either kind (`.mat` or SGF) and ends with [`check`], so a file that
//! tells an impossible story is refused with the line where the story
//! breaks, never analysed as something else.
//!
//! The story a file must tell: games numbered one after another, each
//! starting at the score the last one ended on (computed from the board,
//! the cube and drops, not from `Wins` lines, which some writers cap), no
//! game starting once the match is won (in money play, scores run on while
//! the same two players play); within a game, an opening roll of
//! two different dice (unless the Israeli opening is on), turns that
//! alternate, doubles only by the player who may double, before their roll,
//! never in the Crawford game, each double answered by the other player
//! before anyone rolls, and nothing after the game has ended but the
//! winner's `Wins` line. Only the last game may stop short (a record of a
//! match in progress). Under automatic doubles (money, `[AutoDoubles "N"]`)
//! a game may start with the cube doubled up to N times; how often is read
//! from the game itself, as no file writes it down.

use crate::formats::matfile::{Action, Entry, Game, MatError, MatchFile, Replay};
use crate::rules::dice::Dice;
use crate::rules::match_state::{CubeState, MatchState, Player};
use crate::rules::movegen::Candidate;
use crate::rules::position::Position;
use crate::rules::scoring::{
    record_game, score_bear_off, score_drop, score_resignation, GameResult, Rules, WinKind,
};

/// Reads a match file's text, gnubg SGF (when `sgf` says so, or the text
/// opens with a parenthesis) or `.mat` in any dialect, and checks its
/// story.
pub fn read(text: &str, sgf: bool) -> Result<MatchFile, MatError> {
    let body = text.trim_start_matches('\u{feff}').trim_start();
    let file = if sgf || body.starts_with('(') {
        crate::formats::sgf::parse(text)?
    } else {
        crate::formats::matfile::parse(text)?
    };
    check(&file)?;
    Ok(file)
}

/// The rule options a match file's tags set (`Crawford`, `Jacoby`,
/// `Beaver`, `Israeli`, `BackgammonCountsTwo`; Crawford is on unless the
/// file says `Off`), as they apply to its kind of play.
pub fn rules(file: &MatchFile) -> Rules {
    let tag_is =
        |key: &str, value: &str| file.tag(key).is_some_and(|v| v.eq_ignore_ascii_case(value));
    let rules = Rules {
        jacoby: tag_is("Jacoby", "on"),
        beavers: tag_is("Beaver", "on"),
        automatic_doubles: 0,
        backgammon_counts_two: tag_is("BackgammonCountsTwo", "on"),
        israeli_opening: tag_is("Israeli", "on"),
        crawford: !tag_is("Crawford", "off"),
    };
    rules.effective(&MatchState::new_match(file.length))
}

/// Checks the story of `file` and gives the match state at the start of
/// each game (length, score, Crawford, Jacoby and beavers; cube centred,
/// no dice). The error names the line where the story breaks.
pub fn check(file: &MatchFile) -> Result<Vec<MatchState>, MatError> {
    if file.games.is_empty() {
        return Err(MatError {
            line: 1,
            reason: "no games: the file holds a header only".into(),
        });
    }
    let rules = rules(file);
    // Ties of the opening roll-off that doubled the cube (money only) are
    // not written down; the cube they left is found from the game.
    let automatic = match file.tag("AutoDoubles").map(str::parse::<u8>) {
        Some(Ok(n)) if file.length == 0 => n.min(MAX_AUTOMATIC_DOUBLES),
        _ => 0,
    };
    let mut starts: Vec<MatchState> = Vec::with_capacity(file.games.len());
    // The state the next game must start in, and the game it follows.
    let mut next: Option<(MatchState, &Game)> = None;
    for (k, game) in file.games.iter().enumerate() {
        let mut state = MatchState::new_match(file.length);
        state.jacoby = rules.jacoby;
        state.beavers = rules.beavers;
        state.score = game.scores;
        let away = state.away();
        match &next {
            Some((expected, previous)) => {
                if game.number != previous.number + 1 {
                    return Err(at_game(
                        game,
                        format!(
                            "game {} follows game {}: games are numbered one after another",
                            game.number, previous.number
                        ),
                    ));
                }
                // In money play a game between other players (a
                // chouette's next box and captain) starts its own tally.
                let same_players = game.names == previous.names;
                if game.scores != expected.score && (same_players || !state.is_money()) {
                    return Err(at_game(
                        game,
                        format!(
                            "game {} starts at {}-{}, but game {} ended at {}-{}",
                            game.number,
                            game.scores[0],
                            game.scores[1],
                            previous.number,
                            expected.score[0],
                            expected.score[1]
                        ),
                    ));
                }
                state.crawford = expected.crawford;
            }
            // The first game of a file may start at any score: it is the
            // Crawford game when exactly one side is 1-away.
            None => state.crawford = rules.crawford && (away[0] == 1) != (away[1] == 1),
        }
        if !state.is_money() && away.contains(&0) {
            return Err(at_game(
                game,
                format!(
                    "game {} starts at {}-{}, at or past the match length {}",
                    game.number, game.scores[0], game.scores[1], file.length
                ),
            ));
        }
        let last = k + 1 == file.games.len();
        if automatic > 0 {
            state.cube.log2 = opening_cube(game, file.games.get(k + 1), state, &rules, automatic);
        }
        match play_through(game, state, &rules, last)? {
            Some(result) => {
                let mut after = state;
                record_game(&mut after, &result, &rules);
                next = Some((after, game));
            }
            None if !last => {
                return Err(at_game(
                    game,
                    format!(
                        "game {} never ends, yet game {} follows",
                        game.number,
                        game.number + 1
                    ),
                ))
            }
            None => {}
        }
        starts.push(state);
    }
    Ok(starts)
}

/// The most automatic doubles a game is searched for (a 64-cube).
const MAX_AUTOMATIC_DOUBLES: u8 = 6;

/// Walks `game` from `start` to its end: the result, or `None` when the
/// record stops first (allowed for the `last` game only).
fn play_through(
    game: &Game,
    start: MatchState,
    rules: &Rules,
    last: bool,
) -> Result<Option<GameResult>, MatError> {
    let mut walk = Walk::new(game, start, *rules);
    for e in &game.entries {
        walk.step(e)?;
    }
    walk.finish(last)
}

/// The log2 of the cube that automatic doubles (up to `automatic`) left at
/// the start of `game`: the smallest with which the game could be played
/// (its doubles take the cube from there) and which scores the points the
/// next game's score adds, or for a last game the points its `Wins` line
/// states. 0 when none fits: the errors of the plain reading follow.
fn opening_cube(
    game: &Game,
    next: Option<&Game>,
    state: MatchState,
    rules: &Rules,
    automatic: u8,
) -> u8 {
    let stated = game.entries.iter().rev().find_map(|e| match e.action {
        Action::Wins(n) | Action::Losses(n) => Some(u64::from(n)),
        _ => None,
    });
    (0..=automatic)
        .find(|&log2| {
            let mut start = state;
            start.cube.log2 = log2;
            match (play_through(game, start, rules, next.is_none()), next) {
                (Ok(Some(result)), Some(next)) => {
                    let mut after = start;
                    record_game(&mut after, &result, rules);
                    next.scores == after.score || next.names != game.names
                }
                (Ok(Some(result)), None) => stated.is_none_or(|n| n == result.points),
                (Ok(None), _) => true,
                (Err(_), _) => false,
            }
        })
        .unwrap_or(0)
}

fn at_game(game: &Game, reason: String) -> MatError {
    MatError {
        line: game.line,
        reason,
    }
}

/// What one entry of a game did, with what was on the board before it.
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    /// A double offered from `board` (the doubler's side).
    Double {
        /// The board before the doubler's roll.
        board: Position,
    },
    /// The doubled player's answer.
    Answer {
        /// Take, drop or beaver.
        answer: Answer,
        /// The answer is the original doubler's, to a beaver.
        to_beaver: bool,
    },
    /// A roll and its play.
    Roll {
        /// The board before the roll, from the roller's side.
        board: Position,
        /// The dice.
        dice: Dice,
        /// The play the text names; `None` when the roller stopped there
        /// (resigned after rolling).
        played: Option<Candidate>,
    },
    /// A result line: a resignation, or the winner's own line after the
    /// end.
    Result,
}

/// An answer to a double.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answer {
    /// Took.
    Take,
    /// Dropped: the game ends.
    Drop,
    /// Took and redoubled at once, keeping the cube (money only).
    Beaver,
}

/// A double waiting for its answer.
#[derive(Clone, Copy, Debug)]
struct Pending {
    doubler: usize,
    line: usize,
    /// The beaverer's redouble, which the original doubler may answer or
    /// accept by rolling on.
    beaver: bool,
}

/// One game read entry by entry under the rules: the board, the cube, the
/// turn, doubles and their answers, and the end. [`check`] walks every
/// game with it; annotation walks with it too, so the two read a game the
/// same way.
pub struct Walk<'g> {
    game: &'g Game,
    rules: Rules,
    start: MatchState,
    replay: Replay<'g>,
    cube: CubeState,
    turned: bool,
    last_roller: Option<usize>,
    pending: Option<Pending>,
    /// Line of a roll after which its roller stopped playing (resigned).
    stopped: Option<usize>,
    /// The result and the line where the game ended.
    ended: Option<(GameResult, usize)>,
    /// The game ended by a `Losses` line (which a `Wins` line overrules).
    by_losses: bool,
}

impl<'g> Walk<'g> {
    /// The walk of `game` from `start` (a state from [`check`]).
    pub fn new(game: &'g Game, start: MatchState, rules: Rules) -> Walk<'g> {
        Walk {
            game,
            rules,
            start,
            replay: Replay::new(game),
            cube: start.cube,
            turned: false,
            last_roller: None,
            pending: None,
            stopped: None,
            ended: None,
            by_losses: false,
        }
    }

    /// The cube now (a double offered is not yet turned).
    pub fn cube(&self) -> CubeState {
        self.cube
    }

    /// How the game ended, once it has.
    pub fn ended(&self) -> Option<GameResult> {
        self.ended.map(|(r, _)| r)
    }

    fn name(&self, p: usize) -> String {
        match self.game.names[p].as_str() {
            "" => format!("player {}", p + 1),
            n => n.to_string(),
        }
    }

    fn bad(&self, line: usize, why: String) -> MatError {
        MatError {
            line,
            reason: format!("game {}: {why}", self.game.number),
        }
    }

    /// Reads the next entry, or names its line and what no rules allow.
    pub fn step(&mut self, e: &Entry) -> Result<Step, MatError> {
        let p = e.player.min(1);
        let result_for = winner_of(e);
        if let Some((result, at)) = self.ended {
            let won = result.winner.index();
            return match result_for {
                Some(w) if w == won => Ok(Step::Result),
                // A `Wins` line outranks a `Losses` line before it, which
                // Galaxy places in either column.
                Some(_) if self.by_losses && matches!(e.action, Action::Wins(_)) => {
                    self.ended = None;
                    self.step(e)
                }
                Some(w) => Err(self.bad(
                    e.line,
                    format!(
                        "{} won at line {at}, yet the result names {}",
                        self.name(won),
                        self.name(w)
                    ),
                )),
                None => Err(self.bad(
                    e.line,
                    format!(
                        "the game ended at line {at}, yet {} follows",
                        describe(&e.action)
                    ),
                )),
            };
        }
        if let (Some(w), Action::Wins(n) | Action::Losses(n)) = (result_for, &e.action) {
            // A result before the game is over is a resignation; gnubg's
            // reading: up to the cube a single game, up to twice it a
            // gammon, beyond that a backgammon.
            let c = self.cube.value();
            let kind = match u64::from(*n) {
                n if n <= c => WinKind::Single,
                n if n <= 2 * c => WinKind::Gammon,
                _ => WinKind::Backgammon,
            };
            let resigner = Player::from_bit(1 - w as u32);
            let result = score_resignation(resigner, kind, self.cube, self.turned, &self.rules);
            self.pending = None;
            self.ended = Some((result, e.line));
            self.by_losses = matches!(e.action, Action::Losses(_));
            return Ok(Step::Result);
        }
        if let Some(at) = self.stopped {
            return Err(self.bad(
                e.line,
                format!(
                    "play stopped after the roll at line {at} (a resignation), yet {} follows",
                    describe(&e.action)
                ),
            ));
        }
        match &e.action {
            Action::Double(value) => self.double(e, p, *value),
            Action::Take => self.answer(e, p, Answer::Take),
            Action::Drop => self.answer(e, p, Answer::Drop),
            Action::Beaver(value) => {
                let step = self.answer(e, p, Answer::Beaver)?;
                if *value != 0 && u64::from(*value) != 2 * self.cube.value() {
                    return Err(self.bad(
                        e.line,
                        format!(
                            "Beavers => {value} with the cube at {}: a beaver takes it to {}",
                            self.cube.value() / 2,
                            2 * self.cube.value()
                        ),
                    ));
                }
                Ok(step)
            }
            Action::Roll { dice, text } => self.roll(e, p, *dice, text),
            Action::Wins(_) | Action::Losses(_) => unreachable!("results are read above"),
        }
    }

    fn double(&mut self, e: &Entry, p: usize, value: u32) -> Result<Step, MatError> {
        if let Some(d) = self.pending {
            return Err(self.bad(
                e.line,
                format!("a double while the double at line {} is unanswered", d.line),
            ));
        }
        match self.last_roller {
            None => {
                return Err(self.bad(
                    e.line,
                    "a double before the opening roll, which is played at once".into(),
                ))
            }
            Some(r) if r == p => {
                return Err(self.bad(
                    e.line,
                    format!(
                        "{} doubles after their own roll: a double comes before it",
                        self.name(p)
                    ),
                ))
            }
            Some(_) => {}
        }
        if self.start.crawford {
            return Err(self.bad(e.line, "a double in the Crawford game".into()));
        }
        if !self.cube.may_double(Player::from_bit(p as u32)) {
            return Err(self.bad(
                e.line,
                format!(
                    "{} doubles, but {} owns the cube",
                    self.name(p),
                    self.name(1 - p)
                ),
            ));
        }
        // SGF records no value (0); a .mat file's must be the cube doubled.
        let c = self.cube.value();
        if value != 0 && u64::from(value) != 2 * c {
            return Err(self.bad(
                e.line,
                format!(
                    "Doubles => {value} with the cube at {c}: a double takes it to {}",
                    2 * c
                ),
            ));
        }
        self.pending = Some(Pending {
            doubler: p,
            line: e.line,
            beaver: false,
        });
        Ok(Step::Double {
            board: self.replay.face(p),
        })
    }

    fn answer(&mut self, e: &Entry, p: usize, answer: Answer) -> Result<Step, MatError> {
        let Some(pending) = self.pending.take() else {
            return Err(self.bad(e.line, "an answer to a double that was not offered".into()));
        };
        if pending.doubler == p {
            return Err(self.bad(
                e.line,
                format!(
                    "{} answers their own double of line {}",
                    self.name(p),
                    pending.line
                ),
            ));
        }
        let doubler = Player::from_bit(pending.doubler as u32);
        match answer {
            Answer::Drop => self.ended = Some((score_drop(doubler, self.cube), e.line)),
            Answer::Take => {
                self.cube = if pending.beaver {
                    self.cube.after_beaver(doubler)
                } else {
                    self.cube.after_take(doubler)
                };
                self.turned = true;
            }
            Answer::Beaver => {
                if !self.start.is_money() {
                    return Err(self.bad(e.line, "a beaver in match play".into()));
                }
                if pending.beaver {
                    return Err(self.bad(e.line, "a beaver of a beaver".into()));
                }
                // The beaverer takes (and owns the cube), then redoubles
                // at once; the original doubler answers that.
                self.cube = self.cube.after_take(doubler);
                self.turned = true;
                self.pending = Some(Pending {
                    doubler: p,
                    line: e.line,
                    beaver: true,
                });
            }
        }
        Ok(Step::Answer {
            answer,
            to_beaver: pending.beaver,
        })
    }

    fn roll(&mut self, e: &Entry, p: usize, dice: Dice, text: &str) -> Result<Step, MatError> {
        match self.pending {
            // Rolling on accepts a beaver.
            Some(b) if b.beaver && b.doubler != p => {
                self.cube = self.cube.after_beaver(Player::from_bit(b.doubler as u32));
                self.pending = None;
            }
            Some(d) => {
                return Err(self.bad(
                    e.line,
                    format!(
                        "{} rolls while the double at line {} is unanswered",
                        self.name(p),
                        d.line
                    ),
                ))
            }
            None => {}
        }
        match self.last_roller {
            Some(r) if r == p => {
                return Err(self.bad(e.line, "the same player rolls twice in a row".into()))
            }
            None if dice.is_double() && !self.rules.israeli_opening => {
                return Err(self.bad(
                    e.line,
                    format!("an opening roll of {dice}: the opening roll is two different dice"),
                ))
            }
            _ => {}
        }
        self.last_roller = Some(p);
        let board = self.replay.face(p);
        let played = self.replay.resolve(e.line, dice, text)?;
        match &played {
            None => self.stopped = Some(e.line),
            Some(play) => {
                self.replay.advance(play);
                if play.position.me.off() == 15 {
                    let mover = Player::from_bit(p as u32);
                    let result =
                        score_bear_off(&play.position, mover, self.cube, self.turned, &self.rules)
                            .expect("the mover has borne off all 15");
                    self.ended = Some((result, e.line));
                }
            }
        }
        Ok(Step::Roll {
            board,
            dice,
            played,
        })
    }

    /// The end of the game's entries: its result, or `None` when the
    /// record stops before the game ends (allowed only for the `last`
    /// game of a file, and never with a double unanswered before another
    /// game).
    pub fn finish(self, last: bool) -> Result<Option<GameResult>, MatError> {
        if let (Some(d), false) = (self.pending, last) {
            return Err(self.bad(d.line, "a double that is never answered".into()));
        }
        Ok(self.ended())
    }
}

/// What an entry is, for a message.
fn describe(action: &Action) -> String {
    match action {
        Action::Roll { dice, .. } => format!("a roll of {dice}"),
        Action::Double(_) => "a double".into(),
        Action::Beaver(_) => "a beaver".into(),
        Action::Take => "a take".into(),
        Action::Drop => "a drop".into(),
        Action::Wins(_) | Action::Losses(_) => "a result".into(),
    }
}

/// The winner a `Wins` or `Losses` entry names.
fn winner_of(e: &Entry) -> Option<usize> {
    match e.action {
        Action::Wins(_) => Some(e.player.min(1)),
        Action::Losses(_) => Some(1 - e.player.min(1)),
        _ => None,
    }
}
