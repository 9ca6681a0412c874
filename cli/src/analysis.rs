//! `sheshbesh hint` and `sheshbesh eval`: ranked plays and position
//! evaluations from the net, at any ply.

use anyhow::{bail, Result};
use serde_json::{json, Value};
use sheshbesh_engine::cube::{self, MoneyCube, Owner};
use sheshbesh_engine::evaluator::{Evaluator, NetEvaluator};
use sheshbesh_engine::search::{rank_moves, MoveFilter, Ply};
use sheshbesh_engine::{position_id, MatchState, Probs};

use crate::commands::{input_of, run};
use crate::input::dice_for;
use crate::Output;

const MAX_PLY: u32 = 4;

fn check_ply(ply: u32) -> Result<()> {
    if ply > MAX_PLY {
        bail!("bad ply \"{ply}\": give 0 to {MAX_PLY}");
    }
    Ok(())
}

fn probs_json(p: &Probs) -> Value {
    json!(p
        .0
        .iter()
        .map(|&x| (f64::from(x) * 1e6).round() / 1e6)
        .collect::<Vec<_>>())
}

fn round(x: f32) -> f64 {
    (f64::from(x) * 1e6).round() / 1e6
}

fn probs_text(p: &Probs) -> String {
    let [w, wg, wbg, lg, lbg] = p.0;
    format!(
        "win {:.1}% (g {:.1}%, bg {:.1}%)  lose {:.1}% (g {:.1}%, bg {:.1}%)",
        100.0 * w,
        100.0 * wg,
        100.0 * wbg,
        100.0 * (1.0 - w),
        100.0 * lg,
        100.0 * lbg
    )
}

/// `sheshbesh hint`.
pub fn hint(
    ev: &NetEvaluator,
    position: Option<&str>,
    dice: Option<&str>,
    ply: u32,
    out: Output,
) -> Result<()> {
    check_ply(ply)?;
    run(vec![position, dice], out, |parts| {
        let input = input_of(parts, 2)?;
        let dice = dice_for(&input, parts.get(1).copied())?;
        let ranked = rank_moves(ev, &input.position, dice, ply, MoveFilter::ROOT);
        let best = ranked[0].probs.equity();
        let moves: Vec<Value> = ranked
            .iter()
            .map(|r| {
                json!({
                    "move": r.candidate.mv.to_string(),
                    "position_id": position_id::encode(&r.candidate.position.swapped()),
                    "probs": probs_json(&r.probs),
                    "equity": round(r.probs.equity()),
                    "ply": r.ply,
                })
            })
            .collect();
        let mut text = format!(
            "{} play{} for {dice}:",
            ranked.len(),
            if ranked.len() == 1 { "" } else { "s" }
        );
        for (i, r) in ranked.iter().enumerate() {
            let name = if r.candidate.mv.is_empty() {
                "(no legal move)".to_string()
            } else {
                r.candidate.mv.to_string()
            };
            let diff = if i == 0 {
                String::new()
            } else {
                format!("({:+.3})", r.probs.equity() - best)
            };
            text.push_str(&format!(
                "\n{:>3}. {}-ply {name:<22} {:+.3} {diff:>9}  {}",
                i + 1,
                r.ply,
                r.probs.equity(),
                probs_text(&r.probs)
            ));
        }
        let v = json!({
            "position_id": position_id::encode(&input.position),
            "dice": dice.to_string(),
            "ply": ply,
            "moves": moves,
        });
        Ok((v, text))
    })
}

/// The money cube as the match state describes it, from the side on roll.
fn money_cube(state: &MatchState) -> MoneyCube {
    let on_roll = state.on_roll;
    let owner = match state.cube.owner {
        None => Owner::Centred,
        Some(p) if p == on_roll => Owner::Me,
        Some(_) => Owner::Opponent,
    };
    MoneyCube {
        owner,
        jacoby: state.jacoby,
        beavers: state.beavers,
    }
}

/// `sheshbesh eval`.
pub fn eval(ev: &NetEvaluator, position: Option<&str>, ply: u32, out: Output) -> Result<()> {
    check_ply(ply)?;
    run(vec![position], out, |parts| {
        let input = input_of(parts, 1)?;
        if input.state.length > 0 {
            bail!(
                "bad position \"{}\": match-play cube analysis needs a match equity table, which eval does not have yet; give a money position",
                parts[0]
            );
        }
        let pos = input.position;
        let p = Ply::new(ev, ply).eval(&pos);
        let x = cube::efficiency(&pos);
        let cubeinfo = money_cube(&input.state);
        let d = cube::money_decision(&p, cubeinfo, x);
        let redouble = cubeinfo.owner == Owner::Me;
        let action = d.action.words(redouble);
        let v = json!({
            "position_id": position_id::encode(&pos),
            "ply": ply,
            "probs": probs_json(&p),
            "equity": round(p.equity()),
            "cubeful": {
                "no_double": round(d.no_double),
                "double_take": round(d.double_take),
                "double_pass": round(d.double_pass),
            },
            "cube_action": action,
            "take_point": round(d.take_point),
            "cash_point": round(d.cash_point),
            "cube_efficiency": round(x),
        });
        let text = format!(
            "{}-ply evaluation for the player on roll\n  {}\n  cubeless equity {:+.3}\n  cubeful: no double {:+.3}, double/take {:+.3}, double/pass {:+.3}\n  proper cube action: {action}",
            ply,
            probs_text(&p),
            p.equity(),
            d.no_double,
            d.double_take,
            d.double_pass
        );
        Ok((v, text))
    })
}
