//! What engine protocols share: reading a position from a FIBS board or an
//! XGID, and the engine's answer in the plain words they exchange.

use anyhow::{Context, Result};
use sheshbesh_engine::evaluation::evaluator::Evaluator;
use sheshbesh_engine::play::agent::{Act, Agent, CubeReply};
use sheshbesh_engine::{formats::fibs, formats::xgid, MatchState, Position};

/// A position read from a protocol line, with its match context.
pub struct Board {
    /// The board from the player on roll.
    pub position: Position,
    /// Cube, score, dice, pending double.
    pub state: MatchState,
}

/// Reads a FIBS `board:` string or an XGID (with or without `XGID=`).
pub fn read_board(text: &str) -> Result<Board> {
    let t = text.trim();
    let board = if t.starts_with("board:") {
        let b = fibs::decode(t)?;
        Board {
            position: b.position,
            state: b.state,
        }
    } else {
        let x = xgid::decode(t).context("expected a FIBS board (board:...) or an XGID")?;
        Board {
            position: x.position,
            state: x.state,
        }
    };
    let input = crate::input::Input {
        position: board.position,
        state: board.state,
    };
    crate::input::check(&input, t)?;
    Ok(board)
}

/// The engine's action for the player due to act, in the words both UBGI
/// and gnubg's external protocol use: a move as from/to numbers (empty when
/// no play is legal), `double`, `roll`, `take`, `drop`, `beaver`, `accept`,
/// `reject`.
pub fn answer<E: Evaluator + ?Sized>(agent: &Agent<E>, board: &Board) -> Result<String> {
    let act = agent.act(&board.position, &board.state)?;
    Ok(match act {
        Act::Play(c) => c.mv.steps_text(),
        Act::Double => "double".into(),
        Act::Roll => "roll".into(),
        Act::Reply(CubeReply::Take) => "take".into(),
        Act::Reply(CubeReply::Drop) => "drop".into(),
        Act::Reply(CubeReply::Beaver) => "beaver".into(),
        Act::Accept => "accept".into(),
        Act::Reject => "reject".into(),
        // `Agent::act` answers what the board asks; only a seat in a
        // session offers resignations, and these protocols have no word
        // for one.
        Act::Resign(_) => anyhow::bail!("no resignation offers in this protocol"),
    })
}
