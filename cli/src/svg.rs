//! Board diagrams as SVG, drawn by our own code for the HTML reports and
//! the browser board: the board from the decider's side (home board
//! bottom right, or bottom left as some players set their boards), its
//! dice and cube, with the played and the best play drawn as arrows.

use std::fmt::Write;

use sheshbesh_engine::rules::position::BAR;
use sheshbesh_engine::{Dice, Move, Position};

const W: f32 = 430.0;
const H: f32 = 300.0;
const MARGIN: f32 = 10.0;
const PT: f32 = 28.0; // point width
const BAR_W: f32 = 30.0;
const CHECKER: f32 = 12.5; // radius

/// x of the centre of the decider's point `p` (1..24), or of the bar (25)
/// and the tray (0), the home board on the right.
fn x_of(p: u8) -> f32 {
    let col = |i: f32| MARGIN + PT * (i + 0.5);
    match p {
        0 => W - MARGIN - 15.0,
        25 => MARGIN + 6.0 * PT + BAR_W / 2.0,
        1..=6 => col(12.0 - f32::from(p)) + BAR_W,
        7..=12 => col(12.0 - f32::from(p)),
        13..=18 => col(f32::from(p) - 13.0),
        _ => col(f32::from(p) - 13.0) + BAR_W,
    }
}

/// [`x_of`] with the home board on the left when `left`: the picture
/// mirrored, its words not.
fn x_at(p: u8, left: bool) -> f32 {
    mirror(x_of(p), left)
}

/// The x of a drawing with the home board on the right, mirrored when
/// the home board is on the left.
fn mirror(x: f32, left: bool) -> f32 {
    if left {
        W - x
    } else {
        x
    }
}

/// Whether point `p` sits on the bottom half.
fn bottom(p: u8) -> bool {
    (1..=12).contains(&p)
}

/// y of the `k`-th checker (from the edge) on point `p`.
fn y_of(p: u8, k: u32) -> f32 {
    let k = k.min(4) as f32;
    if bottom(p) {
        H - MARGIN - CHECKER - 2.0 * CHECKER * k
    } else {
        MARGIN + CHECKER + 2.0 * CHECKER * k
    }
}

fn checker(svg: &mut String, x: f32, y: f32, light: bool, label: Option<u8>) {
    let (fill, stroke) = if light {
        ("#f4efe4", "#333")
    } else {
        ("#2b2b2b", "#000")
    };
    let _ = write!(
        svg,
        r##"<circle cx="{x:.1}" cy="{y:.1}" r="{CHECKER:.1}" fill="{fill}" stroke="{stroke}"/>"##
    );
    if let Some(n) = label {
        let color = if light { "#000" } else { "#fff" };
        let _ = write!(
            svg,
            r##"<text x="{x:.1}" y="{:.1}" font-size="11" text-anchor="middle" fill="{color}">{n}</text>"##,
            y + 4.0
        );
    }
}

fn stack(svg: &mut String, p: u8, n: u8, light: bool, left: bool) {
    for k in 0..u32::from(n.min(5)) {
        let label = (k == 4 && n > 5).then_some(n);
        checker(svg, x_at(p, left), y_of(p, k), light, label);
    }
}

/// The centre of the landing or starting spot of a step, for arrows.
fn spot(p: u8, count: u8, left: bool) -> (f32, f32) {
    let x = x_at(p, left);
    match p {
        0 => (x, H / 2.0 + 40.0),
        25 => (x, H / 2.0 + 30.0),
        _ => (x, y_of(p, u32::from(count.min(5)))),
    }
}

/// Arrows of a play's steps. Checkers borne off land one below the other
/// in the tray, so their arrows do not run into one line.
fn arrows(svg: &mut String, pos: &Position, mv: Move, style: (&str, &str), left: bool) {
    let (color, marker) = style;
    let mut off = 0.0;
    for s in mv.steps() {
        let (x1, y1) = spot(s.from, pos.me.at(s.from as usize).saturating_sub(1), left);
        let (x2, mut y2) = spot(s.to, pos.me.at(s.to as usize), left);
        if s.to == 0 {
            y2 += off;
            off += 12.0;
        }
        let _ = write!(
            svg,
            r##"<line x1="{x1:.1}" y1="{y1:.1}" x2="{x2:.1}" y2="{y2:.1}" stroke="{color}" stroke-width="3" opacity="0.85" marker-end="url(#{marker})"/>"##
        );
    }
}

/// Where the cube sits: with the player at the bottom (the decider), at
/// the top, or in the middle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CubePlace {
    Bottom,
    Middle,
    Top,
}

/// What a diagram shows besides the checkers.
pub struct Diagram<'a> {
    /// The id its parts are named by, unique in the page.
    pub id: &'a str,
    /// The decider's checkers are the light ones.
    pub mover_light: bool,
    /// The dice rolled, drawn on the decider's half.
    pub dice: Option<Dice>,
    /// The cube's value and place (none in the Crawford game).
    pub cube: Option<(u32, CubePlace)>,
    /// The play made, in red.
    pub played: Option<Move>,
    /// The best play, in green.
    pub best: Option<Move>,
    /// Invisible click targets over each point (`data-point` 1 to 24,
    /// the decider's numbering) and the bar (25), for a board that is
    /// set up by clicking, and the tray (0), for plays made by clicking.
    pub spots: bool,
    /// The decider's home board on the left (else on the right).
    pub home_left: bool,
}

/// A die showing `n` at (x, y), its top left corner.
fn die(svg: &mut String, x: f32, y: f32, n: u8) {
    const S: f32 = 22.0;
    let _ = write!(
        svg,
        r##"<rect x="{x:.1}" y="{y:.1}" width="{S}" height="{S}" rx="4" fill="#fffdf5" stroke="#333"/>"##
    );
    let (l, c, r) = (x + 5.5, x + S / 2.0, x + S - 5.5);
    let (t, m, b) = (y + 5.5, y + S / 2.0, y + S - 5.5);
    let pips: &[(f32, f32)] = match n {
        1 => &[(c, m)],
        2 => &[(l, t), (r, b)],
        3 => &[(l, t), (c, m), (r, b)],
        4 => &[(l, t), (r, t), (l, b), (r, b)],
        5 => &[(l, t), (r, t), (c, m), (l, b), (r, b)],
        _ => &[(l, t), (r, t), (l, m), (r, m), (l, b), (r, b)],
    };
    for (px, py) in pips {
        let _ = write!(
            svg,
            r##"<circle cx="{px:.1}" cy="{py:.1}" r="2.3" fill="#222"/>"##
        );
    }
}

/// The board before a decision, from the decider's side.
pub fn board(pos: &Position, d: &Diagram<'_>) -> String {
    let mover_light = d.mover_light;
    let left = d.home_left;
    let x_of = |p: u8| x_at(p, left);
    let (played_marker, best_marker) = (format!("{}-played", d.id), format!("{}-best", d.id));
    let mut svg = String::new();
    let _ = write!(
        svg,
        r##"<svg xmlns="http://www.w3.org/2000/svg" class="board" width="{W}" height="{H}" viewBox="0 0 {W} {H}" role="img">"##
    );
    let _ = write!(
        svg,
        concat!(
            r##"<defs><marker id="{}" viewBox="0 0 10 10" refX="8" refY="5" markerWidth="5" markerHeight="5" orient="auto"><path d="M0,0L10,5L0,10z" fill="#c0392b"/></marker>"##,
            r##"<marker id="{}" viewBox="0 0 10 10" refX="8" refY="5" markerWidth="5" markerHeight="5" orient="auto"><path d="M0,0L10,5L0,10z" fill="#1e8449"/></marker></defs>"##
        ),
        played_marker, best_marker
    );
    let inside = 12.0 * PT + BAR_W;
    let _ = write!(
        svg,
        "<rect x=\"0\" y=\"0\" width=\"{W}\" height=\"{H}\" fill=\"#6b4226\"/><rect x=\"{:.1}\" y=\"{MARGIN}\" width=\"{inside:.1}\" height=\"{:.1}\" fill=\"#d8c39a\"/>",
        if left { W - MARGIN - inside } else { MARGIN },
        H - 2.0 * MARGIN
    );
    let _ = write!(
        svg,
        "<rect x=\"{:.1}\" y=\"{MARGIN}\" width=\"{BAR_W}\" height=\"{:.1}\" fill=\"#6b4226\"/>",
        x_of(25) - BAR_W / 2.0,
        H - 2.0 * MARGIN
    );
    for p in 1..=24u8 {
        let x = x_of(p);
        let (base, tip) = if bottom(p) {
            (H - MARGIN, H - MARGIN - 5.0 * CHECKER * 2.0 + 10.0)
        } else {
            (MARGIN, MARGIN + 5.0 * CHECKER * 2.0 - 10.0)
        };
        let fill = if p % 2 == 0 { "#a0522d" } else { "#f0e0c0" };
        let _ = write!(
            svg,
            r##"<polygon points="{:.1},{base:.1} {:.1},{base:.1} {x:.1},{tip:.1}" fill="{fill}" stroke="#7a5230" stroke-width="0.5"/>"##,
            x - PT / 2.0,
            x + PT / 2.0
        );
        let label_y = if bottom(p) { H - 1.5 } else { 8.5 };
        let _ = write!(
            svg,
            r##"<text x="{x:.1}" y="{label_y:.1}" font-size="8" text-anchor="middle" fill="#f0e0c0">{p}</text>"##
        );
    }
    for p in 1..=24u8 {
        stack(&mut svg, p, pos.me.at(p as usize), mover_light, left);
        // The opponent's point q is the decider's 25 - q.
        stack(&mut svg, p, pos.opp.at(25 - p as usize), !mover_light, left);
    }
    for k in 0..pos.me.at(BAR) {
        checker(
            &mut svg,
            x_of(25),
            H / 2.0 + 30.0 + 6.0 * f32::from(k),
            mover_light,
            None,
        );
    }
    for k in 0..pos.opp.at(BAR) {
        checker(
            &mut svg,
            x_of(25),
            H / 2.0 - 30.0 - 6.0 * f32::from(k),
            !mover_light,
            None,
        );
    }
    let _ = write!(
        svg,
        r##"<text x="{:.1}" y="{:.1}" font-size="11" text-anchor="middle" fill="#f0e0c0">off {}</text><text x="{:.1}" y="{:.1}" font-size="11" text-anchor="middle" fill="#f0e0c0">off {}</text>"##,
        x_of(0),
        H - 20.0,
        pos.me.off(),
        x_of(0),
        25.0,
        pos.opp.off()
    );
    if let Some(dice) = d.dice {
        // On the decider's (right) half, between the rows, as rolled.
        let x = (x_of(19) + x_of(24)) / 2.0 - 25.0;
        die(&mut svg, x, H / 2.0 - 11.0, dice.high());
        die(&mut svg, x + 28.0, H / 2.0 - 11.0, dice.low());
    }
    if let Some((value, place)) = d.cube {
        let y = match place {
            CubePlace::Bottom => H - 70.0,
            CubePlace::Middle => H / 2.0 - 13.0,
            CubePlace::Top => 44.0,
        };
        let x = x_of(0) - 13.0;
        // A centred cube shows 64, as on a real board.
        let shown = if place == CubePlace::Middle && value == 1 {
            64
        } else {
            value
        };
        let _ = write!(
            svg,
            r##"<g class="cube"><rect x="{x:.1}" y="{y:.1}" width="26" height="26" rx="3" fill="#fffdf5" stroke="#333"/><text x="{:.1}" y="{:.1}" font-size="12" font-weight="bold" text-anchor="middle" fill="#222">{shown}</text></g>"##,
            x + 13.0,
            y + 17.5
        );
    }
    if let Some(m) = d.played {
        arrows(&mut svg, pos, m, ("#c0392b", &played_marker), left);
    }
    if let Some(m) = d.best {
        arrows(&mut svg, pos, m, ("#1e8449", &best_marker), left);
    }
    if d.spots {
        spots(&mut svg, left);
    }
    svg.push_str("</svg>");
    svg
}

/// The click targets of [`Diagram::spots`]: a point's half of the board,
/// the bar's whole height, the tray's lower half (where the decider's
/// checkers go off).
fn spots(svg: &mut String, left: bool) {
    let half = (H - 2.0 * MARGIN) / 2.0;
    for p in 1..=24u8 {
        let y = if bottom(p) { H / 2.0 } else { MARGIN };
        let _ = write!(
            svg,
            r##"<rect class="spot" data-point="{p}" x="{:.1}" y="{y:.1}" width="{PT}" height="{half:.1}" fill="transparent"/>"##,
            x_at(p, left) - PT / 2.0
        );
    }
    let _ = write!(
        svg,
        r##"<rect class="spot" data-point="25" x="{:.1}" y="{MARGIN}" width="{BAR_W}" height="{:.1}" fill="transparent"/>"##,
        x_at(25, left) - BAR_W / 2.0,
        H - 2.0 * MARGIN
    );
    let tray = W - 2.0 * MARGIN - 12.0 * PT - BAR_W;
    let _ = write!(
        svg,
        r##"<rect class="spot" data-point="0" x="{:.1}" y="{:.1}" width="{tray:.1}" height="{half:.1}" fill="transparent"/>"##,
        x_at(0, left) - tray / 2.0,
        H / 2.0
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(id: &str) -> Diagram<'_> {
        Diagram {
            id,
            mover_light: true,
            dice: None,
            cube: None,
            played: None,
            best: None,
            spots: false,
            home_left: false,
        }
    }

    #[test]
    fn the_opening_board_has_thirty_checkers_and_is_well_formed() {
        let svg = board(&Position::start(), &plain("a"));
        assert_eq!(svg.matches("<circle").count(), 30);
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"));
        assert_eq!(svg.matches("<polygon").count(), 24);
        assert!(!svg.contains("class=\"cube\""));
    }

    #[test]
    fn dice_and_cube_are_drawn_and_ids_are_the_diagrams() {
        let dice: Dice = "31".parse().unwrap();
        let play = sheshbesh_engine::rules::movegen::legal_moves(&Position::start(), dice)[0].mv;
        let d = Diagram {
            dice: Some(dice),
            cube: Some((2, CubePlace::Top)),
            played: Some(play),
            best: Some(play),
            ..plain("g1m2")
        };
        let svg = board(&Position::start(), &d);
        // 30 checkers and 3 + 1 pips.
        assert_eq!(svg.matches("<circle").count(), 34);
        assert!(svg.contains("id=\"g1m2-played\"") && svg.contains("id=\"g1m2-best\""));
        assert!(svg.contains("url(#g1m2-played)") && svg.contains("url(#g1m2-best)"));
        assert!(!svg.contains("id=\"red\""));
        assert!(svg.contains(">2</text></g>"), "{svg}");
    }

    #[test]
    fn checkers_borne_off_get_arrows_of_their_own() {
        // Two checkers on the 6 point and one on the 5, 66 to play.
        let (mut me, mut opp) = ([0u8; 24], [0u8; 24]);
        (me[5], me[4], opp[5]) = (2, 1, 15);
        let pos = Position::from_sides(&me, 0, &opp, 0).unwrap();
        let dice: Dice = "66".parse().unwrap();
        let play = sheshbesh_engine::rules::movegen::legal_moves(&pos, dice)
            .into_iter()
            .map(|c| c.mv)
            .max_by_key(|m| m.steps().filter(|s| s.to == 0).count())
            .unwrap();
        let d = Diagram {
            played: Some(play),
            ..plain("x")
        };
        let svg = board(&pos, &d);
        let ends: std::collections::HashSet<String> = svg
            .split("<line ")
            .skip(1)
            .map(|l| {
                l.split("y2=\"")
                    .nth(1)
                    .unwrap()
                    .split('"')
                    .next()
                    .unwrap()
                    .to_string()
            })
            .collect();
        assert_eq!(ends.len(), 3, "{svg}");
    }

    #[test]
    fn spots_cover_every_point_and_the_bar_only_when_asked() {
        let plain_board = board(&Position::start(), &plain("a"));
        assert!(!plain_board.contains("class=\"spot\""));
        let d = Diagram {
            spots: true,
            ..plain("a")
        };
        let svg = board(&Position::start(), &d);
        let points: Vec<&str> = svg
            .split("data-point=\"")
            .skip(1)
            .map(|s| s.split('"').next().unwrap())
            .collect();
        let expected: Vec<String> = (1..=25).chain([0]).map(|p: u32| p.to_string()).collect();
        assert_eq!(points, expected);
    }

    #[test]
    fn home_on_the_left_mirrors_the_picture_but_not_its_words() {
        let right = board(&Position::start(), &plain("a"));
        let left = board(
            &Position::start(),
            &Diagram {
                home_left: true,
                ..plain("a")
            },
        );
        assert_ne!(left, right);
        assert!(x_at(1, true) < x_at(6, true) && x_at(0, true) < x_at(1, true));
        assert!((x_at(25, true) + x_at(25, false) - W).abs() < 1e-3);
        // Every checker has its mirror image, and the point numbers read
        // as before.
        let circles = |svg: &str| -> Vec<(i32, i32)> {
            let mut v: Vec<(i32, i32)> = svg
                .split("<circle cx=\"")
                .skip(1)
                .map(|c| {
                    let mut n = c.split('"').filter_map(|t| t.parse::<f32>().ok());
                    let (x, y) = (n.next().unwrap(), n.next().unwrap());
                    ((x * 10.0).round() as i32, (y * 10.0).round() as i32)
                })
                .collect();
            v.sort();
            v
        };
        let mirrored: Vec<(i32, i32)> = {
            let mut v: Vec<(i32, i32)> = circles(&right)
                .into_iter()
                .map(|(x, y)| ((W * 10.0) as i32 - x, y))
                .collect();
            v.sort();
            v
        };
        assert_eq!(circles(&left), mirrored);
        assert!(left.contains(">24</text>") && !left.contains("scale(-1"));
    }

    #[test]
    fn points_are_laid_out_home_bottom_right() {
        assert!(x_of(1) > x_of(6) && x_of(6) > x_of(7) && x_of(12) < x_of(7));
        assert!(x_of(13) < x_of(18) && x_of(24) > x_of(19));
        assert!(bottom(1) && !bottom(24));
    }
}
