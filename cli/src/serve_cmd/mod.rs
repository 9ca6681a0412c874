//! `sheshbesh serve`: a local analysis board in the browser.
//!
//! An HTTP server on the player's own machine (loopback unless
//! `--listen` says otherwise): the page and its script are compiled into
//! the binary, and the JSON API under `/api/` answers with exactly what
//! the commands print with `--json` (the same [`crate::api`] functions),
//! so the page, a script and the command line never disagree. Analyses
//! run on the engine's rayon pool, never on the server's threads; a
//! rollout streams its progress as server-sent events and stops when the
//! page stops reading. The server reads no file of the machine: every
//! path that is not a page or an API call is a 404. `docs/SERVE.md` is
//! the API's reference.

mod game;
mod params;

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use axum::body::Body;
use axum::extract::DefaultBodyLimit;
use axum::extract::{Query, State};
use axum::http::{header, StatusCode, Uri};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::{json, Value};
use sheshbesh_engine::evaluation::evaluator::NetEvaluator;
use sheshbesh_engine::formats::{notation, position_id, xgid};
use sheshbesh_engine::{Dice, Player, Position};
use tokio_stream::wrappers::ReceiverStream;

use crate::input::{parse_position, Input};
use crate::nets::WeightsArg;
use crate::rollout_cmd::{self, RolloutOptions};
use crate::svg::{self, CubePlace, Diagram};
use params::{ApiError, Params};

/// Options of `sheshbesh serve`.
#[derive(clap::Args, Debug)]
pub struct ServeArgs {
    /// Address and port to listen on. The default answers this machine
    /// only; give another address (0.0.0.0:8080) to open the board to
    /// others. Port 0 takes any free port.
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub listen: SocketAddr,
    /// Open the board in the default browser once the server listens.
    #[arg(long)]
    pub open: bool,
    #[command(flatten)]
    pub weights: WeightsArg,
}

/// What every request shares.
struct App {
    ev: NetEvaluator,
    games: std::sync::Mutex<Games>,
}

/// The games being played, by id; the oldest is dropped past
/// [`MAX_GAMES`].
#[derive(Default)]
struct Games {
    next: u64,
    tables: std::collections::BTreeMap<u64, Arc<std::sync::Mutex<game::Table>>>,
}

/// Games kept at once (a table is a few kilobytes).
const MAX_GAMES: usize = 100;

type Shared = State<Arc<App>>;

const PAGE: &str = include_str!("page.html");
const SCRIPT: &str = include_str!("page.js");
const STYLE: &str = include_str!("page.css");

/// Runs the server until Ctrl-C, which stops it and any analysis at
/// once; the first line on stdout is the address it listens on
/// (`listening on http://127.0.0.1:8080/`).
pub fn run(a: ServeArgs) -> Result<()> {
    let ev = a.weights.load()?;
    let app = Arc::new(App {
        ev,
        games: Default::default(),
    });
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("starting the server's threads")?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(a.listen)
            .await
            .with_context(|| format!("bad --listen \"{}\": cannot listen there", a.listen))?;
        let addr = listener.local_addr().context("reading the bound address")?;
        let url = format!("http://{addr}/");
        println!("listening on {url}");
        use std::io::Write;
        let _ = std::io::stdout().flush();
        if a.open && webbrowser::open(&url).is_err() {
            eprintln!("sheshbesh: could not open a browser; open {url} yourself");
        }
        // Ctrl-C ends the server at once: a rollout's open stream would
        // hold a graceful shutdown until its last trial.
        tokio::select! {
            served = axum::serve(listener, router(app)) => served.context("serving"),
            _ = tokio::signal::ctrl_c() => Ok(()),
        }
    })
}

/// Every route the server answers; anything else is a 404.
fn router(app: Arc<App>) -> Router {
    Router::new()
        .route(
            "/",
            get(|| async { page(PAGE, "text/html; charset=utf-8") }),
        )
        .route(
            "/page.js",
            get(|| async { page(SCRIPT, "text/javascript; charset=utf-8") }),
        )
        .route(
            "/page.css",
            get(|| async { page(STYLE, "text/css; charset=utf-8") }),
        )
        .route("/api/position", get(position))
        .route("/api/moves", get(moves))
        .route("/api/hint", get(hint))
        .route("/api/eval", get(eval))
        .route("/api/cube", get(cube))
        .route("/api/board.svg", get(board))
        .route("/api/setup", get(setup))
        .route("/api/rollout", get(rollout))
        .route("/api/game", post(new_game))
        .route("/api/game/state", get(game_state))
        .route("/api/game/board.svg", get(game_board))
        .route("/api/game/act", post(game_act))
        .route("/api/game/record", get(game_record))
        .route(
            "/api/annotate",
            post(annotate).layer(DefaultBodyLimit::disable()),
        )
        .fallback(not_found)
        .with_state(app)
}

fn page(body: &'static str, kind: &'static str) -> Response {
    ([(header::CONTENT_TYPE, kind)], body).into_response()
}

async fn not_found(uri: Uri) -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        format!("no such page or API call: {}", uri.path()),
    )
}

/// Runs `f` on the engine's pool and waits for it without holding a
/// server thread.
async fn on_pool<T: Send + 'static>(
    f: impl FnOnce() -> Result<T> + Send + 'static,
) -> Result<T, ApiError> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    rayon::spawn(move || {
        let _ = tx.send(f());
    });
    match rx.await {
        Ok(answer) => answer.map_err(ApiError::bad),
        Err(_) => Err(ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "the analysis failed".into(),
        )),
    }
}

/// The position words a request gives, as the commands read them: a FIBS
/// board is turned into the XGID of the same position and match state.
fn position_of(p: &Params) -> Result<String, ApiError> {
    let text = p.required("position")?;
    if text.trim_start().starts_with("board:") {
        let b = crate::protocol::read_board(text).map_err(ApiError::bad)?;
        return Ok(xgid::encode(&b.position, &b.state, 10));
    }
    Ok(text.to_string())
}

async fn position(Query(q): Query<Vec<(String, String)>>) -> Result<Json<Value>, ApiError> {
    let p = Params::new(q, &["position"])?;
    let text = position_of(&p)?;
    Ok(Json(crate::api::position(&text).map_err(ApiError::bad)?))
}

async fn moves(Query(q): Query<Vec<(String, String)>>) -> Result<Json<Value>, ApiError> {
    let p = Params::new(q, &["position", "dice"])?;
    let text = position_of(&p)?;
    let dice = p.get("dice").map(str::to_string);
    on_pool(move || crate::api::moves(&text, dice.as_deref()))
        .await
        .map(Json)
}

async fn hint(
    State(app): Shared,
    Query(q): Query<Vec<(String, String)>>,
) -> Result<Json<Value>, ApiError> {
    let p = Params::new(q, &["position", "dice", "ply", "cubeless"])?;
    let text = position_of(&p)?;
    let dice = p.get("dice").map(str::to_string);
    let ply = p.ply()?;
    let equity = p.play_equity()?;
    on_pool(move || crate::api::hint(&app.ev, &text, dice.as_deref(), ply, equity))
        .await
        .map(Json)
}

async fn eval(
    State(app): Shared,
    Query(q): Query<Vec<(String, String)>>,
) -> Result<Json<Value>, ApiError> {
    let p = Params::new(q, &["position", "ply"])?;
    let (text, ply) = (position_of(&p)?, p.ply()?);
    on_pool(move || crate::api::eval(&app.ev, &text, ply))
        .await
        .map(Json)
}

async fn cube(
    State(app): Shared,
    Query(q): Query<Vec<(String, String)>>,
) -> Result<Json<Value>, ApiError> {
    let p = Params::new(q, &["position", "ply"])?;
    let (text, ply) = (position_of(&p)?, p.ply()?);
    on_pool(move || crate::api::cube(&app.ev, &text, ply))
        .await
        .map(Json)
}

/// The board as SVG, from the side of the player on roll (with `flip`,
/// of the other player), with its dice and cube; with `play`, the board
/// after that play of the dice; `played` and `best` draw plays of the
/// dice as red and green arrows, as the report's diagrams do; `steps`
/// draws arrows of checkers moved by hand ("13/8 bar/22", a checker's
/// whole way each, not checked against the dice); `home` `left` draws
/// the home board on the left.
async fn board(Query(q): Query<Vec<(String, String)>>) -> Result<Response, ApiError> {
    let p = Params::new(
        q,
        &[
            "position", "dice", "play", "played", "best", "steps", "flip", "home",
        ],
    )?;
    let text = position_of(&p)?;
    let input = parse_position(&text).map_err(|e| ApiError::bad(e.into()))?;
    let flip = p.flag("flip")?;
    draw(&p, &input, flip)
}

/// The board of `input` as a board call's parameters `p` ask for it
/// (those the call takes), from the other side when `flip`.
fn draw(p: &Params, input: &Input, flip: bool) -> Result<Response, ApiError> {
    let dice = match p.get("dice").filter(|d| !d.is_empty()) {
        Some(d) => Some(
            d.parse::<Dice>()
                .map_err(|e| ApiError::bad(anyhow::Error::from(e)))?,
        ),
        None => input.state.dice,
    };
    if p.get("steps").is_some() && p.get("played").is_some() {
        return Err(ApiError::said(
            "give steps or played, not both: each draws the play made".into(),
        ));
    }
    let ask = BoardAsk {
        dice,
        play: p.get("play"),
        played: p.get("played"),
        best: p.get("best"),
        steps: p.get("steps").map(hand_steps).transpose()?,
        flip,
        home_left: p.home_left()?,
    };
    let svg = board_svg(input, &ask).map_err(ApiError::bad)?;
    Ok(([(header::CONTENT_TYPE, "image/svg+xml")], svg).into_response())
}

/// What a board drawing shows besides the position.
#[derive(Default)]
struct BoardAsk<'a> {
    dice: Option<Dice>,
    play: Option<&'a str>,
    played: Option<&'a str>,
    best: Option<&'a str>,
    steps: Option<sheshbesh_engine::Move>,
    flip: bool,
    home_left: bool,
}

/// Checkers moved by hand, "13/8 bar/22 6/off": each from a point or the
/// bar to a lower point or off, in the mover's numbering.
fn hand_steps(text: &str) -> Result<sheshbesh_engine::Move, ApiError> {
    let point = |w: &str| -> Option<u8> {
        match w {
            "bar" | "25" => Some(25),
            "off" | "0" => Some(0),
            _ => w.parse().ok().filter(|p| (1..=24).contains(p)),
        }
    };
    let steps = text
        .split_whitespace()
        .map(|w| {
            let (from, to) = w.split_once('/')?;
            let (from, to) = (point(from)?, point(to)?);
            (from > to && from > 0).then_some(sheshbesh_engine::rules::moves::Step {
                from,
                to,
                hit: false,
            })
        })
        .collect::<Option<Vec<_>>>()
        .filter(|s| s.len() <= 4)
        .ok_or_else(|| {
            ApiError::said(format!(
                "bad steps \"{text}\": give up to four moves such as 13/8 bar/22 6/off"
            ))
        })?;
    Ok(sheshbesh_engine::Move::from_steps(&steps))
}

fn board_svg(input: &Input, ask: &BoardAsk<'_>) -> Result<String> {
    let st = &input.state;
    let cube = (!st.crawford).then(|| {
        let value = st.cube.value() as u32;
        // A cube just offered sits, doubled, on the doubler's side: the
        // player on roll's.
        let mine = match st.cube.owner {
            _ if st.doubled => Some(true),
            None => None,
            Some(o) => Some(o == st.on_roll),
        };
        let value = if st.doubled { 2 * value } else { value };
        let place = match (mine, ask.flip) {
            (None, _) => CubePlace::Middle,
            (Some(bottom), flip) if bottom != flip => CubePlace::Bottom,
            _ => CubePlace::Top,
        };
        (value, place)
    });
    let needs_dice = || {
        ask.dice
            .context("a play needs dice: give dice, or a position that carries them")
    };
    let arrow = |text: Option<&str>| -> Result<Option<sheshbesh_engine::Move>> {
        text.map(|t| Ok(notation::parse_move(&input.position, needs_dice()?, t)?.mv))
            .transpose()
    };
    // Each player keeps a colour, as in the reports: gnubg's player 0
    // (a match file's first player) light.
    let bottom_is_zero = (st.on_roll == Player::Zero) != ask.flip;
    let mut d = Diagram {
        id: "board",
        mover_light: bottom_is_zero,
        dice: ask.dice,
        cube,
        played: match ask.steps {
            Some(m) => Some(m),
            None => arrow(ask.played)?,
        },
        best: arrow(ask.best)?,
        spots: true,
        home_left: ask.home_left,
    };
    let mut board = input.position;
    if let Some(text) = ask.play {
        board = notation::parse_move(&input.position, needs_dice()?, text)?.position;
        d.dice = None;
    }
    if ask.flip {
        // The dice are the other player's, whose half is now the top.
        (board, d.dice, d.played, d.best) = (board.swapped(), None, None, None);
    }
    Ok(svg::board(&board, &d))
}

/// A position set up by hand: `on_roll` and `opponent` are each side's
/// checkers as `show --json` gives them (26 counts: the bar, points 1 to
/// 24 in that side's numbering, borne off). The answer is `show --json`
/// of that position (money, before the roll).
async fn setup(Query(q): Query<Vec<(String, String)>>) -> Result<Json<Value>, ApiError> {
    let p = Params::new(q, &["on_roll", "opponent"])?;
    let side = |name: &str| -> Result<([u8; 24], u8), ApiError> {
        let text = p.required(name)?;
        let wrong = || {
            ApiError::said(format!(
                "bad {name} \"{text}\": give 26 counts separated by commas (the bar, points 1 to 24, borne off)"
            ))
        };
        let counts = text
            .split(',')
            .map(|c| c.trim().parse::<u8>())
            .collect::<Result<Vec<u8>, _>>()
            .map_err(|_| wrong())?;
        if counts.len() != 26 {
            return Err(wrong());
        }
        let total: u32 = counts.iter().map(|&c| u32::from(c)).sum();
        if total != 15 {
            return Err(ApiError::said(format!(
                "bad {name} \"{text}\": the counts add up to {total} checkers, not 15"
            )));
        }
        let mut points = [0u8; 24];
        points.copy_from_slice(&counts[1..25]);
        Ok((points, counts[0]))
    };
    let ((me, me_bar), (opp, opp_bar)) = (side("on_roll")?, side("opponent")?);
    let pos = Position::from_sides(&me, me_bar, &opp, opp_bar)
        .map_err(|e| ApiError::said(format!("bad position: {e}")))?;
    let answer = crate::api::position(&position_id::encode(&pos)).map_err(ApiError::bad)?;
    Ok(Json(answer))
}

/// A rollout as server-sent events: `progress` events with the answer so
/// far, then one `result` event with what `rollout --json` prints (or an
/// `error` event). It stops when the client stops reading.
async fn rollout(
    State(app): Shared,
    Query(q): Query<Vec<(String, String)>>,
) -> Result<Response, ApiError> {
    let p = Params::new(
        q,
        &[
            "position", "dice", "trials", "ply", "truncate", "seed", "cubeful", "moves",
        ],
    )?;
    let text = position_of(&p)?;
    let dice = p.get("dice").map(str::to_string);
    let options = RolloutOptions {
        trials: p.number("trials", 1296, 1..=1_000_000)?,
        truncate: p.optional_number("truncate", 1..=1000)?,
        seed: p.number("seed", 1, 0..=u64::MAX)?,
        threads: None,
        level: None,
        target_se: None,
        no_luck: false,
        no_quasi: false,
    };
    let ply = p.number("ply", 0, 0..=2)?;
    let moves = p.number("moves", 4, 1..=100)?;
    let cubeful = p.flag("cubeful")?;
    let input = parse_position(&text).map_err(|e| ApiError::bad(e.into()))?;
    let settings = options
        .settings(&input, ply, cubeful)
        .map_err(ApiError::bad)?;
    let (events, response) = Events::open();
    rayon::spawn(move || {
        let mut progress = |trials: u32, so_far: &Value| {
            events.progress(
                trials == settings.trials,
                || json!({"trials": trials, "of": settings.trials, "answer": so_far}),
            );
        };
        let answer = rollout_cmd::answer(
            &app.ev,
            &input,
            dice.as_deref(),
            &settings,
            moves,
            &events.stop,
            &mut progress,
        );
        match answer {
            Ok((v, _)) => events.finish("result", v.to_string()),
            Err(e) => events.finish("error", json!({ "error": format!("{e:#}") }).to_string()),
        }
    });
    Ok(response)
}

/// A new game: the parameters are `play`'s options (see
/// [`game::OPTIONS`]). The answer is the game's state (as
/// `/api/game/state` gives it) after the engine's first actions.
async fn new_game(
    State(app): Shared,
    Query(q): Query<Vec<(String, String)>>,
) -> Result<Json<Value>, ApiError> {
    let p = Params::new(q, &game::OPTIONS)?;
    let args = game::options(&p)?;
    let pool_app = Arc::clone(&app);
    let table = on_pool(move || game::Table::new(&pool_app.ev, args)).await?;
    let mut games = app.games.lock().unwrap_or_else(|e| e.into_inner());
    games.next += 1;
    let id = games.next;
    let state = table.state(id);
    games
        .tables
        .insert(id, Arc::new(std::sync::Mutex::new(table)));
    while games.tables.len() > MAX_GAMES {
        games.tables.pop_first();
    }
    Ok(Json(state))
}

/// The game `id` names.
fn table_of(app: &App, p: &Params) -> Result<(u64, Arc<std::sync::Mutex<game::Table>>), ApiError> {
    p.required("id")?;
    let id: u64 = p.number("id", 0, 1..=u64::MAX)?;
    let games = app.games.lock().unwrap_or_else(|e| e.into_inner());
    games
        .tables
        .get(&id)
        .cloned()
        .map(|t| (id, t))
        .ok_or_else(|| ApiError::new(StatusCode::NOT_FOUND, format!("no game {id}")))
}

/// A game's board as its viewer sees it (a finished game's too, which no
/// position text holds), with `play` or `steps` as `board.svg` takes them.
async fn game_board(
    State(app): Shared,
    Query(q): Query<Vec<(String, String)>>,
) -> Result<Response, ApiError> {
    let p = Params::new(q, &["id", "play", "steps", "home"])?;
    let (_, table) = table_of(&app, &p)?;
    let (input, flip) = table.lock().unwrap_or_else(|e| e.into_inner()).board();
    draw(&p, &input, flip)
}

async fn game_state(
    State(app): Shared,
    Query(q): Query<Vec<(String, String)>>,
) -> Result<Json<Value>, ApiError> {
    let p = Params::new(q, &["id"])?;
    let (id, table) = table_of(&app, &p)?;
    let t = table.lock().unwrap_or_else(|e| e.into_inner());
    Ok(Json(t.state(id)))
}

/// A person's order (`do`: roll, double, take, drop, beaver, accept,
/// reject, resign with `kind`, play with `move`, next, end); the answer is
/// the state after it and the engine's turns that follow. An order that is
/// not due is a 409 with the reason.
async fn game_act(
    State(app): Shared,
    Query(q): Query<Vec<(String, String)>>,
) -> Result<Json<Value>, ApiError> {
    let p = Params::new(q, &["id", "do", "move", "kind"])?;
    let (id, table) = table_of(&app, &p)?;
    let order = game::Order::read(&p)?;
    let done = on_pool(move || {
        let mut t = table.lock().unwrap_or_else(|e| e.into_inner());
        Ok(t.order(&app.ev, order).map(|()| t.state(id)))
    })
    .await?;
    done.map(Json).map_err(|e| {
        let not_now = matches!(
            e.downcast_ref::<sheshbesh_engine::play::session::PlayError>(),
            Some(sheshbesh_engine::play::session::PlayError::NotNow(_))
        );
        let status = if not_now {
            StatusCode::CONFLICT
        } else {
            StatusCode::BAD_REQUEST
        };
        ApiError::new(status, format!("{e:#}"))
    })
}

/// The game's record as the .mat file `play` saves (which `annotate`
/// and `verify` read).
async fn game_record(
    State(app): Shared,
    Query(q): Query<Vec<(String, String)>>,
) -> Result<Response, ApiError> {
    let p = Params::new(q, &["id"])?;
    let (id, table) = table_of(&app, &p)?;
    let text = table.lock().unwrap_or_else(|e| e.into_inner()).record();
    Ok((
        [
            (
                header::CONTENT_TYPE,
                "text/plain; charset=utf-8".to_string(),
            ),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"sheshbesh-game-{id}.mat\""),
            ),
        ],
        text,
    )
        .into_response())
}

/// The largest match file a review takes (the longest real matches are a
/// few hundred kilobytes).
pub const UPLOAD_LIMIT: usize = 8 << 20;

/// How much of an oversized upload is read and thrown away before the
/// refusal is sent. A server that answers while the client is still
/// sending closes a connection with unread data, and the client then sees
/// a broken pipe instead of the answer.
const DRAIN_LIMIT: usize = 8 * UPLOAD_LIMIT;

/// Why an upload was not taken.
enum Upload {
    TooLarge,
    Broken(axum::Error),
}

/// The request's body if it is at most `UPLOAD_LIMIT` bytes. A larger one
/// is read on to `DRAIN_LIMIT` without being kept, so its refusal reaches
/// the client.
async fn read_upload(body: Body) -> Result<Vec<u8>, Upload> {
    use tokio_stream::StreamExt;
    let mut stream = body.into_data_stream();
    let mut kept = Vec::new();
    let mut seen = 0usize;
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(Upload::Broken)?;
        seen += chunk.len();
        if seen <= UPLOAD_LIMIT {
            kept.extend_from_slice(&chunk);
        } else if seen > DRAIN_LIMIT {
            break;
        }
    }
    if seen > UPLOAD_LIMIT {
        return Err(Upload::TooLarge);
    }
    Ok(kept)
}

/// A match review: the file's bytes are the request's body, `name` its
/// file name (whose extension tells SGF from .mat). Server-sent events:
/// `progress` with the rolls judged and of how many, then one `result`
/// event with what `annotate FILE --json` prints. It stops when the
/// client stops reading.
async fn annotate(
    State(app): Shared,
    Query(q): Query<Vec<(String, String)>>,
    body: Body,
) -> Result<Response, ApiError> {
    let p = Params::new(q, &["name", "ply", "cubeless"])?;
    let name = std::path::PathBuf::from(p.required("name")?);
    let ply = p.ply()?;
    let checker = p.play_equity()?;
    let bytes = read_upload(body).await.map_err(|e| {
        let (status, why) = match e {
            Upload::TooLarge => (
                StatusCode::PAYLOAD_TOO_LARGE,
                format!("larger than {} MiB", UPLOAD_LIMIT >> 20),
            ),
            Upload::Broken(e) => (StatusCode::BAD_REQUEST, format!("upload broken off: {e}")),
        };
        ApiError::new(
            status,
            format!("bad match file \"{}\": {why}", name.display()),
        )
    })?;
    let m = crate::annotate_cmd::read_match(&name, &bytes).map_err(ApiError::bad)?;
    let (events, response) = Events::open();
    rayon::spawn(move || {
        let progress = |done: u64, of: u64| {
            events.progress(done == of, || json!({ "rolls": done, "of": of }));
        };
        let text =
            crate::annotate_cmd::review(&app.ev, &name, &m, ply, checker, &progress, &events.stop);
        events.finish("result", text);
    });
    Ok(response)
}

/// The server-sent events of a long job run on the engine's pool:
/// `progress` events, at most five a second, then one last event. `stop`
/// is set once the reader has gone, so the job can end early.
struct Events {
    tx: tokio::sync::mpsc::Sender<Result<Event, Infallible>>,
    last: std::sync::Mutex<Instant>,
    stop: AtomicBool,
}

impl Events {
    /// The job's side, and the response that streams what it sends.
    fn open() -> (Events, Response) {
        let (tx, rx) = tokio::sync::mpsc::channel(16);
        let events = Events {
            tx,
            last: std::sync::Mutex::new(Instant::now()),
            stop: AtomicBool::new(false),
        };
        let sse = Sse::new(ReceiverStream::new(rx)).keep_alive(KeepAlive::default());
        (events, sse.into_response())
    }

    /// A `progress` event with `data()`, unless one went out less than
    /// 200 ms ago (`done` sends it anyway); a closed stream sets `stop`.
    fn progress(&self, done: bool, data: impl FnOnce() -> Value) {
        if self.tx.is_closed() {
            self.stop.store(true, Ordering::Relaxed);
            return;
        }
        let mut last = self.last.lock().unwrap_or_else(|e| e.into_inner());
        if done || last.elapsed() >= Duration::from_millis(200) {
            *last = Instant::now();
            let event = Event::default().event("progress").data(data().to_string());
            let _ = self.tx.try_send(Ok(event));
        }
    }

    /// The last event, `kind` with `data`.
    fn finish(self, kind: &str, data: String) {
        let _ = self
            .tx
            .blocking_send(Ok(Event::default().event(kind).data(data)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sheshbesh_engine::formats::fibs;

    fn input(text: &str) -> Input {
        parse_position(text).unwrap()
    }

    #[test]
    fn a_board_after_a_play_is_drawn_without_dice_and_a_bad_play_is_refused() {
        let opening = input("XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10");
        let dice = opening.state.dice;
        let ask = |play| BoardAsk {
            dice,
            play,
            ..BoardAsk::default()
        };
        let before = board_svg(&opening, &ask(None)).unwrap();
        let after = board_svg(&opening, &ask(Some("8/5 6/5"))).unwrap();
        assert_ne!(before, after);
        assert!(before.matches("<circle").count() > after.matches("<circle").count());
        let e = board_svg(&opening, &ask(Some("8/2"))).unwrap_err();
        assert!(format!("{e:#}").contains("8/2"), "{e:#}");
        let no_dice = BoardAsk {
            play: Some("8/5 6/5"),
            ..BoardAsk::default()
        };
        let none = board_svg(&input("start"), &no_dice).unwrap_err();
        assert!(none.to_string().contains("needs dice"), "{none}");
    }

    #[test]
    fn arrows_are_drawn_for_the_played_and_best_plays_and_flip_turns_the_board() {
        let opening = input("XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10");
        let ask = BoardAsk {
            dice: opening.state.dice,
            played: Some("24/21 24/23"),
            best: Some("8/5 6/5"),
            ..BoardAsk::default()
        };
        let svg = board_svg(&opening, &ask).unwrap();
        assert!(svg.contains("url(#board-played)") && svg.contains("url(#board-best)"));
        let flipped = board_svg(
            &opening,
            &BoardAsk {
                flip: true,
                ..BoardAsk::default()
            },
        )
        .unwrap();
        // The opening is symmetric: flipped, the same points hold the
        // other colour.
        assert_ne!(flipped, board_svg(&opening, &BoardAsk::default()).unwrap());
        assert!(!flipped.contains("url(#board-played)"));
    }

    #[test]
    fn steps_moved_by_hand_are_read_or_named_as_bad() {
        let m = hand_steps("13/8 bar/22 6/off").unwrap();
        let steps: Vec<(u8, u8)> = m.steps().map(|s| (s.from, s.to)).collect();
        assert_eq!(steps, [(13, 8), (25, 22), (6, 0)]);
        for bad in ["8/13", "13-8", "26/3", "off/3", "1/0 2/0 3/0 4/0 5/0"] {
            let e = hand_steps(bad).unwrap_err();
            assert!(format!("{e:?}").contains("bad steps"), "{bad}: {e:?}");
        }
    }

    #[test]
    fn a_fibs_board_is_read_as_the_xgid_of_the_same_position() {
        let start = input("start");
        let board = fibs::encode("you", "them", &start.position, &start.state);
        let p = Params::new(vec![("position".into(), board)], &["position"]).unwrap();
        let text = position_of(&p).unwrap();
        assert!(text.starts_with("XGID="), "{text}");
        assert_eq!(input(&text).position, start.position);
    }
}
