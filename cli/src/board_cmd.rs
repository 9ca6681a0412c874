//! `show`, `moves` and `bench`: the commands that need no net (a board
//! drawn, its legal plays listed, move generation counted).

use std::time::Instant;

use anyhow::{bail, Result};
use serde_json::{json, Value};
use sheshbesh_engine::{
    formats::position_id, formats::xgid, rules::movegen, rules::perft, MoveList,
};

use crate::board;
use crate::input::{dice_for, input_of};
use crate::output::{respond, Output};

/// `sheshbesh show`.
pub fn show(position: Option<&str>, home_left: bool, out: Output) -> Result<()> {
    respond(vec![position], out, |parts| show_answer(parts, home_left))
}

/// What `show` answers for the words `parts`: its JSON and its drawing.
pub fn show_answer(parts: &[&str], home_left: bool) -> Result<(Value, String)> {
    let input = input_of(parts, 1)?;
    let (pos, state) = (input.position, input.state);
    let side = |c: &sheshbesh_engine::Checkers| -> Vec<u8> {
        let mut v = Vec::with_capacity(26);
        v.push(c.bar());
        v.extend((1..=24).map(|i| c.at(i)));
        v.push(c.off());
        v
    };
    let (pips_me, pips_opp) = pos.pips();
    let (me, them) = (state.on_roll.index(), 1 - state.on_roll.index());
    let owner = match state.cube.owner {
        None => "centre",
        Some(o) if o == state.on_roll => "on_roll",
        Some(_) => "opponent",
    };
    let v = json!({
        "position_id": position_id::encode(&pos),
        "match_id": sheshbesh_engine::formats::match_id::encode(&state),
        "xgid": xgid::encode(&pos, &state, 10),
        "board": { "on_roll": side(&pos.me), "opponent": side(&pos.opp) },
        "pips": { "on_roll": pips_me, "opponent": pips_opp },
        "match": {
            "length": state.length,
            "score": { "on_roll": state.score[me], "opponent": state.score[them] },
            "crawford": state.crawford,
        },
        "cube": { "value": state.cube.value(), "owner": owner },
        "dice": state.dice.map(|d| d.to_string()),
    });
    Ok((v, board::draw(&pos, &state, home_left)))
}

/// `sheshbesh moves`.
pub fn moves(position: Option<&str>, dice: Option<&str>, out: Output) -> Result<()> {
    let mut list = MoveList::new();
    let list = std::cell::RefCell::new(&mut list);
    respond(vec![position, dice], out, |parts| {
        moves_answer(parts, &mut list.borrow_mut())
    })
}

/// What `moves` answers for the words `parts` (`list` is scratch space).
pub fn moves_answer(parts: &[&str], list: &mut MoveList) -> Result<(Value, String)> {
    let input = input_of(parts, 2)?;
    let dice = dice_for(&input, parts.get(1).copied())?;
    movegen::generate(&input.position, dice, list);
    let moves: Vec<Value> = list
        .iter()
        .map(|c| json!({ "move": c.mv.to_string(), "position_id": position_id::encode(&c.position.swapped()) }))
        .collect();
    let none = list.len() == 1 && list.iter().all(|c| c.mv.is_empty());
    let mut text = if none {
        format!("no legal move for {dice}: the turn passes")
    } else {
        format!(
            "{} legal move{} for {dice}:",
            list.len(),
            if list.len() == 1 { "" } else { "s" }
        )
    };
    for (i, c) in list.iter().enumerate().filter(|_| !none) {
        let name = if c.mv.is_empty() {
            "(no legal move)".to_string()
        } else {
            c.mv.to_string()
        };
        text.push_str(&format!(
            "\n{:>4}. {name:<24} {}",
            i + 1,
            position_id::encode(&c.position.swapped())
        ));
    }
    let v = json!({
        "position_id": position_id::encode(&input.position),
        "dice": dice.to_string(),
        "moves": moves,
    });
    Ok((v, text))
}

/// `sheshbesh bench`.
pub fn bench(depth: usize, json_out: bool) -> Result<()> {
    if depth == 0 || depth > 4 {
        bail!("bad depth \"{depth}\": give 1 to 4");
    }
    let t = Instant::now();
    let counts = perft::distinct_positions(depth);
    let secs = t.elapsed().as_secs_f64();
    let signature: usize = counts.iter().sum();
    if json_out {
        println!(
            "{}",
            json!({ "depth": depth, "positions": counts, "signature": signature, "seconds": secs })
        );
    } else {
        for (i, c) in counts.iter().enumerate() {
            println!("ply {}: {c} distinct positions", i + 1);
        }
        println!("signature: {signature}");
        println!("time: {secs:.3} s");
    }
    Ok(())
}
