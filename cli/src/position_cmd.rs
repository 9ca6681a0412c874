//! `sheshbesh hint`, `eval` and `cube`: the commands that judge one
//! position (ranked plays, outcome probabilities and equities, the cube
//! decision) at any ply.

use crate::output::rounded;
use anyhow::{bail, Result};
use serde_json::{json, Value};
use sheshbesh_engine::cube::decision::{
    cube_decision, owner_of, rank_plays, valuation, PlayEquity,
};
use sheshbesh_engine::cube::money::{self, Owner};
use sheshbesh_engine::evaluation::evaluator::NetEvaluator;
use sheshbesh_engine::search::valuation::Valuation;
use sheshbesh_engine::{formats::position_id, Probs};

use crate::input::input_of;
use crate::input::{dice_for, Input};
use crate::output::respond;
use crate::output::Output;
use sheshbesh_engine::search::ply::MAX_PLY;

/// Refuses a ply deeper than the commands search.
pub fn check_ply(ply: u32) -> Result<()> {
    if ply > MAX_PLY {
        bail!("bad --ply \"{ply}\": give 0 to {MAX_PLY}");
    }
    Ok(())
}

/// `--ply` of every command: a search depth from 0 to [`MAX_PLY`].
pub fn ply_arg(s: &str) -> std::result::Result<u32, String> {
    match s.parse::<u32>() {
        Ok(p) if p <= MAX_PLY => Ok(p),
        _ => Err(format!("give 0 to {MAX_PLY}")),
    }
}

/// `--cubeless` of the commands that value plays.
#[derive(clap::Args, Clone, Copy, Debug, Default)]
pub struct CheckerArgs {
    /// Value plays by cubeless equity (money equity, or at a match score
    /// the EMG of the outcomes with the cube dead) instead of cubeful
    /// equity (the cube's value, its owner and both sides' cube actions
    /// counted, as gnubg and XG rank plays).
    #[arg(long)]
    pub cubeless: bool,
}

impl CheckerArgs {
    /// The equity the flag asks for.
    pub fn equity(self) -> PlayEquity {
        if self.cubeless {
            PlayEquity::Cubeless
        } else {
            PlayEquity::Cubeful
        }
    }
}

fn probs_json(p: &Probs) -> Value {
    json!(p.0.iter().map(|&x| rounded(x, 6)).collect::<Vec<_>>())
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
    equity: PlayEquity,
    out: Output,
) -> Result<()> {
    check_ply(ply)?;
    respond(vec![position, dice], out, |parts| {
        hint_answer(ev, parts, ply, equity)
    })
}

/// What `hint` answers for the words `parts` (POSITION [DICE]).
pub fn hint_answer(
    ev: &NetEvaluator,
    parts: &[&str],
    ply: u32,
    equity: PlayEquity,
) -> Result<(Value, String)> {
    let input = input_of(parts, 2)?;
    if parts.get(1).is_none() && input.state.dice.is_none() {
        // No roll to play: the hint is the cube's, as gnubg gives it.
        return cube_answer(ev, &parts[..1], ply);
    }
    let dice = dice_for(&input, parts.get(1).copied())?;
    // At a match score plays rank by EMG (shown with the MWC it is
    // worth, as gnubg shows them); in money play by money equity per
    // unit of the cube.
    let valuation = valuation(&input.state, input.state.on_roll)?;
    let ranked = rank_plays(ev, &input.position, dice, &input.state, ply, equity)?;
    let mwc = |equity: f32| match valuation {
        Valuation::Money => None,
        Valuation::Match(m) => Some(m.mwc_of_emg(equity)),
    };
    let best = ranked[0].equity;
    let moves: Vec<Value> = ranked
        .iter()
        .map(|r| {
            let mut m = json!({
                "move": r.candidate.mv.to_string(),
                "position_id": position_id::encode(&r.candidate.position.swapped()),
                "probs": probs_json(&r.probs),
                "equity": rounded(r.equity, 6),
                "ply": r.ply,
            });
            if let Some(w) = mwc(r.equity) {
                m["mwc"] = json!(rounded(w, 6));
            }
            m
        })
        .collect();
    let mut text = format!(
        "{} play{} for {dice}, {} {}:",
        ranked.len(),
        if ranked.len() == 1 { "" } else { "s" },
        equity.word(),
        if mwc(0.0).is_some() {
            "EMG and MWC"
        } else {
            "equity"
        }
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
            format!("({:+.3})", r.equity - best)
        };
        let w = mwc(r.equity).map_or(String::new(), |w| format!(" {:5.1}%", 100.0 * w));
        text.push_str(&format!(
            "\n{:>3}. {}-ply {name:<22} {:+.3}{w} {diff:>9}  {}",
            i + 1,
            r.ply,
            r.equity,
            probs_text(&r.probs)
        ));
    }
    let v = json!({
        "position_id": position_id::encode(&input.position),
        "dice": dice.to_string(),
        "ply": ply,
        "equity": equity.word(),
        "moves": moves,
    });
    Ok((v, text))
}

/// Probabilities at `ply` and the cube decision: money by Janowski's
/// formulas at the leaves of a cubeful `ply`-ply search, match play by the
/// live-cube MWC model on Kazaross-XG2 applied to the `ply`-ply
/// probabilities.
pub struct CubeAnalysis {
    /// Probabilities for the player on roll.
    pub probs: Probs,
    /// The decision.
    pub decision: money::CubeDecision,
    /// The doubler already owns the cube.
    pub redouble: bool,
    /// Cube efficiency used.
    pub efficiency: f32,
    /// Match play (equities are EMG).
    pub match_play: bool,
}

/// Analyses the cube of `input` at `ply`.
pub fn cube_analysis(ev: &NetEvaluator, input: &Input, ply: u32) -> Result<CubeAnalysis> {
    let pos = input.position;
    let state = &input.state;
    let (probs, decision) = cube_decision(ev, &pos, state, ply)?;
    Ok(CubeAnalysis {
        probs,
        decision,
        redouble: owner_of(state.cube, state.on_roll) == Owner::Me,
        efficiency: money::efficiency(&pos),
        match_play: !state.is_money(),
    })
}

/// `sheshbesh eval`.
pub fn eval(ev: &NetEvaluator, position: Option<&str>, ply: u32, out: Output) -> Result<()> {
    check_ply(ply)?;
    respond(vec![position], out, |parts| eval_answer(ev, parts, ply))
}

/// What `eval` answers for the words `parts` (POSITION).
pub fn eval_answer(ev: &NetEvaluator, parts: &[&str], ply: u32) -> Result<(Value, String)> {
    let input = input_of(parts, 1)?;
    let a = cube_analysis(ev, &input, ply)?;
    let (p, d) = (a.probs, a.decision);
    let action = d.action.words(a.redouble);
    let v = json!({
        "position_id": position_id::encode(&input.position),
        "ply": ply,
        "probs": probs_json(&p),
        "equity": rounded(p.equity(), 6),
        "cubeful": {
            "no_double": rounded(d.no_double, 6),
            "double_take": rounded(d.double_take, 6),
            "double_pass": rounded(d.double_pass, 6),
        },
        "cube_action": action,
        "take_point": rounded(d.take_point, 6),
        "cash_point": rounded(d.cash_point, 6),
        "cube_efficiency": rounded(a.efficiency, 6),
        "match_play": a.match_play,
    });
    let unit = if a.match_play { "EMG" } else { "equity" };
    let text = format!(
        "{}-ply evaluation for the player on roll\n  {}\n  cubeless equity {:+.3}\n  cubeful {unit}: no double {:+.3}, double/take {:+.3}, double/pass {:+.3}\n  proper cube action: {action}",
        ply,
        probs_text(&p),
        p.equity(),
        d.no_double,
        d.double_take,
        d.double_pass
    );
    Ok((v, text))
}

/// `sheshbesh cube`.
pub fn cube_cmd(ev: &NetEvaluator, position: Option<&str>, ply: u32, out: Output) -> Result<()> {
    check_ply(ply)?;
    respond(vec![position], out, |parts| cube_answer(ev, parts, ply))
}

/// What `cube` answers for the words `parts` (POSITION).
pub fn cube_answer(ev: &NetEvaluator, parts: &[&str], ply: u32) -> Result<(Value, String)> {
    let input = input_of(parts, 1)?;
    let a = cube_analysis(ev, &input, ply)?;
    let d = a.decision;
    let action = d.action.words(a.redouble);
    let v = json!({
        "position_id": position_id::encode(&input.position),
        "action": action,
        "no_double": rounded(d.no_double, 6),
        "double_take": rounded(d.double_take, 6),
        "double_pass": rounded(d.double_pass, 6),
        "take_point": rounded(d.take_point, 6),
        "cash_point": rounded(d.cash_point, 6),
        "probs": probs_json(&a.probs),
        "ply": ply,
        "match_play": a.match_play,
    });
    let unit = if a.match_play { "EMG" } else { "equity" };
    let text = format!(
        "Cube analysis ({ply}-ply, {unit})\n  no double     {:+.3}\n  double, take  {:+.3}\n  double, pass  {:+.3}\n  take point {:.1}% (the player on roll's: it drops a double below this win chance)\n  cash point {:.1}% (the player on roll's: the opponent drops above it)\nProper cube action: {action}",
        d.no_double,
        d.double_take,
        d.double_pass,
        100.0 * d.take_point,
        100.0 * d.cash_point
    );
    Ok((v, text))
}
