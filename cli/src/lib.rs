//! `sheshbesh`: the command line of the Sheshbesh backgammon engine, as a
//! library so that other front ends (the Python package) give the very
//! answers the commands print.
//!
//! A thin layer over `sheshbesh-engine` and `sheshbesh-trainer`: it reads
//! the words of `docs/CLI.md`, calls the library and renders text, JSON,
//! HTML or SVG; it holds no game rule. Bad input is one line on stderr and
//! exit status 2.
//!
//! One module per command (`board_cmd` for show/moves/bench,
//! `position_cmd` for hint/eval/cube, `rollout_cmd`, `met_cmd`,
//! `annotate_cmd`, `train_cmd`, `play_cmd`, `chouette_cmd`, `verify_cmd`,
//! `ubgi`, `external`), and what they share: `input` (POSITION and DICE),
//! `nets` (the shipped weights, `--weights`), `output` (`--json`,
//! `--batch` and its runner, rounding), `board` and `svg` (drawings),
//! `console` (the terminal and the options of `play` and the chouette),
//! `protocol` (the words of UBGI and gnubg's protocol), `lang` (Hebrew
//! terms). The modes are one enum, dispatched in one `match` in [`run`];
//! [`api`] gives the JSON of
//! the commands that answer with JSON, for callers other than a terminal.

mod annotate_cmd;
pub mod api;
mod args;
mod board;
mod board_cmd;
mod chouette_cmd;
mod console;
mod external;
mod input;
mod lang;
mod met_cmd;
mod nets;
mod output;
mod play_cmd;
mod position_cmd;
mod protocol;
mod rollout_cmd;
mod serve_cmd;
mod svg;
mod train_cmd;
mod ubgi;
mod verify_cmd;

use std::io::Write;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::output::Output;

/// Sheshbesh: a backgammon (shesh-besh) analysis engine.
#[derive(Parser, Debug)]
#[command(name = "sheshbesh", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Draw a position, with its IDs and pip counts.
    Show {
        /// Position ID, PositionID:MatchID, XGID or "start".
        #[arg(allow_hyphen_values = true)]
        position: Option<String>,
        /// Draw the home board at bottom left instead of bottom right.
        #[arg(long)]
        home_left: bool,
        /// Where the home board is drawn, as `play --home` takes it.
        #[arg(long, value_enum, conflicts_with = "home_left")]
        home: Option<console::Home>,
        #[command(flatten)]
        out: Output,
    },
    /// List every legal move of a roll, one per distinct resulting position.
    Moves {
        /// Position ID, PositionID:MatchID, XGID or "start".
        #[arg(allow_hyphen_values = true)]
        position: Option<String>,
        /// Two dice: 31, 3-1 or 3,1 (default: the dice the position carries).
        dice: Option<String>,
        #[command(flatten)]
        out: Output,
    },
    /// Deterministic move-generation signature: distinct positions reached
    /// from the opening after each ply, and the time taken.
    ///
    /// At depths 1 to 3 the counts are 175, 71,485 and 14,514,318.
    Bench {
        /// Plies to search.
        #[arg(long, default_value_t = 3)]
        depth: usize,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Rank the legal plays of a roll, best first, by cubeful equity (EMG
    /// and MWC at a match score); without a roll, the cube decision.
    ///
    /// With no dice given and none in the position, the player on roll is
    /// before its roll, and the hint is the cube's: the answer of `cube`.
    Hint {
        /// Position ID, PositionID:MatchID, XGID or "start".
        #[arg(allow_hyphen_values = true)]
        position: Option<String>,
        /// Two dice (default: the dice the position carries; none: the
        /// cube decision).
        dice: Option<String>,
        /// Search depth: 0 is the net alone; each ply averages over the
        /// next roll.
        #[arg(long, default_value_t = 0, value_parser = crate::position_cmd::ply_arg)]
        ply: u32,
        #[command(flatten)]
        checker: position_cmd::CheckerArgs,
        #[command(flatten)]
        weights: crate::nets::WeightsArg,
        #[command(flatten)]
        out: Output,
    },
    /// Evaluate a position for the player on roll: outcome probabilities,
    /// cubeless and cubeful equities, cube action.
    Eval {
        /// Position ID, PositionID:MatchID, XGID or "start".
        #[arg(allow_hyphen_values = true)]
        position: Option<String>,
        /// Search depth.
        #[arg(long, default_value_t = 0, value_parser = crate::position_cmd::ply_arg)]
        ply: u32,
        #[command(flatten)]
        weights: crate::nets::WeightsArg,
        #[command(flatten)]
        out: Output,
    },
    /// Cube decision for the player on roll: money (Janowski) or match play
    /// (MWC from Kazaross-XG2), in gnubg's words.
    Cube {
        /// Position ID, PositionID:MatchID, XGID or "start".
        #[arg(allow_hyphen_values = true)]
        position: Option<String>,
        /// Search depth of the probabilities (with --rollout: of the
        /// checker play inside the trials, 0 to 2).
        #[arg(long, default_value_t = 0, value_parser = crate::position_cmd::ply_arg)]
        ply: u32,
        /// Roll the decision out: no double against double/take on the
        /// same dice, a live cube in every trial, money or match play.
        #[arg(long)]
        rollout: bool,
        #[command(flatten)]
        rollout_options: rollout_cmd::RolloutOptions,
        #[command(flatten)]
        weights: crate::nets::WeightsArg,
        #[command(flatten)]
        out: Output,
    },
    /// Match equity tables: print one, the facts at a score, or generate
    /// one from our own engine.
    Met(met_cmd::MetArgs),
    /// Roll out a position (or, given DICE or a position that carries
    /// dice, the roll's best plays against each other) with variance
    /// reduction, quasi-random dice and optional truncation; Ctrl-C prints
    /// the partial result.
    Rollout(rollout_cmd::RolloutArgs),
    /// Annotate match files (.mat in every dialect and the .txt exports in
    /// that format, gnubg SGF) for mistakes: every checker play and cube
    /// decision judged at --ply, marks, luck, error rates and PR per
    /// player; text, --json or an --html report. Several files or
    /// directories are analysed in parallel: each file's line (its result
    /// or error) as it finishes, then a count (exit status 1 when any file
    /// failed).
    Annotate(annotate_cmd::AnnotateArgs),
    /// Make weights: self-play, expert iteration, calibration, or folding
    /// weights files.
    ///
    /// `train selfplay` trains by TD(lambda) with checkpoints and strength
    /// checks against pubeval; `train expert` teaches a checkpoint what its
    /// own deeper search knows; `train calibrate` fits a net (its outputs,
    /// or all of it) to its own rollouts; `train weights average|ensemble|splice`
    /// makes one file from others. Run a command again to resume after an
    /// interruption; pass the result to any command with `--weights`.
    /// `weights/README.md` is the shipped net's card; the file's provenance
    /// holds every command that made it.
    Train(Box<train_cmd::TrainArgs>),
    /// Speak the Universal Backgammon Interface (UBGI) on stdin/stdout: send
    /// `ubgi`, then FIBS board strings or XGIDs; each is answered with the
    /// best action (a move as from/to pairs, double/roll, take/drop).
    Ubgi(ubgi::UbgiArgs),
    /// Play as gnubg's external player: listen on a TCP port for FIBS board
    /// strings and answer moves, cube actions and resignation replies. In
    /// gnubg: `set player 0 external 127.0.0.1:PORT`.
    ///
    /// At most 16 clients at once: one more is answered `Error: 16 clients
    /// are connected; try again later` and closed.
    External(external::ExternalArgs),
    /// Play in the terminal: against the engine or two people at one
    /// keyboard, money or a match, with every rule option, hints, undo, and
    /// verifiable dice; the session is saved as a .mat file.
    ///
    /// Before play the SHA-256 commitment of the secret dice seed is
    /// printed; after it, the seed, so that `sheshbesh verify` can check
    /// every roll. With `--chouette N`, N players (3 or more) play a
    /// chouette: the box against a team with a captain, the team doubling
    /// only by consent, each member taking or dropping the box's doubles for
    /// itself, settlements after each game.
    Play(console::PlayArgs),
    /// A local analysis board in the browser: paste or open a position,
    /// see the ranked plays, the cube decision and a rollout with live
    /// progress; review a match file decision by decision; play against
    /// the engine under every rule option of `play`. The page is
    /// built into the binary; the server listens on this machine only
    /// unless --listen says otherwise, and answers the JSON API under
    /// /api/ with the commands' --json answers (docs/SERVE.md).
    Serve(serve_cmd::ServeArgs),
    /// Check verifiable dice: that SEED hashes to COMMITMENT and, given a
    /// .mat file saved by `play`, that every roll in it follows from the
    /// seed (exit status 1 when anything differs).
    Verify(verify_cmd::VerifyArgs),
}

/// A command line that cannot be read: help and version as clap prints
/// them; any error as one line naming what is wrong, exit status 2.
fn usage_error(e: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        let _ = e.print();
        return if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
            ExitCode::from(2)
        } else {
            ExitCode::SUCCESS
        };
    }
    // A value a parser refused: in the words the commands use for bad
    // input (and the Python package raises), `bad --ply "9": give 0 to 4`.
    if e.kind() == ErrorKind::ValueValidation {
        use clap::error::{ContextKind, ContextValue};
        let (arg, value) = (
            e.get(ContextKind::InvalidArg),
            e.get(ContextKind::InvalidValue),
        );
        if let (Some(ContextValue::String(arg)), Some(ContextValue::String(value)), Some(why)) =
            (arg, value, std::error::Error::source(&e))
        {
            let flag = arg.split(' ').next().unwrap_or(arg);
            eprintln!("sheshbesh: bad {flag} \"{value}\": {why}");
            return ExitCode::from(2);
        }
    }
    // clap's first paragraph (the error and what it names), on one line.
    let text = e.render().to_string();
    let first: Vec<&str> = text
        .lines()
        .map(str::trim)
        .skip_while(|l| l.is_empty())
        .take_while(|l| !l.is_empty() && !l.starts_with("Usage:"))
        .collect();
    let line = first.join(" ");
    let line = line.trim_start_matches("error: ");
    eprintln!("sheshbesh: {line} (see --help)");
    ExitCode::from(2)
}

/// The whole command line as clap defines it: every command, flag and
/// its help (docs/CLI.md's reference is generated from it).
pub fn command() -> clap::Command {
    <Cli as clap::CommandFactory>::command()
}

/// Runs the command line of this process and gives its exit status.
pub fn run() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return usage_error(e),
    };
    let result = match cli.command {
        Command::Show {
            position,
            home_left,
            home,
            out,
        } => board_cmd::show(
            position.as_deref(),
            home_left || home == Some(console::Home::Left),
            out,
        ),
        Command::Moves {
            position,
            dice,
            out,
        } => board_cmd::moves(position.as_deref(), dice.as_deref(), out),
        Command::Bench { depth, json } => board_cmd::bench(depth, json),
        Command::Train(args) => train_cmd::run(*args),
        Command::Ubgi(args) => ubgi::run(args),
        Command::External(args) => external::run(args),
        Command::Serve(args) => serve_cmd::run(args),
        Command::Play(args) => match args.chouette {
            Some(n) => chouette_cmd::run(&args, n),
            None => play_cmd::run(args),
        },
        Command::Verify(args) => match verify_cmd::run(args) {
            Ok(true) => Ok(()),
            Ok(false) => return ExitCode::from(1),
            Err(e) => Err(e),
        },
        Command::Cube {
            position,
            ply,
            rollout: false,
            weights,
            out,
            ..
        } => weights
            .load()
            .and_then(|ev| position_cmd::cube_cmd(&ev, position.as_deref(), ply, out)),
        Command::Cube {
            position,
            ply,
            rollout: true,
            rollout_options,
            weights,
            out,
        } => match weights
            .load()
            .and_then(|ev| rollout_cmd::cube(&ev, position.as_deref(), ply, &rollout_options, out))
        {
            Ok(false) => Ok(()),
            Ok(true) => return ExitCode::from(130),
            Err(e) => Err(e),
        },
        Command::Met(args) => match met_cmd::run(args) {
            Ok(true) => Ok(()),
            Ok(false) => return ExitCode::from(130),
            Err(e) => Err(e),
        },
        Command::Annotate(args) => {
            match args
                .weights
                .load()
                .and_then(|ev| annotate_cmd::run(&ev, args))
            {
                Ok(true) => Ok(()),
                Ok(false) => return ExitCode::from(1),
                Err(e) => Err(e),
            }
        }
        Command::Rollout(args) => {
            match args
                .weights
                .load()
                .and_then(|ev| rollout_cmd::run(&ev, args))
            {
                Ok(false) => Ok(()),
                Ok(true) => return ExitCode::from(130),
                Err(e) => Err(e),
            }
        }
        Command::Hint {
            position,
            dice,
            ply,
            checker,
            weights,
            out,
        } => weights.load().and_then(|ev| {
            let (position, dice) = (position.as_deref(), dice.as_deref());
            position_cmd::hint(&ev, position, dice, ply, checker.equity(), out)
        }),
        Command::Eval {
            position,
            ply,
            weights,
            out,
        } => weights
            .load()
            .and_then(|ev| position_cmd::eval(&ev, position.as_deref(), ply, out)),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            let _ = std::io::stdout().flush();
            eprintln!("sheshbesh: {e:#}");
            ExitCode::from(2)
        }
    }
}
