//! gnubg's own ID test vectors (`data/ids/`, gnubg 1.07's output; see `docs/FORMATS.md`): Position
//! IDs, Match IDs (with the Jacoby bit), FIBS boards and XGIDs, each decoded
//! and re-encoded.

use serde_json::Value;
use sheshbesh_engine::rules::match_state::{CubeState, GameState, MatchState, Player};
use sheshbesh_engine::{
    formats::fibs, formats::match_id, formats::position_id, formats::xgid, Dice, Position,
};

fn load(name: &str) -> Vec<Value> {
    let path = format!("{}/../data/ids/{name}", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// gnubg's `set board simple`: [my bar, points 1..24 (+mine, -theirs), their bar].
fn from_simple(simple: &[i64]) -> Position {
    let mut me = [0u8; 24];
    let mut opp = [0u8; 24];
    for p in 1..=24 {
        let v = simple[p];
        if v > 0 {
            me[p - 1] = v as u8;
        } else if v < 0 {
            opp[24 - p] = (-v) as u8;
        }
    }
    Position::from_sides(&me, simple[0] as u8, &opp, simple[25] as u8).unwrap()
}

fn state_from(d: &Value) -> MatchState {
    let int = |k: &str| d[k].as_i64().unwrap();
    let dice = d["dice"].as_array().unwrap();
    let (a, b) = (
        dice[0].as_u64().unwrap() as u8,
        dice[1].as_u64().unwrap() as u8,
    );
    MatchState {
        length: int("match_len") as u32,
        score: [
            d["score"][0].as_u64().unwrap() as u32,
            d["score"][1].as_u64().unwrap() as u32,
        ],
        crawford: int("crawford") == 1,
        cube: CubeState {
            log2: (int("cube") as u64).trailing_zeros() as u8,
            owner: match int("cube_owner") {
                -1 => None,
                0 => Some(Player::Zero),
                _ => Some(Player::One),
            },
        },
        on_roll: Player::from_bit(int("dice_owner") as u32),
        turn: Player::from_bit(int("turn") as u32),
        doubled: int("doubled") == 1,
        resignation: int("resigned") as u8,
        dice: Dice::new(a, b),
        game_state: GameState::Playing,
        jacoby: int("match_len") == 0 && int("jacoby_off_bit") == 0,
        beavers: false,
    }
}

#[test]
fn gnubg_position_and_match_ids() {
    let vectors = load("gnubg_id_vectors.json");
    assert_eq!(vectors.len(), 12);
    for v in &vectors {
        let name = v["name"].as_str().unwrap();
        let simple: Vec<i64> = v["simple"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_i64().unwrap())
            .collect();
        let pos = from_simple(&simple);
        let pid = v["gnubg_posid"].as_str().unwrap();
        assert_eq!(position_id::encode(&pos), pid, "{name}");
        assert_eq!(position_id::decode(pid).unwrap(), pos, "{name}");

        let state = state_from(&v["decoded"]);
        let mid = v["gnubg_matchid"].as_str().unwrap();
        assert_eq!(match_id::encode(&state), mid, "{name}");
        assert_eq!(match_id::decode(mid).unwrap(), state, "{name}");

        let board = v["fibs"].as_str().unwrap();
        assert_eq!(fibs::encode("root", "gnubg", &pos, &state), board, "{name}");
        let back = fibs::decode(board).unwrap();
        assert_eq!(back.position, pos, "{name}");
        assert_eq!(
            (back.name.as_str(), back.opp_name.as_str()),
            ("root", "gnubg")
        );
        assert_eq!(back.state.cube, state.cube, "{name}");
        assert_eq!(back.state.score, state.score, "{name}");
        assert_eq!(back.state.on_roll, state.on_roll, "{name}");
        assert_eq!(back.state.crawford, state.crawford, "{name}");
    }
}

#[test]
fn xgid_vectors_map_like_gnubg() {
    let vectors = load("xgid_vectors.json");
    assert_eq!(vectors.len(), 11);
    for v in &vectors {
        let text = v["xgid"].as_str().unwrap();
        let x = xgid::decode(text).unwrap();
        assert_eq!(
            position_id::encode(&x.position),
            v["gnubg_posid"].as_str().unwrap(),
            "{text}"
        );
        // gnubg cannot hold a pending double: it steps back to the doubler on roll.
        let mut stepped = x.state;
        stepped.doubled = false;
        stepped.turn = stepped.on_roll;
        assert_eq!(
            match_id::encode(&stepped),
            v["gnubg_matchid"].as_str().unwrap(),
            "{text}"
        );
        if x.state.doubled {
            assert_eq!(
                match_id::encode(&x.state),
                "ARkgAVAAGAAE",
                "pre-step-back ID"
            );
        }
        assert_eq!(
            xgid::encode(&x.position, &x.state, x.max_cube_log2),
            text,
            "round trip"
        );
    }
}

#[test]
fn fixture_positions_round_trip_through_every_format() {
    use std::io::{BufRead, BufReader};
    let path = format!(
        "{}/../data/fixtures/movegen_gnubg.txt.gz",
        env!("CARGO_MANIFEST_DIR")
    );
    let file = std::fs::File::open(path).unwrap();
    let mut n = 0;
    for line in BufReader::new(flate2::read::GzDecoder::new(file))
        .lines()
        .step_by(7)
    {
        let line = line.unwrap();
        let id = line.split_whitespace().nth(1).unwrap();
        let pos = position_id::decode(id).unwrap();
        for on_roll in [Player::Zero, Player::One] {
            let state = MatchState {
                on_roll,
                turn: on_roll,
                ..MatchState::new_match(7)
            };
            let x = xgid::encode(&pos, &state, 10);
            let back = xgid::decode(&x).unwrap();
            assert_eq!(back.position, pos, "{x}");
            assert_eq!(back.state.on_roll, on_roll);
            let f = fibs::encode("a", "b", &pos, &state);
            assert_eq!(fibs::decode(&f).unwrap().position, pos, "{f}");
        }
        n += 1;
    }
    assert!(n > 3000);
}

#[test]
fn invalid_boards_in_ids_are_named_errors() {
    use sheshbesh_engine::Checkers;
    // Both sides on the player's point 1 (the opponent's 24).
    let mut mine = [0u8; 24];
    mine[0] = 1;
    let mut theirs = [0u8; 24];
    theirs[23] = 1;
    let clash = Position {
        me: Checkers::from_points(&mine, 0).unwrap(),
        opp: Checkers::from_points(&theirs, 0).unwrap(),
    };
    let e = position_id::decode(&position_id::encode(&clash)).unwrap_err();
    assert!(e.reason.contains("both sides"), "{e}");
    // 16 checkers: all ones in the key.
    let e = position_id::decode("//////////////").unwrap_err();
    assert!(e.reason.contains("more than 15"), "{e}");
    // Truncated, overlong, not Base64.
    for (id, what) in [
        ("4HPwATDgc/ABM", "14 characters"),
        ("4HPwATDgc/ABMAA", "14 characters"),
        ("4HPwATDgc/AB-A", "not Base64"),
    ] {
        let e = position_id::decode(id).unwrap_err();
        assert!(e.to_string().contains(what), "{id}: {e}");
        assert!(e.to_string().starts_with("bad Position ID"), "{e}");
    }
    for (id, what) in [
        ("cAkAAAAAAAA", "12 characters"),
        ("cAkAAAAAAA!A", "not Base64"),
    ] {
        let e = match_id::decode(id).unwrap_err();
        assert!(e.to_string().contains(what), "{id}: {e}");
    }
    // XGID with 16 checkers for the bottom player.
    let e = xgid::decode("XGID=-b----E-C---eE---c-e----C-:0:0:1:00:0:0:0:0:10").unwrap_err();
    assert!(e.to_string().contains("checkers"), "{e}");
}

#[test]
fn fibs_numbers_out_of_range_are_refused_not_read_as_others() {
    let state = MatchState::new_match(7);
    let board = fibs::encode("a", "b", &Position::start(), &state);
    let mut fields: Vec<String> = board.split(':').map(str::to_string).collect();
    // A point's count (field 19, five of the opponent's checkers as gnubg
    // writes them): i64::MIN had wrapped to no checkers at all.
    assert_eq!(fields[18], "-5", "{board}");
    for bad in ["-9223372036854775808", "16", "-16"] {
        fields[18] = bad.to_string();
        let err = fibs::decode(&fields.join(":")).unwrap_err().to_string();
        assert!(err.contains("at most 15 checkers"), "{bad}: {err}");
    }
    fields[18] = "-5".to_string();
    // The turn (field 33): a colour, or 0.
    assert_eq!(fields[32], "1", "{board}");
    for bad in ["5", "-256"] {
        fields[32] = bad.to_string();
        let err = fibs::decode(&fields.join(":")).unwrap_err().to_string();
        assert!(err.contains("turn"), "{bad}: {err}");
    }
    fields[32] = "1".to_string();
    assert_eq!(
        fibs::decode(&fields.join(":")).unwrap().position,
        Position::start()
    );
}
