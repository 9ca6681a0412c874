//! The ASCII board diagram of `show`.
//!
//! X is at the bottom, O at the top, as gnubg draws them. `show` numbers
//! the points from the side of the player on roll, as gnubg and hints do
//! (O's 1 is top right when O is on roll); `play` numbers them from the
//! human's side. Home board bottom right by default, bottom left on
//! request.

use sheshbesh_engine::{
    formats::match_id, formats::position_id, formats::xgid, MatchState, Player, Position,
};

/// Rows drawn per half; taller stacks show their count in the last row.
const ROWS: usize = 5;

fn cell(count: u8, row: usize, mark: char) -> String {
    let c = count as usize;
    if c > ROWS && row == ROWS - 1 {
        format!("{c:>2} ")
    } else if c > row {
        format!(" {mark} ")
    } else {
        "   ".to_string()
    }
}

/// Checkers on X's point `p` as (count, mark).
fn at(pos: &Position, p: usize) -> (u8, char) {
    let mine = pos.me.at(p);
    if mine > 0 {
        (mine, 'X')
    } else {
        (pos.opp.at(25 - p), 'O')
    }
}

/// One text row of a half board: twelve points with the bar in the middle.
fn half_row(pos: &Position, points: &[usize], bar: u8, bar_mark: char, row: usize) -> String {
    let mut s = String::from(" |");
    for (i, &p) in points.iter().enumerate() {
        if i == 6 {
            s.push_str(&format!("|{}|", cell(bar, row, bar_mark)));
        }
        let (c, m) = at(pos, p);
        s.push_str(&cell(c, row, m));
    }
    s.push('|');
    s
}

/// Names and the status line of a drawing.
pub struct Labels {
    /// The bottom player (X), whose side `pos` is seen from.
    pub x: String,
    /// The top player (O).
    pub o: String,
    /// The line beside the bottom row (who rolled what).
    pub status: String,
    /// Number the points from O's side (O's 1 is X's 24), as gnubg does
    /// when O is on roll.
    pub o_numbers: bool,
}

/// Draws the board with pip counts, cube and score.
pub fn draw(pos: &Position, state: &MatchState, home_left: bool) -> String {
    // As gnubg draws it: X is player 1, at the bottom, and O player 0,
    // whoever is on roll; the status says who acts and what waits.
    let mark = |p: Player| if p == Player::One { "X" } else { "O" };
    let roller = mark(state.on_roll);
    let status = if state.doubled {
        format!(
            "{roller} doubles (cube to {}): {} to take or drop",
            2 * state.cube.value(),
            mark(state.turn)
        )
    } else if state.resignation > 0 {
        let kind = match state.resignation {
            1 => "single game",
            2 => "gammon",
            _ => "backgammon",
        };
        format!(
            "{} offers to resign a {kind}: {} to accept or reject",
            mark(state.turn.other()),
            mark(state.turn)
        )
    } else {
        match state.dice {
            Some(d) => format!("{roller} rolled {d}"),
            None => format!("{roller} on roll"),
        }
    };
    let seen = if state.on_roll == Player::One {
        *pos
    } else {
        pos.swapped()
    };
    let drawing = draw_labelled(
        &seen,
        state,
        Player::One,
        home_left,
        &Labels {
            x: "X".into(),
            o: "O".into(),
            status,
            o_numbers: state.on_roll == Player::Zero,
        },
    );
    // The XGID (as the encoder writes it, `XGID=` first) after the IDs.
    let xgid = xgid::encode(pos, state, 10);
    drawing.replacen('\n', &format!("\n {xgid}\n"), 1)
}

/// Draws `pos` from `viewer`'s side (X, at the bottom), with names and a status line.
pub fn draw_labelled(
    pos: &Position,
    state: &MatchState,
    viewer: Player,
    home_left: bool,
    labels: &Labels,
) -> String {
    let (top, bottom): (Vec<usize>, Vec<usize>) = if home_left {
        ((13..=24).rev().collect(), (1..=12).collect())
    } else {
        ((13..=24).collect(), (1..=12).rev().collect())
    };
    let label = |pts: &[usize]| -> String {
        let mut s = String::from("+");
        for (i, &p) in pts.iter().enumerate() {
            if i == 6 {
                s.push_str("-----");
            }
            let p = if labels.o_numbers { 25 - p } else { p };
            s.push_str(&format!("{p:-^3}"));
        }
        s.push('+');
        s
    };
    let (pips_me, pips_opp) = pos.pips();
    let money = state.length == 0;
    let me_player = viewer;
    let score = |p: Player| state.score[p.index()];
    let cube_line = match state.cube.owner {
        _ if state.crawford => "Cube: none (Crawford game)".to_string(),
        None => format!("Cube: {} (centred)", state.cube.value()),
        Some(p) if p == me_player => {
            format!("Cube: {} (owned by {})", state.cube.value(), labels.x)
        }
        Some(_) => format!("Cube: {} (owned by {})", state.cube.value(), labels.o),
    };
    let mut out = Vec::new();
    out.push(format!(
        " Position ID: {}   Match ID: {}",
        position_id::encode(&if viewer == state.on_roll {
            *pos
        } else {
            pos.swapped()
        }),
        match_id::encode(state)
    ));
    let side = |mark: char, pips: u32, off: u8, p: Player| {
        let name = if mark == 'X' { &labels.x } else { &labels.o };
        let who = if name.len() == 1 {
            format!("{mark}")
        } else {
            format!("{mark} {name}")
        };
        if money {
            format!("{who}: pips {pips}, off {off}")
        } else {
            format!("{who}: pips {pips}, off {off}, score {}", score(p))
        }
    };
    out.push(format!(
        " {}     {}",
        label(&top),
        side('O', pips_opp, pos.opp.off(), me_player.other())
    ));
    for row in 0..ROWS {
        let mut s = half_row(pos, &top, pos.opp.bar(), 'O', row);
        if row == 0 && !money {
            s.push_str(&format!("     {}-point match", state.length));
        }
        out.push(s);
    }
    out.push(format!(" |{:18}|BAR|{:18}|     {cube_line}", "", ""));
    for row in (0..ROWS).rev() {
        let mut s = half_row(pos, &bottom, pos.me.bar(), 'X', row);
        if row == 0 {
            s.push_str(&format!("     {}", labels.status));
        }
        out.push(s);
    }
    out.push(format!(
        " {}     {}",
        label(&bottom),
        side('X', pips_me, pos.me.off(), me_player)
    ));
    out.join("\n")
}
