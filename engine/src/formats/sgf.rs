//! gnubg SGF (`GM[6]`) matches, read into the same [`MatchFile`] as `.mat`
//! files so that one replay and one analysis serve both.
//!
//! Per `docs/FORMATS.md` (SGF): one game tree per game; the root's
//! `MI[length:L][game:g][ws:s0][bs:s1]` gives the match length, game (from
//! 0) and scores, `PW`/`PB` the players (White is player 0); a move node is
//! `W[54xtmh]` (the roll, then from/to pairs, `a`..`x` = White's points
//! 1..24 = Black's 24..1, `y` the bar, `z` off), or `double`, `take`,
//! `drop`, `beaver`. Only the main line of a tree is read; analysis
//! properties are ignored.

use crate::formats::matfile::{Action, Entry, Game, MatError, MatchFile};
use crate::rules::dice::Dice;

/// One node: its properties (identifier, values) and its line.
struct Node {
    line: usize,
    props: Vec<(String, Vec<String>)>,
}

impl Node {
    fn get(&self, key: &str) -> Option<&[String]> {
        self.props
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_slice())
    }
}

fn err(line: usize, reason: impl Into<String>) -> MatError {
    MatError {
        line,
        reason: reason.into(),
    }
}

/// Splits the text into game trees, each the main line's nodes.
fn trees(text: &str) -> Result<Vec<Vec<Node>>, MatError> {
    let chars: Vec<char> = text.chars().collect();
    let mut line = 1;
    let mut i = 0;
    let mut depth = 0usize;
    // The main line is every node up to the first ')' of a game (a tree's
    // first variation, recursively); later variations are skipped.
    let mut main_done = false;
    let mut games: Vec<Vec<Node>> = Vec::new();
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\n' => line += 1,
            '(' => {
                depth += 1;
                if depth == 1 {
                    games.push(Vec::new());
                    main_done = false;
                }
            }
            ')' => {
                if depth == 0 {
                    return Err(err(line, "unbalanced ')'"));
                }
                main_done = true;
                depth -= 1;
            }
            ';' => {
                if depth == 0 {
                    return Err(err(line, "a node outside any game tree"));
                }
                let node_line = line;
                let mut props = Vec::new();
                i += 1;
                loop {
                    while i < chars.len() && chars[i].is_whitespace() {
                        if chars[i] == '\n' {
                            line += 1;
                        }
                        i += 1;
                    }
                    if i >= chars.len() || !chars[i].is_ascii_uppercase() {
                        break;
                    }
                    let start = i;
                    while i < chars.len() && chars[i].is_ascii_alphabetic() {
                        i += 1;
                    }
                    let key: String = chars[start..i].iter().collect();
                    let mut values = Vec::new();
                    loop {
                        while i < chars.len() && chars[i].is_whitespace() {
                            if chars[i] == '\n' {
                                line += 1;
                            }
                            i += 1;
                        }
                        if i >= chars.len() || chars[i] != '[' {
                            break;
                        }
                        i += 1;
                        let mut v = String::new();
                        loop {
                            match chars.get(i) {
                                None => {
                                    return Err(err(line, format!("property {key} is not closed")))
                                }
                                Some(']') => break,
                                Some('\\') => {
                                    if let Some(&n) = chars.get(i + 1) {
                                        v.push(n);
                                    }
                                    i += 2;
                                    continue;
                                }
                                Some(&ch) => {
                                    if ch == '\n' {
                                        line += 1;
                                    }
                                    v.push(ch);
                                }
                            }
                            i += 1;
                        }
                        i += 1;
                        values.push(v);
                    }
                    if values.is_empty() {
                        return Err(err(line, format!("property {key} has no value")));
                    }
                    props.push((key, values));
                }
                if !main_done {
                    if let Some(g) = games.last_mut() {
                        g.push(Node {
                            line: node_line,
                            props,
                        });
                    }
                }
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    if depth != 0 {
        return Err(err(line, "a game tree is not closed"));
    }
    Ok(games)
}

/// A point letter in the mover's own numbering (25 = bar, 0 = off).
fn point(ch: char, white: bool, line: usize) -> Result<u8, MatError> {
    match ch {
        'y' => Ok(25),
        'z' => Ok(0),
        'a'..='x' => {
            let w = ch as u8 - b'a' + 1;
            Ok(if white { w } else { 25 - w })
        }
        _ => Err(err(
            line,
            format!("'{ch}' is not a point (a..x, y = bar, z = off)"),
        )),
    }
}

fn move_action(value: &str, white: bool, line: usize) -> Result<Action, MatError> {
    match value.to_ascii_lowercase().as_str() {
        "double" => return Ok(Action::Double(0)),
        "take" => return Ok(Action::Take),
        "drop" | "pass" => return Ok(Action::Drop),
        "beaver" => return Ok(Action::Beaver(0)),
        _ => {}
    }
    let chars: Vec<char> = value.chars().collect();
    if chars.len() < 2 || !chars.len().is_multiple_of(2) {
        return Err(err(
            line,
            format!("move \"{value}\": expected a roll then from/to pairs"),
        ));
    }
    let die = |c: char| {
        c.to_digit(10)
            .filter(|d| (1..=6).contains(d))
            .map(|d| d as u8)
            .ok_or_else(|| err(line, format!("move \"{value}\": '{c}' is not a die")))
    };
    let dice = Dice::new(die(chars[0])?, die(chars[1])?)
        .ok_or_else(|| err(line, format!("move \"{value}\": bad dice")))?;
    let mut steps = Vec::new();
    for pair in chars[2..].chunks(2) {
        let (f, t) = (point(pair[0], white, line)?, point(pair[1], white, line)?);
        steps.push(format!("{f}/{t}"));
    }
    Ok(Action::Roll {
        dice,
        text: steps.join(" "),
    })
}

fn mi_field(root: &Node, key: &str) -> Option<u32> {
    root.get("MI")?.iter().find_map(|v| {
        let (k, n) = v.split_once(':')?;
        (k.trim() == key).then(|| n.trim().parse().ok())?
    })
}

/// Refuses an `MI` field given but not a count (`length:-5` would
/// otherwise read as a money session), naming the root's line.
fn check_mi(root: &Node) -> Result<(), MatError> {
    for v in root.get("MI").into_iter().flatten() {
        if let Some((k, n)) = v.split_once(':') {
            let k = k.trim();
            if ["length", "game", "ws", "bs"].contains(&k) && n.trim().parse::<u32>().is_err() {
                return Err(err(root.line, format!("MI[{v}]: {k} is not a count")));
            }
        }
    }
    Ok(())
}

/// Reads an SGF match (one or more game trees).
pub fn parse(text: &str) -> Result<MatchFile, MatError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let trees = trees(text)?;
    if trees.is_empty() {
        return Err(err(1, "no game tree: not an SGF file"));
    }
    let mut length = None;
    let mut tags = Vec::new();
    let mut games = Vec::new();
    for (k, nodes) in trees.iter().enumerate() {
        let Some(root) = nodes.first() else {
            return Err(err(1, format!("game tree {} is empty", k + 1)));
        };
        if root.get("GM").and_then(|v| v.first()).map(String::as_str) != Some("6") {
            return Err(err(root.line, "not a backgammon SGF (GM[6])"));
        }
        check_mi(root)?;
        for key in ["AE", "AW", "AB"] {
            if root.get(key).is_some() || nodes.iter().any(|n| n.get(key).is_some()) {
                return Err(err(
                    root.line,
                    "games set up from a position (AE/AW/AB) are not supported",
                ));
            }
        }
        let len = mi_field(root, "length").unwrap_or(0);
        if *length.get_or_insert(len) != len {
            return Err(err(
                root.line,
                format!(
                    "game tree {} is of a {len}-point match, the file's first of a {}-point one",
                    k + 1,
                    length.unwrap_or(0)
                ),
            ));
        }
        let name = |key: &str| {
            root.get(key)
                .and_then(|v| v.first())
                .cloned()
                .unwrap_or_default()
        };
        if k == 0 {
            if let Some(ru) = root.get("RU").and_then(|v| v.first()) {
                for rule in ru.split(':') {
                    match rule {
                        "Crawford" => tags.push(("Crawford".into(), "On".into())),
                        "Jacoby" => tags.push(("Jacoby".into(), "On".into())),
                        _ => {}
                    }
                }
            }
        }
        let mut entries = Vec::new();
        for node in &nodes[1..] {
            for (key, white) in [("W", true), ("B", false)] {
                if let Some(v) = node.get(key) {
                    let action = move_action(&v[0], white, node.line)?;
                    entries.push(Entry {
                        player: usize::from(!white),
                        line: node.line,
                        action,
                    });
                }
            }
        }
        // The result, as a `Wins` line: how a resignation is recorded (a
        // finished game's own end is computed from the board and cube).
        if let Some(re) = root.get("RE").and_then(|v| v.first()) {
            // By characters: a value may open with any letter, not only
            // an ASCII one.
            let mut chars = re.chars();
            let side = chars.next().map_or(String::new(), String::from);
            let side = side.as_str();
            let rest = chars.as_str();
            let points = rest
                .trim_start_matches('+')
                .trim_end_matches(['R', 'r'])
                .parse::<u32>();
            if let (Ok(n), "W" | "B") = (points, side) {
                entries.push(Entry {
                    player: usize::from(side == "B"),
                    line: root.line,
                    action: Action::Wins(n),
                });
            }
        }
        games.push(Game {
            number: mi_field(root, "game").map_or(k as u32 + 1, |g| g + 1),
            names: [name("PW"), name("PB")],
            scores: [
                mi_field(root, "ws").unwrap_or(0),
                mi_field(root, "bs").unwrap_or(0),
            ],
            line: root.line,
            entries,
        });
    }
    Ok(MatchFile {
        length: length.unwrap_or(0),
        tags,
        games,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_match_length_that_is_no_count_is_refused() {
        let e = parse("(;FF[4]GM[6]MI[length:-5]\n;B[43lplo]\n)").unwrap_err();
        assert!(e.reason.contains("length"), "{e}");
    }

    #[test]
    fn a_result_opening_with_any_letter_is_read_without_a_panic() {
        let m = parse("(;FF[4]GM[6]MI[length:5]RE[\u{e9}+1]\n;B[43lplo]\n)").unwrap();
        assert!(m.games[0]
            .entries
            .iter()
            .all(|e| !matches!(e.action, Action::Wins(_))));
        let m = parse("(;FF[4]GM[6]MI[length:5]RE[B+2R]\n;B[43lplo]\n)").unwrap();
        assert!(m.games[0]
            .entries
            .iter()
            .any(|e| e.action == Action::Wins(2)));
    }
    use crate::formats::matfile::replay;

    #[test]
    fn reads_moves_and_cube_actions() {
        let m = parse("(;FF[4]GM[6]MI[length:5][game:0][ws:0][bs:0]PW[a]PB[b]RU[Crawford]\n;B[43lplo]\n;W[42hdfd]\n;B[double]\n;W[take]\n)").unwrap();
        assert_eq!(m.length, 5);
        let g = &m.games[0];
        assert_eq!(g.names, ["a".to_string(), "b".to_string()]);
        assert!(matches!(&g.entries[0].action, Action::Roll { text, .. } if text == "13/9 13/10"));
        assert_eq!(g.entries[0].player, 1);
        assert!(matches!(&g.entries[1].action, Action::Roll { text, .. } if text == "8/4 6/4"));
        assert_eq!(g.entries[3].action, Action::Take);
        assert_eq!(g.entries[3].line, 5);
        assert_eq!(replay(g).unwrap().len(), 2);
    }

    #[test]
    fn bad_input_is_a_located_error() {
        assert!(parse("not sgf").is_err());
        let e = parse("(;GM[6]\n;W[9zab])").unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.reason.contains("not a die"));
        assert!(parse("(;GM[6];W[42hd").is_err());
        assert!(parse("(;GM[1];W[42hdfd])")
            .unwrap_err()
            .reason
            .contains("GM[6]"));
        let e = parse("(;GM[6]\n;W[42h!fd])").unwrap_err();
        assert!(e.reason.contains("not a point"));
    }

    #[test]
    fn real_sgf_files_replay() {
        let n = crate::formats::matfile::tests::replay_real_files("sgf", parse);
        assert!(n >= 3, "{n} files");
    }
}
