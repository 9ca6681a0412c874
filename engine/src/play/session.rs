//! A session of play under every rule option: money or a match to N,
//! the opening roll-off (automatic doubles, the Israeli opening), the cube
//! with takes, drops and beavers, resignations, scoring (Jacoby, backgammon
//! counting two) and the Crawford rule; and its record as a `.mat` file.
//!
//! It is a state machine: [`Session::awaiting`] says who must do what, and
//! each action checks it is the one due. Front ends (`sheshbesh play`, the
//! chouette) drive it with the choices of people or of [`crate::play::agent`].

use crate::formats::matfile::{self, Action, Entry, Game, MatchFile};
use crate::rules::dice::Dice;
use crate::rules::dice::Roller;
use crate::rules::match_state::{CubeState, GameState, MatchState, Player};
use crate::rules::movegen::{legal_moves, Candidate};
use crate::rules::position::Position;
use crate::rules::scoring::{self, GameResult, Rules, WinKind};

/// What the session waits for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Awaiting {
    /// No game in progress: call [`Session::start_game`].
    BetweenGames,
    /// `player` is to roll, and may double first when `may_double`.
    Roll {
        /// Who is on roll.
        player: Player,
        /// Whether a double may be offered now.
        may_double: bool,
    },
    /// `player` has rolled `dice` and must play.
    Move {
        /// Who moves.
        player: Player,
        /// The roll.
        dice: Dice,
    },
    /// `player` must take or drop a double (or beaver when allowed).
    AnswerDouble {
        /// Who answers.
        player: Player,
        /// Whether a beaver is allowed.
        may_beaver: bool,
    },
    /// `player` must accept or reject a resignation of `kind`.
    AnswerResignation {
        /// Who answers.
        player: Player,
        /// What is on offer.
        kind: WinKind,
    },
    /// The match is over.
    MatchOver {
        /// Who won it.
        winner: Player,
    },
}

/// Why an action was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlayError {
    /// The action is not the one due now.
    #[error("not now: {0}")]
    NotNow(&'static str),
    /// The play is not among the legal ones.
    #[error("not a legal play")]
    Illegal,
}

/// A double waiting for its answer.
#[derive(Clone, Copy, Debug, PartialEq)]
struct PendingDouble {
    /// Whose double (or beaver) stands.
    doubler: Player,
    /// The cube as it was before this double.
    before: CubeState,
    /// The cube if the double is taken.
    if_taken: CubeState,
    /// What the doubler wins if it is dropped.
    drop_pays: u64,
}

/// The report of an opening roll-off.
#[derive(Clone, Debug, PartialEq)]
pub struct OpeningReport {
    /// Every throw of the roll-off, (player 0's die, player 1's die).
    pub throws: Vec<(u8, u8)>,
    /// Who starts.
    pub starter: Player,
    /// The roll the starter plays.
    pub dice: Dice,
    /// The cube after automatic doubles.
    pub cube: CubeState,
}

/// A session of play.
pub struct Session {
    rules: Rules,
    names: [String; 2],
    state: MatchState,
    /// The board from `state.on_roll`.
    position: Position,
    roller: Box<dyn Roller + Send>,
    phase: Awaiting,
    pending: Option<PendingDouble>,
    /// The phase a refused resignation returns to.
    before_resignation: Option<Awaiting>,
    cube_turned: bool,
    /// Whose resignation was refused in this game.
    refused: [bool; 2],
    record: MatchFile,
    results: Vec<GameResult>,
}

impl Session {
    /// A new session: a match to `length` points, or money when 0.
    pub fn new(
        rules: Rules,
        length: u32,
        names: [String; 2],
        roller: Box<dyn Roller + Send>,
    ) -> Session {
        let mut state = if length == 0 {
            MatchState {
                jacoby: rules.jacoby,
                beavers: rules.beavers,
                ..MatchState::default()
            }
        } else {
            MatchState::new_match(length)
        };
        state.game_state = GameState::NoGame;
        let on = |b: bool| if b { "On" } else { "Off" }.to_string();
        let mut tags = vec![
            ("Player 1".to_string(), names[0].clone()),
            ("Player 2".to_string(), names[1].clone()),
            ("Crawford".to_string(), on(rules.crawford && length > 0)),
        ];
        if length == 0 {
            tags.push(("Jacoby".into(), on(rules.jacoby)));
            tags.push(("Beaver".into(), on(rules.beavers)));
            tags.push(("AutoDoubles".into(), rules.automatic_doubles.to_string()));
        }
        tags.push(("Israeli".into(), on(rules.israeli_opening)));
        tags.push((
            "BackgammonCountsTwo".into(),
            on(rules.backgammon_counts_two),
        ));
        Session {
            rules: rules.effective(&state),
            record: MatchFile {
                length,
                tags,
                games: Vec::new(),
            },
            names,
            state,
            position: Position::start(),
            roller,
            phase: Awaiting::BetweenGames,
            pending: None,
            before_resignation: None,
            cube_turned: false,
            refused: [false; 2],
            results: Vec::new(),
        }
    }

    /// Whether `player` offered to resign in this game and was refused.
    pub fn resignation_refused(&self, player: Player) -> bool {
        self.refused[player.index()]
    }

    /// Adds a header tag to the record (a commitment, an event name).
    pub fn tag(&mut self, key: &str, value: &str) {
        self.record.tags.push((key.to_string(), value.to_string()));
    }

    /// What the session waits for.
    pub fn awaiting(&self) -> Awaiting {
        self.phase
    }

    /// The board from the player on roll ([`MatchState::on_roll`]).
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// The board from `player`'s side.
    pub fn position_for(&self, player: Player) -> Position {
        if player == self.state.on_roll {
            self.position
        } else {
            self.position.swapped()
        }
    }

    /// Cube, score, dice and the player on roll.
    pub fn state(&self) -> &MatchState {
        &self.state
    }

    /// The rules in force.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// The players' names (player 0 first).
    pub fn names(&self) -> &[String; 2] {
        &self.names
    }

    /// The finished games' results, in order.
    pub fn results(&self) -> &[GameResult] {
        &self.results
    }

    /// The session so far as a match file record.
    pub fn record(&self) -> &MatchFile {
        &self.record
    }

    /// The session so far as `.mat` text.
    pub fn mat_text(&self) -> String {
        matfile::write(&self.record)
    }

    /// The state for the player who must decide on a pending double: the
    /// board is still seen from the doubler (`on_roll`).
    pub fn decision_state(&self) -> MatchState {
        let mut s = self.state;
        match self.phase {
            Awaiting::AnswerDouble { player, .. } => {
                if let Some(p) = self.pending {
                    s.on_roll = p.doubler;
                    s.turn = player;
                    s.doubled = true;
                    s.dice = None;
                    s.cube = p.before;
                }
            }
            Awaiting::AnswerResignation { player, kind } => {
                s.turn = player;
                s.resignation = match kind {
                    WinKind::Single => 1,
                    WinKind::Gammon => 2,
                    WinKind::Backgammon => 3,
                };
            }
            _ => {}
        }
        s
    }

    /// The board a decision is seen from: the doubler's while a double is
    /// pending, else the player on roll's.
    pub fn decision_position(&self) -> Position {
        match (self.phase, self.pending) {
            (Awaiting::AnswerDouble { .. }, Some(p)) => self.position_for(p.doubler),
            _ => self.position,
        }
    }

    /// Starts the next game with the opening roll-off.
    pub fn start_game(&mut self) -> Result<OpeningReport, PlayError> {
        if self.phase != Awaiting::BetweenGames {
            return Err(PlayError::NotNow(
                "a game is in progress or the match is over",
            ));
        }
        self.refused = [false; 2];
        let mut throws = Vec::new();
        let roller = &mut self.roller;
        let opening = {
            let cell = std::cell::RefCell::new((roller, &mut throws));
            let o = scoring::opening(
                &self.rules,
                self.state.is_money(),
                || {
                    let mut c = cell.borrow_mut();
                    let t = c.0.throw();
                    c.1.push(t);
                    t
                },
                || {
                    let mut c = cell.borrow_mut();
                    let (a, b) = c.0.throw();
                    c.1.push((a, b));
                    Dice::new(a, b).expect("dice 1..6")
                },
            );
            o
        };
        self.state.cube = opening.cube;
        self.state.on_roll = opening.starter;
        self.state.turn = opening.starter;
        self.state.dice = Some(opening.dice);
        self.state.doubled = false;
        self.state.resignation = 0;
        self.state.game_state = GameState::Playing;
        self.position = Position::start();
        self.cube_turned = false;
        self.pending = None;
        self.record.games.push(Game {
            number: self.record.games.len() as u32 + 1,
            names: self.names.clone(),
            scores: self.state.score,
            line: 0,
            entries: Vec::new(),
        });
        self.phase = Awaiting::Move {
            player: opening.starter,
            dice: opening.dice,
        };
        Ok(OpeningReport {
            throws,
            starter: opening.starter,
            dice: opening.dice,
            cube: opening.cube,
        })
    }

    fn push(&mut self, player: Player, action: Action) {
        if let Some(g) = self.record.games.last_mut() {
            g.entries.push(Entry {
                player: player.index(),
                line: 0,
                action,
            });
        }
    }

    /// Whether `player` may double before the next roll.
    fn may_double(&self, player: Player) -> bool {
        (self.state.is_money() || !self.state.crawford) && self.state.cube.may_double(player)
    }

    /// The legal plays of the roll due (the pass alone when nothing is
    /// legal); empty outside [`Awaiting::Move`].
    pub fn legal_plays(&self) -> Vec<Candidate> {
        match self.phase {
            Awaiting::Move { dice, .. } => legal_moves(&self.position, dice),
            _ => Vec::new(),
        }
    }

    /// Rolls for the player on roll.
    pub fn roll(&mut self) -> Result<Dice, PlayError> {
        let Awaiting::Roll { player, .. } = self.phase else {
            return Err(PlayError::NotNow("no one is to roll"));
        };
        let (a, b) = self.roller.throw();
        let dice = Dice::new(a, b).expect("dice 1..6");
        self.state.dice = Some(dice);
        self.phase = Awaiting::Move { player, dice };
        Ok(dice)
    }

    /// The player on roll offers a double.
    pub fn double(&mut self) -> Result<(), PlayError> {
        let Awaiting::Roll {
            player,
            may_double: true,
        } = self.phase
        else {
            return Err(PlayError::NotNow("no double may be offered now"));
        };
        let if_taken = self.state.cube.after_take(player);
        self.push(player, Action::Double(if_taken.value() as u32));
        self.pending = Some(PendingDouble {
            doubler: player,
            before: self.state.cube,
            if_taken,
            drop_pays: self.state.cube.value(),
        });
        self.phase = Awaiting::AnswerDouble {
            player: player.other(),
            may_beaver: self.rules.beavers && self.state.is_money(),
        };
        Ok(())
    }

    /// The doubled player takes.
    pub fn take(&mut self) -> Result<(), PlayError> {
        let (Awaiting::AnswerDouble { player, .. }, Some(p)) = (self.phase, self.pending) else {
            return Err(PlayError::NotNow("no double to take"));
        };
        self.push(player, Action::Take);
        self.state.cube = p.if_taken;
        self.cube_turned = true;
        self.pending = None;
        let on_roll = self.state.on_roll;
        self.phase = Awaiting::Roll {
            player: on_roll,
            may_double: false,
        };
        Ok(())
    }

    /// The doubled player beavers: takes and redoubles at once, keeping the
    /// cube; the original doubler must now take or drop.
    pub fn beaver(&mut self) -> Result<(), PlayError> {
        let (
            Awaiting::AnswerDouble {
                player,
                may_beaver: true,
            },
            Some(p),
        ) = (self.phase, self.pending)
        else {
            return Err(PlayError::NotNow("no beaver is allowed now"));
        };
        let taken = p.if_taken;
        let redoubled = CubeState {
            log2: taken.log2 + 1,
            owner: Some(player),
        };
        self.push(player, Action::Beaver(redoubled.value() as u32));
        self.pending = Some(PendingDouble {
            doubler: player,
            before: taken,
            if_taken: redoubled,
            drop_pays: taken.value(),
        });
        self.phase = Awaiting::AnswerDouble {
            player: p.doubler,
            may_beaver: false,
        };
        Ok(())
    }

    /// The doubled player drops: the game ends.
    pub fn drop_double(&mut self) -> Result<GameResult, PlayError> {
        let (Awaiting::AnswerDouble { player, .. }, Some(p)) = (self.phase, self.pending) else {
            return Err(PlayError::NotNow("no double to drop"));
        };
        self.push(player, Action::Drop);
        self.pending = None;
        let result = GameResult {
            winner: p.doubler,
            kind: WinKind::Single,
            points: p.drop_pays,
        };
        self.state.game_state = GameState::Dropped;
        Ok(self.finish(result))
    }

    /// Plays `played` (one of [`Session::legal_plays`]). Returns the result
    /// when it ends the game.
    pub fn play(&mut self, played: &Candidate) -> Result<Option<GameResult>, PlayError> {
        let Awaiting::Move { player, dice } = self.phase else {
            return Err(PlayError::NotNow("no roll to play"));
        };
        if !self
            .legal_plays()
            .iter()
            .any(|c| c.position == played.position)
        {
            return Err(PlayError::Illegal);
        }
        self.push(
            player,
            Action::Roll {
                dice,
                text: mat_move(played),
            },
        );
        if let Some(result) = scoring::score_bear_off(
            &played.position,
            player,
            self.state.cube,
            self.cube_turned,
            &self.rules,
        ) {
            self.position = played.position;
            self.state.game_state = GameState::Over;
            return Ok(Some(self.finish(result)));
        }
        self.position = played.position.swapped();
        let next = player.other();
        self.state.on_roll = next;
        self.state.turn = next;
        self.state.dice = None;
        self.phase = Awaiting::Roll {
            player: next,
            may_double: self.may_double(next),
        };
        Ok(None)
    }

    /// `player` offers to resign a game of `kind` (at any point of a game
    /// but while a double or another resignation waits).
    pub fn resign(&mut self, player: Player, kind: WinKind) -> Result<(), PlayError> {
        match self.phase {
            Awaiting::Roll { .. } | Awaiting::Move { .. } => {}
            _ => return Err(PlayError::NotNow("no resignation now")),
        }
        self.before_resignation = Some(self.phase);
        self.phase = Awaiting::AnswerResignation {
            player: player.other(),
            kind,
        };
        Ok(())
    }

    /// The resignation on offer is accepted: the game ends.
    pub fn accept(&mut self) -> Result<GameResult, PlayError> {
        let Awaiting::AnswerResignation { player, kind } = self.phase else {
            return Err(PlayError::NotNow("no resignation to accept"));
        };
        let result = scoring::score_resignation(
            player.other(),
            kind,
            self.state.cube,
            self.cube_turned,
            &self.rules,
        );
        // A resignation after rolling: the roll was thrown, so the record
        // shows it (an empty play, as gnubg writes a roll then a
        // resignation); without it a game resigned at its opening roll
        // reads as unplayed and the dice stream no longer lines up.
        if let Some(Awaiting::Move {
            player: mover,
            dice,
        }) = self.before_resignation
        {
            self.push(
                mover,
                Action::Roll {
                    dice,
                    text: String::new(),
                },
            );
        }
        self.state.game_state = GameState::Resigned;
        Ok(self.finish(result))
    }

    /// The resignation on offer is rejected: play goes on.
    pub fn reject(&mut self) -> Result<(), PlayError> {
        let Awaiting::AnswerResignation { player, .. } = self.phase else {
            return Err(PlayError::NotNow("no resignation to reject"));
        };
        self.refused[player.other().index()] = true;
        self.phase = self
            .before_resignation
            .take()
            .unwrap_or(Awaiting::BetweenGames);
        Ok(())
    }

    fn finish(&mut self, result: GameResult) -> GameResult {
        self.push(
            result.winner,
            Action::Wins(u32::try_from(result.points).unwrap_or(u32::MAX)),
        );
        self.results.push(result);
        scoring::record_game(&mut self.state, &result, &self.rules);
        self.state.game_state = GameState::NoGame;
        self.pending = None;
        self.before_resignation = None;
        let won =
            self.state.length > 0 && self.state.score[result.winner.index()] >= self.state.length;
        self.phase = if won {
            Awaiting::MatchOver {
                winner: result.winner,
            }
        } else {
            Awaiting::BetweenGames
        };
        result
    }
}

/// A play as the `.mat` files gnubg writes show it: every step as numbers
/// (bar 25, off 0) with hits starred.
pub fn mat_move(c: &Candidate) -> String {
    let parts: Vec<String> =
        c.mv.steps()
            .map(|s| format!("{}/{}{}", s.from, s.to, if s.hit { "*" } else { "" }))
            .collect();
    parts.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evaluation::evaluator::testing::PipRace;
    use crate::play::agent::{Agent, CubeReply};
    use crate::play::verifiable_dice::{check_match, VerifiableDice};

    /// Throws from a list (a test double for the dice).
    struct Scripted(std::collections::VecDeque<(u8, u8)>);

    impl Roller for Scripted {
        fn throw(&mut self) -> (u8, u8) {
            self.0.pop_front().expect("script ran out of throws")
        }
    }

    fn scripted(rules: Rules, length: u32, throws: &[(u8, u8)]) -> Session {
        Session::new(
            rules,
            length,
            ["alice".into(), "bob".into()],
            Box::new(Scripted(throws.iter().copied().collect())),
        )
    }

    fn first_play(s: &mut Session) -> Option<GameResult> {
        let c = s.legal_plays()[0];
        s.play(&c).unwrap()
    }

    #[test]
    fn beaver_take_and_resignation_score_and_record() {
        let rules = Rules {
            beavers: true,
            jacoby: true,
            ..Rules::default()
        };
        let mut s = scripted(rules, 0, &[(3, 1)]);
        assert_eq!(s.awaiting(), Awaiting::BetweenGames);
        let o = s.start_game().unwrap();
        assert_eq!(o.starter, Player::Zero);
        assert!(s.roll().is_err(), "the opening roll is already thrown");
        first_play(&mut s);
        assert_eq!(
            s.awaiting(),
            Awaiting::Roll {
                player: Player::One,
                may_double: true
            }
        );
        s.double().unwrap();
        assert_eq!(
            s.awaiting(),
            Awaiting::AnswerDouble {
                player: Player::Zero,
                may_beaver: true
            }
        );
        // While the double waits, the decision is seen from the doubler.
        assert_eq!(s.decision_state().on_roll, Player::One);
        assert!(s.decision_state().doubled);
        s.beaver().unwrap();
        assert_eq!(
            s.awaiting(),
            Awaiting::AnswerDouble {
                player: Player::One,
                may_beaver: false
            }
        );
        assert!(s.beaver().is_err(), "no raccoons");
        s.take().unwrap();
        assert_eq!(s.state().cube.value(), 4);
        assert_eq!(s.state().cube.owner, Some(Player::Zero));
        assert_eq!(
            s.awaiting(),
            Awaiting::Roll {
                player: Player::One,
                may_double: false
            }
        );
        s.resign(Player::One, WinKind::Gammon).unwrap();
        let r = s.accept().unwrap();
        // The cube was turned, so Jacoby lets the gammon count.
        assert_eq!((r.winner, r.points), (Player::Zero, 8));
        assert_eq!(s.state().score, [8, 0]);
        let text = s.mat_text();
        for want in [
            " Doubles => 2",
            " Beavers => 4",
            " Takes",
            "Wins 8 points",
            "0 point match",
        ] {
            assert!(text.contains(want), "{want} missing from\n{text}");
        }
        let back = crate::formats::story::read(&text, false).unwrap();
        assert_eq!(back.games.len(), 1);
        matfile::replay(&back.games[0]).unwrap();
    }

    #[test]
    fn a_resignation_after_rolling_records_the_roll() {
        // The starter resigns its opening roll: the record shows the roll,
        // so the game reads as played and the dice stream lines up.
        let mut s = scripted(Rules::default(), 3, &[(5, 4)]);
        let o = s.start_game().unwrap();
        s.resign(o.starter, WinKind::Single).unwrap();
        s.accept().unwrap();
        let entries = &s.record().games[0].entries;
        assert!(matches!(
            &entries[0].action,
            Action::Roll { dice, text } if *dice == o.dice && text.is_empty()
        ));
        assert_eq!(entries[0].player, o.starter.index());
        assert!(matches!(entries[1].action, Action::Wins(1)));
        // Refused, the roll is recorded with its play as usual.
        let mut s = scripted(Rules::default(), 3, &[(5, 4)]);
        let o = s.start_game().unwrap();
        s.resign(o.starter, WinKind::Single).unwrap();
        s.reject().unwrap();
        assert!(s.record().games[0].entries.is_empty());
    }

    #[test]
    fn a_dropped_beaver_costs_the_doubled_cube() {
        let rules = Rules {
            beavers: true,
            ..Rules::default()
        };
        let mut s = scripted(rules, 0, &[(3, 1)]);
        s.start_game().unwrap();
        first_play(&mut s);
        s.double().unwrap();
        s.beaver().unwrap();
        let r = s.drop_double().unwrap();
        assert_eq!((r.winner, r.points), (Player::Zero, 2));
    }

    #[test]
    fn crawford_game_has_no_cube_and_the_match_ends() {
        let mut s = scripted(Rules::default(), 3, &[(3, 1), (6, 2), (5, 1), (4, 3)]);
        s.start_game().unwrap();
        first_play(&mut s);
        s.double().unwrap();
        let r = s.drop_double().unwrap();
        assert_eq!(r.points, 1);
        assert_eq!(s.state().score, [0, 1]);
        s.start_game().unwrap(); // 6-2: player 0 starts
        first_play(&mut s);
        s.double().unwrap();
        s.drop_double().unwrap();
        assert_eq!(s.state().score, [0, 2]);
        assert!(s.state().crawford);
        s.start_game().unwrap(); // 5-1: player 0 starts
        first_play(&mut s);
        assert_eq!(
            s.awaiting(),
            Awaiting::Roll {
                player: Player::One,
                may_double: false
            },
            "no cube in the Crawford game"
        );
        assert!(s.double().is_err());
        s.resign(Player::Zero, WinKind::Single).unwrap();
        s.reject().unwrap();
        assert!(matches!(s.awaiting(), Awaiting::Roll { .. }));
        s.resign(Player::Zero, WinKind::Single).unwrap();
        s.accept().unwrap();
        assert_eq!(
            s.awaiting(),
            Awaiting::MatchOver {
                winner: Player::One
            }
        );
        assert!(s.start_game().is_err());
    }

    #[test]
    fn opening_options_automatic_doubles_and_israeli() {
        let rules = Rules {
            automatic_doubles: 1,
            israeli_opening: true,
            ..Rules::default()
        };
        let mut s = scripted(rules, 0, &[(2, 2), (4, 4), (5, 3), (6, 6)]);
        let o = s.start_game().unwrap();
        assert_eq!(o.throws, vec![(2, 2), (4, 4), (5, 3), (6, 6)]);
        assert_eq!(o.cube.value(), 2);
        assert_eq!(o.starter, Player::Zero);
        assert_eq!(o.dice, Dice::new(6, 6).unwrap());
        // In match play neither option applies.
        // In match play automatic doubles do not apply; the Israeli
        // opening does.
        let mut m = scripted(rules, 5, &[(2, 2), (5, 3), (1, 1)]);
        let o = m.start_game().unwrap();
        assert_eq!(o.cube.value(), 1);
        assert_eq!(o.dice, Dice::new(1, 1).unwrap());
    }

    /// Plays a whole match by the agent on both sides.
    fn agent_match(seed: [u8; 32], rules: Rules, length: u32) -> Session {
        let ev = PipRace(20.0);
        let agent = Agent::new(&ev, 0);
        let mut s = Session::new(
            rules,
            length,
            ["a".into(), "b".into()],
            Box::new(VerifiableDice::from_seed(seed)),
        );
        for _ in 0..100_000 {
            match s.awaiting() {
                Awaiting::BetweenGames => {
                    s.start_game().unwrap();
                }
                Awaiting::MatchOver { .. } => return s,
                Awaiting::Roll { may_double, .. } => {
                    let pos = *s.position();
                    if may_double && agent.should_double(&pos, s.state()).unwrap() {
                        s.double().unwrap();
                    } else {
                        s.roll().unwrap();
                    }
                }
                Awaiting::Move { .. } => {
                    // A pip counter alone hits forever: pubeval plays.
                    let legal = s.legal_plays();
                    let i = crate::evaluation::pubeval::choose(s.position(), &legal);
                    s.play(&legal[i]).unwrap();
                }
                Awaiting::AnswerDouble { .. } => {
                    let pos = s.decision_position();
                    match agent.answer_double(&pos, &s.decision_state()).unwrap() {
                        CubeReply::Take => s.take().unwrap(),
                        CubeReply::Beaver => s.beaver().unwrap(),
                        CubeReply::Drop => {
                            s.drop_double().unwrap();
                        }
                    }
                }
                Awaiting::AnswerResignation { .. } => s.accept().map(|_| ()).unwrap(),
            }
        }
        panic!(
            "the match did not end: {:?} {:?}\n{}",
            s.awaiting(),
            s.state(),
            s.mat_text()
        );
    }

    #[test]
    fn a_match_played_out_verifies_against_its_seed_and_a_tampered_roll_fails() {
        let rules = Rules {
            israeli_opening: true,
            ..Rules::default()
        };
        let s = agent_match([9u8; 32], rules, 3);
        let text = s.mat_text();
        let file = crate::formats::story::read(&text, false).unwrap();
        for g in &file.games {
            matfile::replay(g).unwrap();
        }
        let dice = VerifiableDice::from_seed([9u8; 32]);
        let rolls = check_match(&dice, &file).unwrap();
        assert!(rolls > 20, "{rolls} rolls");
        // Change one roll in the middle of the file.
        let mut tampered = file.clone();
        let g = &mut tampered.games[0];
        let i = g
            .entries
            .iter()
            .rposition(|e| matches!(e.action, Action::Roll { .. }))
            .unwrap();
        if let Action::Roll { dice: d, .. } = &mut g.entries[i].action {
            *d = if d.first() == 1 && d.second() == 1 {
                Dice::new(2, 2).unwrap()
            } else {
                Dice::new(1, 1).unwrap()
            };
        }
        let err = check_match(&dice, &tampered).unwrap_err().to_string();
        assert!(err.contains("the seed gives"), "{err}");
        // Another seed fails at once.
        assert!(check_match(&VerifiableDice::from_seed([8u8; 32]), &file).is_err());
    }
}
