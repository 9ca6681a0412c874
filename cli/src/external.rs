//! `sheshbesh external`: answers gnubg's external-player protocol on a TCP
//! socket, so gnubg can play against Sheshbesh in its own program
//! (`set player 0 external 127.0.0.1:PORT`).
//!
//! gnubg connects as the client and sends one line per decision: a FIBS
//! board string (`docs/FORMATS.md`; gnubg 1.07 writes the two scores of a
//! play or a double the other way round, see `gnubg_scores`), optionally
//! followed by session options (`jacobyrule on|off`, `crawfordrule on|off`,
//! `beavers on|off`, `resignation N`). Each line gets one line back: a
//! move in FIBS numbers from the mover's side with a trailing space
//! (`8/5 6/5 `, bar 25, off 0),
//! `double` or `roll` when no dice are on the board, `take`, `drop` or
//! `beaver` when a double is pending, `accept` or `reject` for a
//! resignation. `evaluation fibsboard BOARD [plies N] [cubeful|cubeless]`
//! answers the five probabilities and the equity (MWC in match play) like
//! gnubg's own server; `version` answers four lines; `exit`/`quit` close the
//! connection. A line that cannot be read answers `Error (...)`, the prefix
//! gnubg recognises. gnubg writes a NUL after each newline; NULs are
//! ignored. Each client is served on its own thread (gnubg connects once
//! per external player), `--once` serves one and exits.

use std::io::{BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use anyhow::{anyhow, bail, Context, Result};
use sheshbesh_engine::cube::decision::{cubeful_equity, emg, mwc_of_emg};
use sheshbesh_engine::evaluation::evaluator::NetEvaluator;
use sheshbesh_engine::formats::xgid;
use sheshbesh_engine::play::agent::Agent;
use sheshbesh_engine::Player;

use crate::protocol::{answer, read_board, Board};

/// Options of `sheshbesh external`.
#[derive(clap::Args, Debug)]
pub struct ExternalArgs {
    /// Address to listen on, HOST:PORT (port 0 picks a free one; the address
    /// is printed on stdout once listening).
    #[arg(long, default_value = "127.0.0.1:4242")]
    pub listen: String,
    /// Search depth of every decision.
    #[arg(long, default_value_t = 1, value_parser = crate::position_cmd::ply_arg)]
    pub ply: u32,
    /// Stop after the first client disconnects.
    #[arg(long)]
    pub once: bool,
    /// Append every line received (`> `) and answered (`< `) to this file,
    /// and each board as the engine read it, as an XGID (`= `).
    #[arg(long)]
    pub log: Option<PathBuf>,
    #[command(flatten)]
    pub weights: crate::nets::WeightsArg,
}

/// The most clients served at once: gnubg needs two (one per external
/// player); without a bound, each connection is a thread.
const MAX_CLIENTS: usize = 16;

/// Listens and serves clients until interrupted (or after one, `--once`).
pub fn run(args: ExternalArgs) -> Result<()> {
    let ev = args.weights.load()?;
    let listener = TcpListener::bind(&args.listen)
        .with_context(|| format!("bad --listen \"{}\": cannot bind", args.listen))?;
    println!("listening on {}", listener.local_addr()?);
    std::io::stdout().flush()?;
    let log = match &args.log {
        Some(p) => Some(Mutex::new(
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(p)
                .with_context(|| format!("cannot open log {}", p.display()))?,
        )),
        None => None,
    };
    // Each client on its own thread: gnubg opens one connection per
    // external player, and both of its players may be this engine. At
    // most MAX_CLIENTS at once: one more is told so and closed.
    let clients = AtomicUsize::new(0);
    std::thread::scope(|scope| -> Result<()> {
        for stream in listener.incoming() {
            let mut stream = stream?;
            if clients.load(Ordering::SeqCst) >= MAX_CLIENTS {
                let _ = writeln!(
                    stream,
                    "Error: {MAX_CLIENTS} clients are connected; try again later"
                );
                continue;
            }
            clients.fetch_add(1, Ordering::SeqCst);
            let (ev, log, clients) = (&ev, log.as_ref(), &clients);
            let handle = scope.spawn(move || {
                if let Err(e) = serve(ev, args.ply, stream, log) {
                    eprintln!("sheshbesh external: connection ended: {e:#}");
                }
                clients.fetch_sub(1, Ordering::SeqCst);
            });
            if args.once {
                let _ = handle.join();
                break;
            }
        }
        Ok(())
    })
}

fn serve(
    ev: &NetEvaluator,
    ply: u32,
    stream: TcpStream,
    log: Option<&Mutex<std::fs::File>>,
) -> Result<()> {
    // Answers go out at once: each is a whole line, and the client waits
    // for it before it sends the next.
    stream.set_nodelay(true)?;
    let mut writer = stream.try_clone()?;
    let mut reader = BufReader::new(stream);
    // Lines are capped (a client cannot grow the server without bound);
    // an unreadable line is answered with an error like any bad command.
    while let Some(read) = crate::input::read_line(&mut reader)? {
        let line = match read.text() {
            Ok(l) => l.chars().filter(|&c| c != '\0').collect::<String>(),
            Err(e) => {
                writer.write_all(format!("Error ({e})\n").as_bytes())?;
                writer.flush()?;
                continue;
            }
        };
        let line = line.trim();
        if line.is_empty() {
            writer.write_all(b"Error (an empty line)\n")?;
            writer.flush()?;
            continue;
        }
        let lower = line.to_ascii_lowercase();
        if lower == "exit" || lower == "quit" {
            return Ok(());
        }
        let Answer { reply, read } = match respond(ev, ply, line) {
            Ok(a) => a,
            Err(e) => Answer::plain(format!("Error ({e:#})")),
        };
        if let Some(f) = log {
            let mut f = f.lock().map_err(|_| anyhow!("log lock poisoned"))?;
            match read {
                // What the engine understood the board to be, as an XGID.
                Some(b) => {
                    let xgid = xgid::encode(&b.position, &b.state, MAX_CUBE_LOG2);
                    writeln!(f, "> {line}\n= {xgid}\n< {reply}")?
                }
                None => writeln!(f, "> {line}\n< {reply}")?,
            }
        }
        // One write per answer: a second small write would wait for the
        // client's delayed acknowledgement of the first (about 40 ms a
        // decision under Nagle's algorithm).
        writer.write_all(format!("{reply}\n").as_bytes())?;
        writer.flush()?;
    }
    Ok(())
}

/// The answer to one line.
struct Answer {
    /// The line sent back.
    reply: String,
    /// For a board to act on, the board as the engine read it (for the
    /// log, which writes it as an XGID).
    read: Option<Board>,
}

impl Answer {
    fn plain(reply: String) -> Answer {
        Answer { reply, read: None }
    }
}

/// Answers one line: a command, an evaluation or a board to act on.
fn respond(ev: &NetEvaluator, ply: u32, line: &str) -> Result<Answer> {
    let lower = line.to_ascii_lowercase();
    if lower == "version" {
        let v = env!("CARGO_PKG_VERSION");
        let text = format!("Interface: 2\nRFBF: 0\nEngine: Sheshbesh {v}\nSoftware: Sheshbesh {v}");
        return Ok(Answer::plain(text));
    }
    if lower.starts_with("set ") || lower == "help" {
        return Ok(Answer::plain("OK".into()));
    }
    if let Some(rest) = lower.strip_prefix("evaluation") {
        let rest = rest.trim_start();
        let rest = rest
            .strip_prefix("fibsboard")
            .ok_or_else(|| anyhow!("expected \"evaluation fibsboard board:...\""))?;
        // Keep the original case of the board (player names).
        let offset = line.len() - rest.len();
        return Ok(Answer::plain(evaluation(ev, ply, &line[offset..])?));
    }
    if !line.starts_with("board:") {
        bail!("unknown command \"{line}\"");
    }
    let (mut board, _) = board_with_options(line)?;
    gnubg_scores(&mut board);
    let reply = answer(&Agent::new(ev, ply), &board)?;
    // gnubg's own replies to a move end with a space.
    let reply =
        if board.state.dice.is_some() && !board.state.doubled && board.state.resignation == 0 {
            format!("{reply} ")
        } else {
            reply
        };
    Ok(Answer {
        reply,
        read: Some(board),
    })
}

/// The cube limit of the log's XGIDs (1024, as XGIDs usually carry).
const MAX_CUBE_LOG2: u32 = 10;

/// Puts the scores of a board from gnubg's external player right.
///
/// gnubg 1.07 (`play.c`) writes the checkers, the turn and the cube flags
/// of every board with its player 1 as "You", but the names and scores of
/// players `turn ^ move` and `!turn ^ move`: for a play or a double (the
/// player to act is the player on move) player 0's name and score come
/// first, so "You"'s score is the opponent's. Read as written, every
/// match would be played at the mirrored score (a side 7-away taking
/// itself for 3-away). A take or pass (the player to act is not on move)
/// comes the right way round.
fn gnubg_scores(board: &mut Board) {
    if !board.state.doubled {
        board.state.score.swap(0, 1);
    }
}

/// A board string and the words after it: session options, and for
/// `evaluation` its `plies N` and `cubeful`.
fn board_with_options(text: &str) -> Result<(Board, Options)> {
    let mut words = text.split_whitespace();
    let first = words.next().ok_or_else(|| anyhow!("empty line"))?;
    let mut board = read_board(first)?;
    let mut opts = Options::default();
    let on_off = |w: Option<&str>, name: &str| -> Result<bool> {
        match w.map(str::to_ascii_lowercase).as_deref() {
            Some("on") => Ok(true),
            Some("off") => Ok(false),
            other => bail!("{name}: expected on or off, got {other:?}"),
        }
    };
    while let Some(w) = words.next() {
        match w.to_ascii_lowercase().as_str() {
            "jacobyrule" => board.state.jacoby = on_off(words.next(), w)? && board.state.is_money(),
            "beavers" => board.state.beavers = on_off(words.next(), w)? && board.state.is_money(),
            "crawfordrule" => {
                if !on_off(words.next(), w)? {
                    board.state.crawford = false;
                }
            }
            "resignation" => {
                let n: u8 = words
                    .next()
                    .and_then(|n| n.parse().ok())
                    .filter(|n| (1..=3).contains(n))
                    .ok_or_else(|| anyhow!("resignation: expected 1, 2 or 3"))?;
                // Offered by the opponent; "You" (player 1) answers.
                board.state.resignation = n;
                board.state.turn = Player::One;
            }
            "plies" => {
                opts.plies = Some(
                    words
                        .next()
                        .and_then(|n| n.parse().ok())
                        .filter(|&n| n <= 4)
                        .ok_or_else(|| anyhow!("plies: expected 0 to 4"))?,
                );
            }
            "cubeful" => opts.cubeful = true,
            "cubeless" => opts.cubeful = false,
            "noise" => {
                words.next();
            }
            "prune" | "deterministic" => {}
            other => bail!("unknown option \"{other}\""),
        }
    }
    Ok((board, opts))
}

#[derive(Default)]
struct Options {
    plies: Option<u32>,
    cubeful: bool,
}

/// `evaluation fibsboard`: probabilities for the player on roll and the
/// equity, as MWC in match play.
fn evaluation(ev: &NetEvaluator, ply: u32, text: &str) -> Result<String> {
    let (board, opts) = board_with_options(text)?;
    let ply = opts.plies.unwrap_or(ply);
    let agent = Agent::new(ev, ply);
    let p = agent.probs(&board.position, &board.state)?;
    let s = &board.state;
    let me = s.on_roll;
    let equity = if opts.cubeful {
        cubeful_equity(ev, &board.position, s, ply)?
    } else {
        emg(&p, s, me)?
    };
    let e = mwc_of_emg(equity, s, me)?;
    let [a, b, c, d, f] = p.0;
    Ok(format!("{a:.6} {b:.6} {c:.6} {d:.6} {f:.6} {e:.6}"))
}
