//! Property tests of the rules: checker conservation, pips, blocked points,
//! maximal dice, and parsers that never panic on any input and accept only
//! what some game can reach (IDs, XGIDs and FIBS boards with any field
//! changed), reading back what they write.

use proptest::prelude::*;
use sheshbesh_engine::{
    formats::fibs,
    formats::match_id,
    formats::notation,
    formats::position_id,
    formats::xgid,
    rules::match_state::{GameState, MatchState},
    rules::movegen,
    Dice, Position,
};

/// A random legal position: each side's 15 checkers scattered over its bar,
/// points and tray without sharing a point with the other side.
fn arb_position() -> impl Strategy<Value = Position> {
    (
        proptest::collection::vec(0usize..26, 15),
        proptest::collection::vec(0usize..26, 15),
        0u8..4,
    )
        .prop_filter_map("valid board", |(mine, theirs, style)| {
            let mut me = [0u8; 24];
            let mut opp = [0u8; 24];
            let (mut me_bar, mut opp_bar) = (0u8, 0u8);
            // style 1 herds both sides home (bear-offs), style 2 crowds bars.
            let squeeze = |i: usize| if style == 1 { i % 7 } else { i };
            for &i in &mine {
                match squeeze(i) {
                    0 => {}
                    25 => me_bar += 1,
                    p if style == 2 && p > 20 => me_bar += 1,
                    p => me[p - 1] += 1,
                }
            }
            for &i in &theirs {
                match squeeze(i) {
                    0 => {}
                    25 => opp_bar += 1,
                    p => {
                        if me[24 - p] > 0 {
                            return None;
                        }
                        opp[p - 1] += 1
                    }
                }
            }
            Position::from_sides(&me, me_bar, &opp, opp_bar).ok()
        })
}

fn arb_dice() -> impl Strategy<Value = Dice> {
    (1u8..=6, 1u8..=6).prop_map(|(a, b)| Dice::new(a, b).unwrap())
}

/// Boards after one step of `die` from `pos`, by the plain rules.
fn naive_steps(pos: &Position, die: u8) -> Vec<Position> {
    let d = die as usize;
    let me = pos.me.counts();
    let sources: Vec<usize> = if me[25] > 0 {
        vec![25]
    } else {
        (1..=24).filter(|&p| me[p] > 0).collect()
    };
    let home = (7..=25).all(|p| me[p] == 0);
    let mut out = Vec::new();
    for from in sources {
        let to = from as i32 - d as i32;
        if to >= 1 && pos.opp.at(25 - to as usize) >= 2 {
            continue;
        }
        if to <= 0 && (!home || (to < 0 && (from + 1..=24).any(|p| me[p] > 0))) {
            continue;
        }
        let mut next = [0u8; 24];
        next.copy_from_slice(&me[1..25]);
        let mut bar = me[25];
        if from == 25 {
            bar -= 1
        } else {
            next[from - 1] -= 1
        }
        let mut opp = [0u8; 24];
        opp.copy_from_slice(&pos.opp.counts()[1..25]);
        let mut opp_bar = pos.opp.bar();
        if to >= 1 {
            next[to as usize - 1] += 1;
            if opp[24 - to as usize] == 1 {
                opp[24 - to as usize] = 0;
                opp_bar += 1;
            }
        }
        out.push(Position::from_sides(&next, bar, &opp, opp_bar).unwrap());
    }
    out
}

/// Maximal dice and the resulting boards, by brute force over die orders.
fn reference(pos: &Position, dice: Dice) -> (usize, std::collections::HashSet<Position>) {
    let orders: Vec<Vec<u8>> = if dice.is_double() {
        vec![vec![dice.high(); 4]]
    } else {
        vec![vec![dice.high(), dice.low()], vec![dice.low(), dice.high()]]
    };
    // (dice used, pips of dice used, board)
    let mut leaves: Vec<(usize, u32, Position)> = Vec::new();
    fn walk(
        p: &Position,
        order: &[u8],
        used: usize,
        pips: u32,
        leaves: &mut Vec<(usize, u32, Position)>,
    ) {
        let next = if used < order.len() {
            naive_steps(p, order[used])
        } else {
            vec![]
        };
        if next.is_empty() {
            leaves.push((used, pips, *p));
        }
        for n in next {
            walk(&n, order, used + 1, pips + u32::from(order[used]), leaves);
        }
    }
    for o in &orders {
        walk(pos, o, 0, 0, &mut leaves);
    }
    let best = leaves.iter().map(|l| (l.0, l.1)).max().unwrap();
    let boards = leaves
        .iter()
        .filter(|l| (l.0, l.1) == best)
        .map(|l| l.2)
        .collect();
    (best.0, boards)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn moves_conserve_checkers_and_respect_the_rules(pos in arb_position(), dice in arb_dice()) {
        let moves = movegen::legal_moves(&pos, dice);
        prop_assert!(!moves.is_empty());
        let max_dice = moves.iter().map(|c| c.mv.len()).max().unwrap();
        let mut seen = std::collections::HashSet::new();
        for c in &moves {
            let after = c.position;
            // Conservation: 15 a side, counting the tray.
            prop_assert_eq!(after.me.counts().iter().map(|&n| u32::from(n)).sum::<u32>(), 15);
            prop_assert_eq!(after.opp.counts().iter().map(|&n| u32::from(n)).sum::<u32>(), 15);
            // Pips drop by exactly the dice played, bear-offs from below the die
            // counting only the distance; hits add pips only to the opponent.
            let played: u32 = c.mv.steps().map(|s| u32::from(s.from - s.to)).sum();
            prop_assert_eq!(pos.me.pips() - after.me.pips(), played);
            prop_assert!(played <= dice.pips());
            for s in c.mv.steps() {
                // No landing on a point the opponent holds with two or more.
                if s.to != 0 {
                    prop_assert!(pos.opp.at(25 - s.to as usize) < 2, "{} lands on a made point", c.mv);
                }
            }
            // Every play uses the maximal number of dice, and all are distinct.
            prop_assert_eq!(c.mv.len(), max_dice);
            prop_assert!(seen.insert(after));
            prop_assert!(after.validate().is_ok());
            // Its notation reads back to the same play.
            if !c.mv.is_empty() {
                let back = notation::parse_move(&pos, dice, &c.mv.to_string()).unwrap();
                prop_assert_eq!(back.position, after);
            }
        }
        // The played dice are maximal and the set of boards is exactly the
        // naive reference's (every order of every die, then the rules' filter).
        let (ref_dice, ref_boards) = reference(&pos, dice);
        prop_assert_eq!(max_dice, ref_dice);
        let ours: std::collections::HashSet<Position> = moves.iter().map(|c| c.position).collect();
        prop_assert_eq!(ours, ref_boards);
        // Position IDs round-trip.
        prop_assert_eq!(position_id::decode(&position_id::encode(&pos)).unwrap(), pos);
    }

    #[test]
    fn parsers_never_panic(s in "\\PC{0,80}") {
        let _ = position_id::decode(&s);
        let _ = match_id::decode(&s);
        let _ = xgid::decode(&s);
        let _ = fibs::decode(&s);
        let _ = s.parse::<Dice>();
        let _ = notation::parse_move(&Position::start(), Dice::new(3, 1).unwrap(), &s);
    }

    #[test]
    fn parsers_never_panic_on_near_misses(s in "[A-Za-z0-9+/:=\\-]{10,70}") {
        let _ = position_id::decode(&s);
        let _ = match_id::decode(&s);
        let _ = xgid::decode(&s);
        let _ = fibs::decode(&s);
    }

    #[test]
    fn base64_ids_of_any_bits_never_panic(bytes in proptest::collection::vec(any::<u8>(), 10)) {
        use base64::Engine;
        let id = base64::engine::general_purpose::STANDARD_NO_PAD.encode(&bytes);
        if let Ok(pos) = position_id::decode(&id) {
            prop_assert_eq!(position_id::encode(&pos), id);
        }
        let mid = base64::engine::general_purpose::STANDARD_NO_PAD.encode(&bytes[..9]);
        let _ = match_id::decode(&mid);
    }

    /// Every Match ID that reads is a state some game can reach, and
    /// writing it reads back to the same state.
    #[test]
    fn match_ids_that_read_are_possible_and_read_back(bytes in proptest::collection::vec(any::<u8>(), 9)) {
        use base64::Engine;
        let id = base64::engine::general_purpose::STANDARD_NO_PAD.encode(&bytes);
        if let Ok(m) = match_id::decode(&id) {
            prop_assert_eq!(m.impossibility(), None, "{}", id);
            let again = match_id::decode(&match_id::encode(&m)).unwrap();
            let roll = |s: &MatchState| s.dice.map(Dice::high_first);
            prop_assert_eq!(roll(&again), roll(&m), "{}", id);
            prop_assert_eq!(MatchState { dice: None, ..again }, MatchState { dice: None, ..m }, "{}", id);
        }
    }

    /// XGIDs with fields in and out of range: what reads is possible and
    /// reads back from what we write.
    #[test]
    fn xgids_that_read_are_possible_and_read_back(
        pos in arb_position(),
        cube in -1i64..12, cube_pos in -2i64..3, turn in -2i64..3,
        dice in prop::sample::select(vec!["00", "31", "66", "D", "B", "R", "70", "x"]),
        s1 in -1i64..13, s2 in -1i64..13, rule in -1i64..4, len in -1i64..13, max in -1i64..12,
    ) {
        let board = xgid::encode(&pos, &MatchState::default(), 10);
        let board = board.trim_start_matches("XGID=").split(':').next().unwrap().to_string();
        let text = format!("XGID={board}:{cube}:{cube_pos}:{turn}:{dice}:{s1}:{s2}:{rule}:{len}:{max}");
        if let Ok(x) = xgid::decode(&text) {
            prop_assert_eq!(x.state.impossibility_on(&x.position), None, "{}", text);
            let again = xgid::decode(&xgid::encode(&x.position, &x.state, x.max_cube_log2)).unwrap();
            prop_assert_eq!((again.position, again.state), (x.position, x.state), "{}", text);
        }
    }

    /// FIBS boards with any integer in any field: what reads is possible
    /// (15 checkers a side on the board, bar and tray) and reads back.
    #[test]
    fn fibs_boards_that_read_are_possible_and_read_back(
        pos in arb_position(),
        field in 0usize..50,
        value in prop::sample::select(vec![i64::MIN, -256, -16, -1, 0, 1, 2, 5, 15, 16, 25, 256, 1 << 32, i64::MAX]),
    ) {
        let mut state = MatchState::new_match(5);
        state.dice = Dice::new(3, 1);
        let good = fibs::encode("You", "Opp", &pos, &state);
        let mut tokens: Vec<String> = good.split(':').map(str::to_string).collect();
        tokens[3 + field] = value.to_string();
        let text = tokens.join(":");
        if let Ok(b) = fibs::decode(&text) {
            prop_assert_eq!(b.state.impossibility_on(&b.position), None, "{}", text);
            for side in [&b.position.me, &b.position.opp] {
                let all: u32 = side.counts().iter().map(|&c| u32::from(c)).sum();
                prop_assert_eq!(all, 15, "{}", text);
            }
            // Turn 0 (gnubg's "no one's turn", read as a finished game) is
            // the one game state a board carries; we write whose turn it is.
            let again = fibs::decode(&fibs::encode(&b.name, &b.opp_name, &b.position, &b.state)).unwrap();
            let in_play = |s: MatchState| MatchState { game_state: GameState::Playing, ..s };
            prop_assert_eq!((again.position, in_play(again.state)), (b.position, in_play(b.state)), "{}", text);
        }
    }

    #[test]
    fn xgid_fields_out_of_range_are_errors(cube in -3i64..20, pos_field in -3i64..3, turn in -3i64..3, len in -2i64..40, s1 in -2i64..45, s2 in -2i64..45) {
        let text = format!("XGID=-b----E-C---eE---c-e----B-:{cube}:{pos_field}:{turn}:00:{s1}:{s2}:0:{len}:10");
        let _ = xgid::decode(&text);
    }
}
