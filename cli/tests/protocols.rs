//! Engine protocols driven end to end: full games through `sheshbesh ubgi`
//! with this test as the UI, and full matches of the real gnubg against
//! `sheshbesh external` on loopback.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use sheshbesh_engine::analysis::duel::DiceStream;
use sheshbesh_engine::formats::notation::parse_move;
use sheshbesh_engine::rules::match_state::{MatchState, Player};
use sheshbesh_engine::{formats::fibs, formats::matfile, formats::xgid, Position};

struct Engine {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Engine {
    fn start(args: &[&str]) -> Engine {
        let mut child = Command::new(env!("CARGO_BIN_EXE_sheshbesh"))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Engine {
            child,
            stdin,
            stdout,
        }
    }

    fn send(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").unwrap();
        self.stdin.flush().unwrap();
    }

    fn line(&mut self) -> String {
        let mut s = String::new();
        self.stdout.read_line(&mut s).unwrap();
        s.trim_end_matches(['\n', '\r']).to_string()
    }

    fn ask(&mut self, line: &str) -> String {
        self.send(line);
        self.line()
    }
}

/// Writes the position alternately as an XGID and a FIBS board, so both
/// input formats are played through.
fn board_text(pos: &Position, state: &MatchState, turn: usize) -> String {
    if turn.is_multiple_of(2) {
        xgid::encode(pos, state, 10)
    } else {
        fibs::encode("You", "Opp", pos, state)
    }
}

/// One money game, both sides played by the engine over UBGI. Returns the
/// points won by player 1 (negative for player 0) and the turns played.
fn ubgi_game(engine: &mut Engine, seed: u64) -> (i64, usize) {
    let mut dice = DiceStream::new(seed, 0);
    let mut pos = Position::start();
    let opening = dice.opening();
    let mut state = MatchState {
        jacoby: false,
        ..MatchState::default()
    };
    state.on_roll = if opening.first() > opening.second() {
        Player::One
    } else {
        Player::Zero
    };
    let mut roll = Some(opening);
    for turn in 0..2000 {
        state.turn = state.on_roll;
        let sign = |p: Player| if p == Player::One { 1 } else { -1 };
        if roll.is_none() {
            state.dice = None;
            let reply = engine.ask(&board_text(&pos, &state, turn));
            match reply.as_str() {
                "roll" => {}
                "double" => {
                    assert!(
                        state.cube.may_double(state.on_roll),
                        "double without access"
                    );
                    let doubled = MatchState {
                        doubled: true,
                        turn: state.on_roll.other(),
                        ..state
                    };
                    let answer = engine.ask(&board_text(&pos, &doubled, turn));
                    match answer.as_str() {
                        "take" => state.cube = state.cube.after_take(state.on_roll),
                        "drop" => {
                            return (sign(state.on_roll) * state.cube.value() as i64, turn);
                        }
                        other => panic!("answer to a double: {other:?}"),
                    }
                }
                other => panic!("before rolling: {other:?}"),
            }
            roll = Some(dice.roll());
        }
        let d = roll.take().unwrap();
        state.dice = Some(d);
        let reply = engine.ask(&board_text(&pos, &state, turn));
        let played = parse_move(&pos, d, &reply)
            .unwrap_or_else(|e| panic!("illegal UBGI move {reply:?} for {d}: {e}"));
        if played.position.me.off() == 15 {
            let kind = sheshbesh_engine::rules::scoring::win_kind(&played.position.opp);
            let mult = match kind {
                sheshbesh_engine::rules::scoring::WinKind::Single => 1,
                sheshbesh_engine::rules::scoring::WinKind::Gammon => 2,
                sheshbesh_engine::rules::scoring::WinKind::Backgammon => 3,
            };
            return (sign(state.on_roll) * mult * state.cube.value() as i64, turn);
        }
        pos = played.position.swapped();
        state.on_roll = state.on_roll.other();
    }
    panic!("game did not end");
}

#[test]
fn ubgi_plays_full_games() {
    let mut engine = Engine::start(&["ubgi", "--ply", "0"]);
    engine.send("ubgi");
    let mut ids = Vec::new();
    loop {
        let l = engine.line();
        if l == "readyok" {
            break;
        }
        ids.push(l);
    }
    assert!(ids.iter().any(|l| l == "id name Sheshbesh"), "{ids:?}");
    assert!(ids.iter().any(|l| l.starts_with("id version ")));
    assert_eq!(engine.ask("not a position"), "sorry");
    assert_eq!(engine.ask("isready"), "readyok");
    // The opening 31 is answered as from/to pairs.
    assert_eq!(
        engine.ask("XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10"),
        "8/5 6/5"
    );
    let mut total_turns = 0;
    for seed in 1..=3 {
        let (points, turns) = ubgi_game(&mut engine, seed);
        assert!(points != 0);
        total_turns += turns;
    }
    assert!(total_turns > 60, "three games of {total_turns} turns");
    // A position with no legal play answers a blank line: on the bar
    // against a closed board.
    let closed = MatchState {
        dice: Some(sheshbesh_engine::Dice::new(6, 6).unwrap()),
        ..MatchState::default()
    };
    let mut me = [0u8; 24];
    me[5] = 14;
    let mut opp = [0u8; 24];
    for p in opp.iter_mut().take(6) {
        *p = 2;
    }
    opp[12] = 3;
    let pos = Position::from_sides(&me, 1, &opp, 0).unwrap();
    assert_eq!(engine.ask(&xgid::encode(&pos, &closed, 10)), "");
    engine.send("quit");
    assert!(engine.child.wait().unwrap().success());
}

fn gnubg() -> String {
    for p in ["/usr/games/gnubg", "/usr/bin/gnubg"] {
        if std::path::Path::new(p).exists() {
            return p.to_string();
        }
    }
    panic!("gnubg is not installed: `bash .ci/deps` installs it (apt-get install gnubg)");
}

/// Runs `gnubg -t` on a command script and returns what it printed.
fn run_gnubg(gnubg: &str, script: &str) -> String {
    let mut g = Command::new(gnubg)
        .args(["-t", "-q"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    g.stdin
        .take()
        .unwrap()
        .write_all(script.as_bytes())
        .unwrap();
    let out = g.wait_with_output().unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn gnubg_plays_a_match_against_the_external_player() {
    let gnubg = gnubg();
    let dir = std::env::temp_dir().join(format!("sheshbesh-external-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("external.log");
    let mat = dir.join("match.mat");
    let mut server = Engine::start(&[
        "external",
        "--listen",
        "127.0.0.1:0",
        "--ply",
        "0",
        "--once",
        "--log",
        log.to_str().unwrap(),
    ]);
    let banner = server.line();
    let addr = banner
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("banner {banner:?}"))
        .to_string();
    let script = format!(
        "set player 0 external {addr}\n\
         set player 1 gnubg\n\
         set player 1 chequerplay evaluation plies 0\n\
         set player 1 cubedecision evaluation plies 0\n\
         set seed 7\n\
         new match 5\n\
         export match mat {}\n\
         quit\n",
        mat.display()
    );
    let text = run_gnubg(&gnubg, &script);
    assert!(
        text.contains("has won the match"),
        "gnubg did not finish the match:\n{text}"
    );
    assert!(server.child.wait().unwrap().success());
    // The match gnubg recorded reads back and replays legally, and ends
    // with one side at 5 points.
    let file = matfile::parse(&std::fs::read_to_string(&mat).unwrap()).unwrap();
    assert_eq!(file.length, 5);
    assert!(file.games.len() >= 2, "{} games", file.games.len());
    for game in &file.games {
        matfile::replay(game).unwrap();
    }
    // Every line gnubg sent got an answer, none an error, and the external
    // player moved and rolled.
    let log = std::fs::read_to_string(&log).unwrap();
    let answers: Vec<&str> = log.lines().filter_map(|l| l.strip_prefix("< ")).collect();
    assert_eq!(
        answers.len(),
        log.lines().filter(|l| l.starts_with("> ")).count()
    );
    assert!(answers.iter().all(|a| !a.starts_with("Error")), "{log}");
    assert!(answers.contains(&"roll"));
    assert!(answers.iter().filter(|a| a.contains('/')).count() > 10);
    // The engine read every board at the score of its game, its own score
    // first (gnubg 1.07 writes a play's or a double's scores the other way
    // round). Scores only grow, so a mirrored (a, b) with a != b is no
    // game's score.
    let games: Vec<[u32; 2]> = file.games.iter().map(|g| g.scores).collect();
    let mut unequal = 0;
    for read in log.lines().filter_map(|l| l.strip_prefix("= ")) {
        let state = xgid::decode(read).unwrap().state;
        let me = state.turn.index();
        let seen = [state.score[me], state.score[1 - me]];
        assert!(
            games.contains(&seen),
            "{read}: no game at {seen:?} in {games:?}"
        );
        unequal += usize::from(seen[0] != seen[1]);
    }
    assert!(unequal > 0, "no decision at unequal scores");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn both_of_gnubgs_players_can_be_the_external_engine() {
    let gnubg = gnubg();
    // Two connections at once: the server serves each on its own thread.
    let mut server = Engine::start(&["external", "--listen", "127.0.0.1:0", "--ply", "0"]);
    let banner = server.line();
    let addr = banner.strip_prefix("listening on ").unwrap().to_string();
    let script = format!(
        "set player 0 external {addr}\nset player 1 external {addr}\nset seed 3\nnew match 3\nquit\n"
    );
    let text = run_gnubg(&gnubg, &script);
    let _ = server.child.kill();
    assert!(text.contains("has won the match"), "{text}");
}

#[test]
fn the_external_player_serves_a_bounded_number_of_clients() {
    use std::net::TcpStream;
    let mut server = Engine::start(&["external", "--listen", "127.0.0.1:0", "--ply", "0"]);
    let banner = server.line();
    let addr = banner.strip_prefix("listening on ").unwrap().to_string();
    // Sixteen clients are served, each answered.
    let mut held = Vec::new();
    for _ in 0..16 {
        let mut c = TcpStream::connect(&addr).unwrap();
        writeln!(c, "nonsense").unwrap();
        let mut r = BufReader::new(c.try_clone().unwrap());
        let mut answer = String::new();
        r.read_line(&mut answer).unwrap();
        assert!(!answer.is_empty());
        held.push(c);
    }
    // The seventeenth is told so and closed.
    let c = TcpStream::connect(&addr).unwrap();
    let mut r = BufReader::new(c);
    let mut answer = String::new();
    r.read_line(&mut answer).unwrap();
    assert!(answer.starts_with("Error: 16 clients"), "{answer}");
    let mut rest = String::new();
    assert_eq!(r.read_line(&mut rest).unwrap(), 0, "closed: {rest}");
    // One leaves, and a new client is served again.
    drop(held.pop());
    let again = (0..50).any(|_| {
        std::thread::sleep(std::time::Duration::from_millis(20));
        let mut c = TcpStream::connect(&addr).unwrap();
        writeln!(c, "nonsense").unwrap();
        let mut answer = String::new();
        BufReader::new(c).read_line(&mut answer).unwrap();
        !answer.starts_with("Error: 16 clients")
    });
    assert!(again);
    let _ = server.child.kill();
}
