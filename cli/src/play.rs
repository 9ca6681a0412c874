//! `sheshbesh play`: a game in the terminal against the engine, or between
//! two people at one keyboard, under every rule option, with verifiable
//! dice. The session is saved as a `.mat` file after every action, so an
//! interrupted session is never lost; `annotate` reads it back.

use std::io::{BufRead, Write};
use std::path::PathBuf;

use anyhow::{bail, Result};
use sheshbesh_engine::agent::{Agent, CubeReply};
use sheshbesh_engine::annotate::cube_decision;
use sheshbesh_engine::evaluator::NetEvaluator;
use sheshbesh_engine::notation::parse_move;
use sheshbesh_engine::rules::{GameResult, Rules, WinKind};
use sheshbesh_engine::search::{rank_moves, MoveFilter};
use sheshbesh_engine::session::{Phase, Session};
use sheshbesh_engine::verifiable_dice::VerifiableDice;
use sheshbesh_engine::{Candidate, Player, Position};
use sheshbesh_trainer::checkpoint::write_atomic;

use crate::board::{draw_labelled, Labels};
use crate::words::Lang;

/// Who sits in a seat.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Seat {
    /// A person at the keyboard.
    Human,
    /// Sheshbesh.
    Engine,
}

/// How strong the engine plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Level {
    /// pubeval's plays (a weak linear evaluator), 0-ply cube.
    Beginner,
    /// The net alone (0-ply).
    Intermediate,
    /// 1-ply search.
    Expert,
    /// 2-ply search.
    WorldClass,
}

impl Level {
    /// The search depth of the level.
    pub fn ply(self) -> u32 {
        match self {
            Level::Beginner | Level::Intermediate => 0,
            Level::Expert => 1,
            Level::WorldClass => 2,
        }
    }
}

/// Where the bottom player's home board is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Home {
    /// Bottom right (the default).
    Right,
    /// Bottom left.
    Left,
}

/// Options of `sheshbesh play`.
#[derive(clap::Args, Debug)]
pub struct PlayArgs {
    /// Match length in points; 0 plays a money session.
    #[arg(long = "match", default_value_t = 0)]
    pub length: u32,
    /// Money sessions: stop after this many games (0: until you quit).
    #[arg(long, default_value_t = 0)]
    pub games: u32,
    /// Jacoby rule (money): gammons count only once the cube is turned.
    #[arg(long)]
    pub jacoby: bool,
    /// Beavers (money): the taker may redouble at once, keeping the cube.
    #[arg(long)]
    pub beavers: bool,
    /// Automatic doubles (money): ties in the opening roll double the cube,
    /// at most this many times a game.
    #[arg(long, default_value_t = 0)]
    pub auto_doubles: u8,
    /// A backgammon counts 2, like a gammon.
    #[arg(long)]
    pub bg_counts_two: bool,
    /// Israeli opening: the starter throws both dice afresh for the first
    /// roll (a double is possible).
    #[arg(long)]
    pub israeli: bool,
    /// Play matches without the Crawford rule.
    #[arg(long)]
    pub no_crawford: bool,
    /// Who plays: player 0 (top, O) and player 1 (bottom, X), each human or
    /// engine.
    #[arg(long, value_delimiter = ',', default_value = "engine,human")]
    pub players: Vec<Seat>,
    /// Names of player 0 and player 1.
    #[arg(long, value_delimiter = ',')]
    pub names: Vec<String>,
    /// Engine strength.
    #[arg(long, value_enum, default_value_t = Level::Expert)]
    pub level: Level,
    /// Where your home board is drawn.
    #[arg(long, value_enum, default_value_t = Home::Right)]
    pub home: Home,
    /// Swap the drawing's sides after every game, as players at a real
    /// board change places.
    #[arg(long)]
    pub swap_sides: bool,
    /// Secret dice seed, 64 hex digits (default: a fresh random one). Its
    /// SHA-256 commitment is printed before play and the seed after.
    #[arg(long)]
    pub seed: Option<String>,
    /// Where to save the session as a .mat file (default: the first free
    /// sheshbesh-session-N.mat here). Written after every action.
    #[arg(long)]
    pub save: Option<PathBuf>,
    /// Show the Hebrew words of the game beside the English ones.
    #[arg(long, value_enum, default_value_t = Lang::En)]
    pub lang: Lang,
    /// Play a chouette with this many players (3 or more): see `--help`.
    #[arg(long)]
    pub chouette: Option<usize>,
    /// Weights file instead of the shipped weights.
    #[arg(long)]
    pub weights: Option<PathBuf>,
}

/// The keyboard and the screen.
pub struct Console<R: BufRead, W: Write> {
    input: R,
    out: W,
}

impl<R: BufRead, W: Write> Console<R, W> {
    /// A console on these streams.
    pub fn new(input: R, out: W) -> Self {
        Console { input, out }
    }

    /// Prints a line.
    pub fn say(&mut self, text: &str) -> Result<()> {
        writeln!(self.out, "{text}")?;
        self.out.flush()?;
        Ok(())
    }

    /// Asks and reads one line; `None` at the end of input.
    pub fn ask(&mut self, prompt: &str) -> Result<Option<String>> {
        write!(self.out, "{prompt} > ")?;
        self.out.flush()?;
        let mut line = String::new();
        if self.input.read_line(&mut line)? == 0 {
            writeln!(self.out)?;
            return Ok(None);
        }
        Ok(Some(line.trim().to_string()))
    }
}

/// The first `sheshbesh-session-N.mat` that does not exist yet.
pub fn free_session_path(stem: &str) -> PathBuf {
    (1..)
        .map(|n| PathBuf::from(format!("{stem}-{n}.mat")))
        .find(|p| !p.exists())
        .expect("some number is free")
}

/// The dice for a session: the seed given, or a fresh random one.
pub fn session_dice(seed: Option<&str>) -> Result<VerifiableDice> {
    Ok(match seed {
        Some(s) => VerifiableDice::from_hex(s)?,
        None => VerifiableDice::from_seed(rand::random()),
    })
}

/// Runs `sheshbesh play`.
pub fn run(args: PlayArgs) -> Result<()> {
    if let Some(n) = args.chouette {
        return crate::chouette_cmd::run(&args, n);
    }
    if args.players.len() != 2 {
        bail!("bad --players: give two seats, as engine,human");
    }
    if args.length == 0 && args.games == 0 && !args.players.contains(&Seat::Human) {
        bail!("bad --games: a money session between engines needs --games N (or --match N)");
    }
    let ev = crate::nets::load(args.weights.as_deref())?;
    let stdin = std::io::stdin();
    let mut console = Console::new(stdin.lock(), std::io::stdout());
    play(&ev, &args, &mut console)
}

struct Game<'a> {
    ev: &'a NetEvaluator,
    args: &'a PlayArgs,
    session: Session,
    save: PathBuf,
    lang: Lang,
    games_started: u32,
    /// The game in which a resignation by the engine was refused: it does
    /// not offer again that game.
    resign_refused: u32,
}

fn name_of(s: &Session, p: Player) -> &str {
    &s.names()[p.index()]
}

impl Game<'_> {
    fn seat(&self, p: Player) -> Seat {
        self.args.players[p.index()]
    }

    fn agent(&self) -> Agent<'_, NetEvaluator> {
        Agent::new(self.ev, self.args.level.ply())
    }

    fn save(&self) -> Result<()> {
        write_atomic(&self.save, self.session.mat_text().as_bytes())
    }

    /// Whose side the board is drawn from: the one human, else the player
    /// due to act.
    fn viewer(&self, acting: Player) -> Player {
        match (self.seat(Player::Zero), self.seat(Player::One)) {
            (Seat::Human, Seat::Engine) => Player::Zero,
            (Seat::Engine, Seat::Human) => Player::One,
            (Seat::Engine, Seat::Engine) => Player::One,
            _ => acting,
        }
    }

    fn home_left(&self) -> bool {
        let swap =
            self.args.swap_sides && self.games_started.is_multiple_of(2) && self.games_started > 0;
        (self.args.home == Home::Left) != swap
    }

    fn board(&self, pos_for_viewer: &Position, viewer: Player, status: &str) -> String {
        let s = &self.session;
        draw_labelled(
            pos_for_viewer,
            s.state(),
            viewer,
            self.home_left(),
            &Labels {
                x: name_of(s, viewer).to_string(),
                o: name_of(s, viewer.other()).to_string(),
                status: status.to_string(),
            },
        )
    }

    fn show<R: BufRead, W: Write>(
        &self,
        c: &mut Console<R, W>,
        acting: Player,
        status: &str,
    ) -> Result<()> {
        let v = self.viewer(acting);
        c.say(&self.board(&self.session.position_for(v), v, status))
    }

    fn announce_result<R: BufRead, W: Write>(
        &self,
        c: &mut Console<R, W>,
        r: &GameResult,
    ) -> Result<()> {
        let s = &self.session;
        let kind = self.lang.win(r.kind);
        let pts = if r.points == 1 { "point" } else { "points" };
        c.say(&format!(
            "{} wins a {kind} and {} {pts}.",
            name_of(s, r.winner),
            r.points
        ))?;
        let sc = s.state().score;
        let of = if s.state().length > 0 {
            format!(" (match to {})", s.state().length)
        } else {
            String::new()
        };
        c.say(&format!(
            "Score: {} {}, {} {}{of}",
            s.names()[0],
            sc[0],
            s.names()[1],
            sc[1]
        ))
    }
}

/// Plays the session on `console` until the match ends, the games run out,
/// the input ends or the player quits. The record is saved throughout.
pub fn play<R: BufRead, W: Write>(
    ev: &NetEvaluator,
    args: &PlayArgs,
    console: &mut Console<R, W>,
) -> Result<()> {
    let dice = session_dice(args.seed.as_deref())?;
    let commitment = dice.commitment();
    let seed = dice.seed_hex();
    let rules = Rules {
        jacoby: args.jacoby,
        beavers: args.beavers,
        automatic_doubles: args.auto_doubles,
        backgammon_counts_two: args.bg_counts_two,
        israeli_opening: args.israeli,
        crawford: !args.no_crawford,
    };
    let default_names = |p: usize| match args.players.get(p) {
        Some(Seat::Engine) => "Sheshbesh".to_string(),
        _ if p == 0 => "O".to_string(),
        _ => "You".to_string(),
    };
    let mut names = [
        args.names
            .first()
            .cloned()
            .unwrap_or_else(|| default_names(0)),
        args.names
            .get(1)
            .cloned()
            .unwrap_or_else(|| default_names(1)),
    ];
    if names[0] == names[1] {
        names[0].push_str(" (O)");
    }
    let mut session = Session::new(rules, args.length, names, Box::new(dice));
    session.tag("DiceCommitment", &commitment);
    let save = args
        .save
        .clone()
        .unwrap_or_else(|| free_session_path("sheshbesh-session"));
    let mut g = Game {
        ev,
        args,
        session,
        save,
        lang: args.lang,
        games_started: 0,
        resign_refused: 0,
    };
    console.say(&format!(
        "Dice commitment (SHA-256 of the secret seed): {commitment}"
    ))?;
    console.say(&format!(
        "Saving to {} after every move. Type 'help' for commands.",
        g.save.display()
    ))?;
    let finished = run_session(&mut g, console)?;
    g.save()?;
    console.say(&format!(
        "{} Saved to {}.",
        if finished {
            "Session over."
        } else {
            "Session interrupted."
        },
        g.save.display()
    ))?;
    console.say(&format!("Dice seed: {seed}"))?;
    console.say(&format!(
        "Check every roll: sheshbesh verify {seed} {commitment} {}",
        g.save.display()
    ))?;
    Ok(())
}

const HELP: &str = "Commands: a move such as 8/5 6/5 (bar, off, 25 and 0 also work); \
'hint' (ranked plays or the cube decision); '=N' plays hint N; 'roll' or 'r'; \
'double' or 'd'; 'take', 'drop', 'beaver'; 'accept', 'reject'; \
'resign' (single), 'resign g', 'resign b'; 'board'; 'quit' (saves the session).";

/// Returns true when the match or the requested games are over, false when
/// the player quit or the input ended.
fn run_session<R: BufRead, W: Write>(g: &mut Game, c: &mut Console<R, W>) -> Result<bool> {
    loop {
        g.save()?;
        match g.session.phase() {
            Phase::MatchOver { winner } => {
                c.say(&format!("{} wins the match.", name_of(&g.session, winner)))?;
                return Ok(true);
            }
            Phase::BetweenGames => {
                if g.args.length == 0 && g.args.games > 0 && g.games_started >= g.args.games {
                    return Ok(true);
                }
                g.games_started += 1;
                let o = g.session.start_game()?;
                c.say(&format!("\n=== Game {} ===", g.games_started))?;
                let s = &g.session;
                for (a, b) in &o.throws {
                    c.say(&format!(
                        "{} throws {a}, {} throws {b}.",
                        s.names()[0],
                        s.names()[1]
                    ))?;
                }
                if o.cube.value() > 1 {
                    c.say(&format!(
                        "Automatic doubles: the cube is at {}.",
                        o.cube.value()
                    ))?;
                }
                c.say(&format!(
                    "{} starts with {}.",
                    name_of(s, o.starter),
                    g.lang.roll(o.dice)
                ))?;
            }
            Phase::Roll { player, may_double } => {
                if g.seat(player) == Seat::Engine {
                    let pos = *g.session.position();
                    let offer = if g.resign_refused == g.games_started {
                        None
                    } else {
                        g.agent().resignation(&pos)
                    };
                    if let Some(kind) = offer {
                        g.session.resign(player, kind)?;
                        c.say(&format!(
                            "{} offers to resign a {}.",
                            name_of(&g.session, player),
                            g.lang.win(kind)
                        ))?;
                        continue;
                    }
                    if may_double && g.agent().should_double(&pos, g.session.state())? {
                        g.session.double()?;
                        c.say(&format!(
                            "{} {} (cube to {}).",
                            name_of(&g.session, player),
                            g.lang.double(),
                            g.session.state().cube.value() * 2
                        ))?;
                    } else {
                        g.session.roll()?;
                    }
                    continue;
                }
                if !may_double {
                    g.session.roll()?;
                    continue;
                }
                g.show(
                    c,
                    player,
                    &format!("{} to roll", name_of(&g.session, player)),
                )?;
                let Some(cmd) =
                    c.ask(&format!("{}: roll or double", name_of(&g.session, player)))?
                else {
                    return Ok(false);
                };
                match cmd.as_str() {
                    "r" | "roll" | "" => {
                        g.session.roll()?;
                    }
                    "d" | "double" => {
                        g.session.double()?;
                        c.say(&format!(
                            "{} {} (cube to {}).",
                            name_of(&g.session, player),
                            g.lang.double(),
                            g.session.state().cube.value() * 2
                        ))?;
                    }
                    "hint" => cube_hint(g, c)?,
                    other => {
                        if !common(g, c, player, other)? {
                            return Ok(false);
                        }
                    }
                }
            }
            Phase::Move { player, dice } => {
                let legal = g.session.legal_plays();
                let name = name_of(&g.session, player).to_string();
                if legal.len() == 1 && legal[0].mv.is_empty() {
                    c.say(&format!(
                        "{name} rolled {} and cannot move.",
                        g.lang.roll(dice)
                    ))?;
                    let pass = legal[0];
                    finish_play(g, c, &pass)?;
                    continue;
                }
                if g.seat(player) == Seat::Engine {
                    let pos = *g.session.position();
                    let chosen = if g.args.level == Level::Beginner {
                        legal[sheshbesh_engine::pubeval::choose(&pos, &legal)]
                    } else {
                        let mut list = sheshbesh_engine::MoveList::new();
                        g.agent().best_play(&pos, dice, &mut list).1
                    };
                    let hit = if chosen.mv.hits() {
                        format!(" — {}!", g.lang.hit())
                    } else {
                        String::new()
                    };
                    c.say(&format!(
                        "{name} rolled {} and plays {}{hit}",
                        g.lang.roll(dice),
                        chosen.mv
                    ))?;
                    finish_play(g, c, &chosen)?;
                    continue;
                }
                g.show(c, player, &format!("{name} rolled {}", g.lang.roll(dice)))?;
                let v = g.viewer(player);
                let hint_ply = g.args.level.ply().min(1);
                let pos = *g.session.position();
                let draw = |after: &Position, status: &str| {
                    let seen = if v == player { *after } else { after.swapped() };
                    g.board(&seen, v, status)
                };
                match ask_move(c, g.ev, hint_ply, &draw, &pos, dice, &name)? {
                    Asked::Played(chosen) => finish_play(g, c, &chosen)?,
                    Asked::Command(cmd) => {
                        if !common(g, c, player, &cmd)? {
                            return Ok(false);
                        }
                    }
                    Asked::Eof => return Ok(false),
                }
            }
            Phase::AnswerDouble { player, may_beaver } => {
                let name = name_of(&g.session, player).to_string();
                if g.seat(player) == Seat::Engine {
                    let pos = g.session.decision_position();
                    let reply = g.agent().answer_double(&pos, &g.session.decision_state())?;
                    let reply = if reply == CubeReply::Beaver && !may_beaver {
                        CubeReply::Take
                    } else {
                        reply
                    };
                    answer(g, c, player, reply)?;
                    continue;
                }
                g.show(c, player, &format!("{name} is doubled"))?;
                let opts = if may_beaver {
                    "take, drop or beaver"
                } else {
                    "take or drop"
                };
                let Some(cmd) = c.ask(&format!("{name}: {opts}"))? else {
                    return Ok(false);
                };
                match cmd.as_str() {
                    "t" | "take" => answer(g, c, player, CubeReply::Take)?,
                    "p" | "pass" | "drop" => answer(g, c, player, CubeReply::Drop)?,
                    "b" | "beaver" if may_beaver => answer(g, c, player, CubeReply::Beaver)?,
                    "hint" => {
                        let pos = g.session.decision_position();
                        let r = g.agent().answer_double(&pos, &g.session.decision_state())?;
                        c.say(&format!("Hint: {r:?}").to_lowercase())?;
                    }
                    other => {
                        if !common(g, c, player, other)? {
                            return Ok(false);
                        }
                    }
                }
            }
            Phase::AnswerResignation { player, kind } => {
                let name = name_of(&g.session, player).to_string();
                let accept = if g.seat(player) == Seat::Engine {
                    let pos = g.session.decision_position();
                    let st = g.session.decision_state();
                    g.agent()
                        .accepts_resignation(&pos, &st, player.other(), kind)?
                } else {
                    let Some(cmd) = c.ask(&format!(
                        "{name}: accept or reject the resignation of a {}",
                        g.lang.win(kind)
                    ))?
                    else {
                        return Ok(false);
                    };
                    match cmd.as_str() {
                        "a" | "accept" | "y" | "yes" => true,
                        "r" | "reject" | "n" | "no" => false,
                        other => {
                            if !common(g, c, player, other)? {
                                return Ok(false);
                            }
                            continue;
                        }
                    }
                };
                if accept {
                    c.say(&format!("{name} accepts."))?;
                    let r = g.session.accept()?;
                    g.announce_result(c, &r)?;
                } else {
                    c.say(&format!("{name} rejects; play goes on."))?;
                    if g.seat(player.other()) == Seat::Engine {
                        g.resign_refused = g.games_started;
                    }
                    g.session.reject()?;
                }
            }
        }
    }
}

/// What a player typed at the move prompt.
pub enum Asked {
    /// A play, confirmed.
    Played(Candidate),
    /// Another command, for the caller.
    Command(String),
    /// The input ended.
    Eof,
}

/// Asks for a play of `dice` from `pos` (the mover's side) until one is
/// entered and confirmed: a move in any notation, `hint` for the ranked
/// plays, `=N` for hint N; after a play the board is drawn with it made
/// (`draw` gets the mover's board after the play) and Enter confirms while
/// `undo` takes it back. Any other word goes back to the caller.
pub fn ask_move<R: BufRead, W: Write>(
    c: &mut Console<R, W>,
    ev: &NetEvaluator,
    hint_ply: u32,
    draw: &dyn Fn(&Position, &str) -> String,
    pos: &Position,
    dice: sheshbesh_engine::Dice,
    name: &str,
) -> Result<Asked> {
    let mut hints: Vec<Candidate> = Vec::new();
    loop {
        let Some(cmd) = c.ask(&format!("{name}: your move with {dice}"))? else {
            return Ok(Asked::Eof);
        };
        let chosen = if cmd == "hint" {
            hints = move_hint(ev, hint_ply, pos, dice, c)?;
            continue;
        } else if let Some(n) = cmd.strip_prefix('=') {
            if hints.is_empty() {
                hints = move_hint(ev, hint_ply, pos, dice, c)?;
            }
            match n.trim().parse::<usize>() {
                Ok(i) if (1..=hints.len()).contains(&i) => hints[i - 1],
                _ => {
                    c.say(&format!("No hint {n}: give 1 to {}.", hints.len()))?;
                    continue;
                }
            }
        } else if looks_like_move(&cmd) {
            match parse_move(pos, dice, &cmd) {
                Ok(m) => m,
                Err(e) => {
                    c.say(&format!("Not played: {e}"))?;
                    continue;
                }
            }
        } else {
            return Ok(Asked::Command(cmd));
        };
        c.say(&draw(
            &chosen.position,
            &format!("{name} plays {}", chosen.mv),
        ))?;
        let Some(ok) = c.ask("Enter to confirm, 'undo' to take it back")? else {
            return Ok(Asked::Eof);
        };
        if matches!(ok.as_str(), "" | "y" | "yes" | "ok") {
            return Ok(Asked::Played(chosen));
        }
        c.say("Taken back.")?;
    }
}

fn looks_like_move(cmd: &str) -> bool {
    cmd.contains('/') || cmd.split_whitespace().all(|w| w.parse::<u8>().is_ok()) && !cmd.is_empty()
}

fn finish_play<R: BufRead, W: Write>(
    g: &mut Game,
    c: &mut Console<R, W>,
    chosen: &Candidate,
) -> Result<()> {
    if let Some(r) = g.session.play(chosen)? {
        g.announce_result(c, &r)?;
    }
    Ok(())
}

fn answer<R: BufRead, W: Write>(
    g: &mut Game,
    c: &mut Console<R, W>,
    player: Player,
    reply: CubeReply,
) -> Result<()> {
    let name = name_of(&g.session, player).to_string();
    match reply {
        CubeReply::Take => {
            g.session.take()?;
            c.say(&format!("{name} {}.", g.lang.take()))?;
        }
        CubeReply::Beaver => {
            g.session.beaver()?;
            c.say(&format!("{name} beavers."))?;
        }
        CubeReply::Drop => {
            c.say(&format!("{name} {}.", g.lang.drop()))?;
            let r = g.session.drop_double()?;
            g.announce_result(c, &r)?;
        }
    }
    Ok(())
}

/// Commands open at every prompt. Returns false to stop the session.
fn common<R: BufRead, W: Write>(
    g: &mut Game,
    c: &mut Console<R, W>,
    player: Player,
    cmd: &str,
) -> Result<bool> {
    let mut words = cmd.split_whitespace();
    match words.next().unwrap_or("") {
        "quit" | "q" | "exit" => return Ok(false),
        "help" | "?" => c.say(HELP)?,
        "board" => g.show(c, player, "")?,
        "resign" => {
            let kind = match words.next() {
                None | Some("s") | Some("single") | Some("n") => WinKind::Single,
                Some("g") | Some("gammon") => WinKind::Gammon,
                Some("b") | Some("backgammon") => WinKind::Backgammon,
                Some(w) => {
                    c.say(&format!(
                        "resign what? \"{w}\": single, g(ammon) or b(ackgammon)"
                    ))?;
                    return Ok(true);
                }
            };
            match g.session.resign(player, kind) {
                Ok(()) => c.say(&format!(
                    "{} offers to resign a {}.",
                    name_of(&g.session, player),
                    g.lang.win(kind)
                ))?,
                Err(e) => c.say(&e.to_string())?,
            }
        }
        other => c.say(&format!("Unknown command \"{other}\". {HELP}"))?,
    }
    Ok(true)
}

fn move_hint<R: BufRead, W: Write>(
    ev: &NetEvaluator,
    ply: u32,
    pos: &Position,
    dice: sheshbesh_engine::Dice,
    c: &mut Console<R, W>,
) -> Result<Vec<Candidate>> {
    let ranked = rank_moves(ev, pos, dice, ply, MoveFilter::ROOT);
    let shown: Vec<_> = ranked.iter().take(5).collect();
    for (i, r) in shown.iter().enumerate() {
        c.say(&format!(
            "  ={} {:<24} equity {:+.3} (win {:.1}%)",
            i + 1,
            r.candidate.mv.to_string(),
            r.probs.equity(),
            100.0 * r.probs.win()
        ))?;
    }
    Ok(shown.iter().map(|r| r.candidate).collect())
}

fn cube_hint<R: BufRead, W: Write>(g: &Game, c: &mut Console<R, W>) -> Result<()> {
    let (p, d) = cube_decision(
        g.ev,
        g.session.position(),
        g.session.state(),
        g.args.level.ply().min(1),
    )?;
    let redouble = g.session.state().cube.owner.is_some();
    c.say(&format!(
        "  {}: no double {:+.3}, double/take {:+.3}, double/pass {:+.3} (win {:.1}%)",
        d.action.words(redouble),
        d.no_double,
        d.double_take,
        d.double_pass,
        100.0 * p.win()
    ))
}
