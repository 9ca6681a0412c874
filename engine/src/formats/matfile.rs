//! Jellyfish `.mat` match files, in the dialects of `docs/FORMATS.md`:
//! reading them into games of actions, each with its line number.
//!
//! Lines are split into the two players' cells by tokens, not columns
//! (writers use different widths): a cell starts at a roll (`52:`) or a
//! cube word (`Doubles`, `Beavers`, `Takes`, `Drops`, `Wins`, `Losses`), so
//! a line's cells are the runs between such starts. The move text itself is
//! read later, against the position, by [`crate::formats::notation::parse_move`].

use std::fmt;

use crate::formats::notation::parse_move;
use crate::rules::dice::Dice;
use crate::rules::movegen::{legal_moves, Candidate};
use crate::rules::position::Position;

/// Where and why a file could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MatError {
    /// 1-based line number.
    pub line: usize,
    /// What was wrong.
    pub reason: String,
}

impl fmt::Display for MatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.reason)
    }
}

impl std::error::Error for MatError {}

/// What a player did in one cell.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// Rolled and played (`text` as written; empty, `Cannot Move` or
    /// `????` are kept for the replay to interpret).
    Roll {
        /// The dice, in the order written.
        dice: Dice,
        /// The play as written.
        text: String,
    },
    /// Doubled (or redoubled) to this cube value.
    Double(u32),
    /// Beavered to this cube value.
    Beaver(u32),
    /// Took.
    Take,
    /// Dropped.
    Drop,
    /// "Wins N point(s)" (N is not reliable: see FORMATS.md).
    Wins(u32),
    /// "Losses N point(s)" (BackgammonGalaxy).
    Losses(u32),
}

/// One action with its player (0 = left column) and line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// 0 for the left column's player, 1 for the right's.
    pub player: usize,
    /// 1-based line number.
    pub line: usize,
    /// The action.
    pub action: Action,
}

/// One game of the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Game {
    /// The number after "Game".
    pub number: u32,
    /// Player names, left column first.
    pub names: [String; 2],
    /// Scores before the game, left column first.
    pub scores: [u32; 2],
    /// Line of the "Game" header.
    pub line: usize,
    /// What happened, in order.
    pub entries: Vec<Entry>,
}

/// A whole match file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MatchFile {
    /// Match length; 0 for a money session.
    pub length: u32,
    /// Header tags (`; [Key "value"]`).
    pub tags: Vec<(String, String)>,
    /// The games.
    pub games: Vec<Game>,
}

impl MatchFile {
    /// A tag's value, case-insensitively by key.
    pub fn tag(&self, key: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(key))
            .map(|(_, v)| v.as_str())
    }
}

fn err(line: usize, reason: impl Into<String>) -> MatError {
    MatError {
        line,
        reason: reason.into(),
    }
}

fn parse_tag(text: &str) -> Option<(String, String)> {
    let t = text.trim_start_matches([';', '#']).trim();
    let inner = t.strip_prefix('[')?.strip_suffix(']')?;
    let (key, rest) = inner.split_once('"')?;
    let value = rest.strip_suffix('"')?;
    Some((key.trim().to_string(), value.to_string()))
}

/// Reads "N point match" (case-insensitive).
fn parse_header(text: &str) -> Option<u32> {
    let lower = text.trim().to_ascii_lowercase();
    let n = lower.strip_suffix("point match")?.trim();
    n.parse().ok()
}

/// The score line: `name0 : s0   name1 : s1` (names may hold spaces or be
/// empty).
fn parse_scores(text: &str, line: usize) -> Result<([String; 2], [u32; 2]), MatError> {
    let bad = || {
        err(
            line,
            format!(
                "expected a score line \"name : score   name : score\", found \"{}\"",
                text.trim()
            ),
        )
    };
    // Writers put spaces around the colons after the names, so a colon
    // inside a name ("x:1") is not taken for one; other files split at
    // the first colon.
    let spaced: Vec<usize> = text
        .match_indices(':')
        .map(|(i, _)| i)
        .filter(|&i| {
            (i == 0 || text[..i].ends_with(char::is_whitespace))
                && text[i + 1..].starts_with(char::is_whitespace)
        })
        .collect();
    let at = match spaced.as_slice() {
        [first, _] => *first,
        _ => text.find(':').ok_or_else(bad)?,
    };
    let (left, rest) = (&text[..at], &text[at + 1..]);
    let rest = rest.trim_start();
    let digits = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    let s0: u32 = rest[..digits].parse().map_err(|_| bad())?;
    let (name1, s1) = rest[digits..].rsplit_once(':').ok_or_else(bad)?;
    let s1: u32 = s1.trim().parse().map_err(|_| bad())?;
    Ok((
        [left.trim().to_string(), name1.trim().to_string()],
        [s0, s1],
    ))
}

/// Whether `tok` opens a cell.
fn opens_cell(tok: &str) -> bool {
    let lower = tok.to_ascii_lowercase();
    is_roll(tok)
        || matches!(
            lower.as_str(),
            "doubles" | "beavers" | "raccoons" | "takes" | "drops" | "wins" | "losses"
        )
}

fn is_roll(tok: &str) -> bool {
    let b = tok.as_bytes();
    b.len() == 3 && b[2] == b':' && (b'1'..=b'6').contains(&b[0]) && (b'1'..=b'6').contains(&b[1])
}

/// Splits a move line (after any "N)") into cells, each with the column
/// (byte offset) it starts at.
fn cells(text: &str) -> Vec<(usize, String)> {
    let mut out: Vec<(usize, String)> = Vec::new();
    let mut pos = 0;
    for tok in text.split_whitespace() {
        let at = pos + text[pos..].find(tok).expect("token of this text");
        pos = at + tok.len();
        // A move number repeated inside a line ("24)") is no part of a cell.
        let number = tok
            .strip_suffix(')')
            .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()));
        if number && !out.is_empty() {
            continue;
        }
        if opens_cell(tok) || out.is_empty() {
            out.push((at, tok.to_string()));
        } else if let Some(last) = out.last_mut() {
            last.1.push(' ');
            last.1.push_str(tok);
        }
    }
    out
}

fn number_after(words: &[&str], line: usize, what: &str) -> Result<u32, MatError> {
    words
        .get(1)
        .filter(|w| **w == "=>")
        .and(words.get(2))
        .or(words.get(1))
        .and_then(|w| w.parse().ok())
        .ok_or_else(|| err(line, format!("{what} without a number")))
}

/// The cube value after a double or beaver: a power of two from 2 up.
fn cube_value(words: &[&str], line: usize, what: &str) -> Result<u32, MatError> {
    match number_after(words, line, what)? {
        v if v >= 2 && v.is_power_of_two() => Ok(v),
        v => Err(err(
            line,
            format!("{what} => {v}: a cube value is a power of two from 2 up"),
        )),
    }
}

fn parse_cell(cell: &str, line: usize) -> Result<Action, MatError> {
    let words: Vec<&str> = cell.split_whitespace().collect();
    let first = words.first().copied().unwrap_or("");
    if is_roll(first) {
        let b = first.as_bytes();
        let dice = Dice::new(b[0] - b'0', b[1] - b'0').expect("1..6 checked");
        return Ok(Action::Roll {
            dice,
            text: words[1..].join(" "),
        });
    }
    match first.to_ascii_lowercase().as_str() {
        "doubles" => Ok(Action::Double(cube_value(&words, line, "Doubles")?)),
        "beavers" | "raccoons" => Ok(Action::Beaver(cube_value(&words, line, "Beavers")?)),
        "takes" => Ok(Action::Take),
        "drops" => Ok(Action::Drop),
        "wins" => Ok(Action::Wins(number_after(&words, line, "Wins")?)),
        "losses" => Ok(Action::Losses(number_after(&words, line, "Losses")?)),
        _ => Err(err(
            line,
            format!(
                "cannot read \"{cell}\": expected a roll like \"52: 13/8 13/11\" or a cube action"
            ),
        )),
    }
}

/// Reads a `.mat` file's text (a UTF-8 BOM is skipped) into games of
/// actions, without judging whether they could have been played:
/// [`crate::formats::story::read`] reads and judges.
pub fn parse(text: &str) -> Result<MatchFile, MatError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut tags = Vec::new();
    let mut length = None;
    let mut games: Vec<Game> = Vec::new();
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l)).peekable();
    while let Some((n, l)) = lines.next() {
        let t = l.trim();
        if t.is_empty() {
            continue;
        }
        if length.is_none() {
            if t.starts_with(';') || t.starts_with('#') {
                if let Some(tag) = parse_tag(t) {
                    tags.push(tag);
                }
                continue;
            }
            length = Some(
                parse_header(t)
                    .ok_or_else(|| err(n, format!("expected \"N point match\", found \"{t}\"")))?,
            );
            continue;
        }
        if let Some(other) = parse_header(t) {
            return Err(err(
                n,
                format!("a second match header (\"{other} point match\"): a file holds one match"),
            ));
        }
        if t.starts_with(';') || t.starts_with('#') {
            continue; // comments and XG's "; Set Pos=" (not supported: ignored)
        }
        let lower = t.to_ascii_lowercase();
        if let Some(rest) = lower.strip_prefix("game") {
            let number = rest
                .trim()
                .parse()
                .map_err(|_| err(n, format!("bad game header \"{t}\"")))?;
            let (sn, sl) = lines
                .next()
                .ok_or_else(|| err(n, "a game header without a score line"))?;
            let (names, scores) = parse_scores(sl, sn)?;
            games.push(Game {
                number,
                names,
                scores,
                line: n,
                entries: Vec::new(),
            });
            continue;
        }
        let game = games
            .last_mut()
            .ok_or_else(|| err(n, format!("\"{t}\" before the first game")))?;
        // Drop the move number "12)".
        let body = match l.find(')') {
            Some(i) if l[..i].trim().chars().all(|c| c.is_ascii_digit()) => &l[i + 1..],
            _ => l,
        };
        let offset = l.len() - body.len();
        let found = cells(body);
        // Beyond two cells a line may only add result lines (Galaxy writes
        // "24)  Losses 2 point ... Wins 2 point and the match" after a
        // roll); those are placed by their column.
        let is_result = |c: &str| {
            let w = c
                .split_whitespace()
                .next()
                .unwrap_or("")
                .to_ascii_lowercase();
            w == "wins" || w == "losses"
        };
        if found.len() > 2 && !found[2..].iter().all(|(_, c)| is_result(c)) {
            return Err(err(n, format!("more than two cells in \"{t}\"")));
        }
        // The right column starts well to the right; a lone cell far from
        // the line's start is the right player's.
        let right_from = found.iter().map(|(at, _)| *at).nth(1).unwrap_or(usize::MAX);
        for (k, (at, cell)) in found.iter().enumerate() {
            let player = if found.len() == 2 {
                usize::from(*at >= right_from)
            } else if found.len() > 2 && k == 0 {
                0
            } else if offset + *at >= 20 {
                1
            } else {
                0
            };
            game.entries.push(Entry {
                player,
                line: n,
                action: parse_cell(cell, n)?,
            });
        }
    }
    Ok(MatchFile {
        length: length.ok_or_else(|| err(1, "no \"N point match\" header"))?,
        tags,
        games,
    })
}

/// Writes a match file in gnubg's own layout (its `export match mat`):
/// the tags, the `N point match` header, and per game the score line and
/// numbered lines with player 0's cell in the left column and player 1's
/// from column 33. Reading the text back gives the same games.
pub fn write(file: &MatchFile) -> String {
    let mut out = String::new();
    for (k, v) in &file.tags {
        out.push_str(&format!("; [{k} \"{v}\"]\n"));
    }
    out.push_str(&format!("\n {} point match\n", file.length));
    for game in &file.games {
        out.push_str(&format!("\n Game {}\n", game.number));
        let left = format!(" {} : {}", game.names[0], game.scores[0]);
        out.push_str(&format!(
            "{left:<33}{} : {}\n",
            game.names[1], game.scores[1]
        ));
        let mut n = 0;
        let mut line: [Option<String>; 2] = [None, None];
        let flush = |line: &mut [Option<String>; 2], n: &mut u32, out: &mut String| {
            if line[0].is_none() && line[1].is_none() {
                return;
            }
            *n += 1;
            let l = line[0].take().unwrap_or_default();
            let r = line[1].take().unwrap_or_default();
            // gnubg's columns ("%3d) %-27s "), and always a space between
            // the cells, so a long play never runs into the next roll.
            let text = format!("{:>3}) {l:<27} {r}", *n);
            out.push_str(text.trim_end());
            out.push('\n');
        };
        for e in &game.entries {
            let p = e.player.min(1);
            let cell = match &e.action {
                Action::Roll { dice, text } => format!("{dice}: {text}"),
                Action::Double(v) => format!(" Doubles => {v}"),
                Action::Beaver(v) => format!(" Beavers => {v}"),
                Action::Take => " Takes".to_string(),
                Action::Drop => " Drops".to_string(),
                Action::Wins(v) | Action::Losses(v) => {
                    flush(&mut line, &mut n, &mut out);
                    let s = if *v == 1 { "" } else { "s" };
                    // In the column of the player whose line it is, so a
                    // loser's `Losses` line stays one (a `Wins` line after
                    // it outranks it).
                    let word = if matches!(e.action, Action::Wins(_)) {
                        "Wins"
                    } else {
                        "Losses"
                    };
                    let indent = if p == 0 { 6 } else { 34 };
                    out.push_str(&format!("{:indent$}{word} {v} point{s}\n", ""));
                    continue;
                }
            };
            // A cell starts a new line when its column is taken, or (for the
            // left column) when the right one already has something.
            if line[p].is_some() || (p == 0 && line[1].is_some()) {
                flush(&mut line, &mut n, &mut out);
            }
            line[p] = Some(cell);
        }
        flush(&mut line, &mut n, &mut out);
    }
    out
}

/// One checker play of a replayed game.
#[derive(Clone, Debug, PartialEq)]
pub struct Play {
    /// 1-based line number.
    pub line: usize,
    /// The mover (0 = left column).
    pub player: usize,
    /// The board before the roll, from the mover's side.
    pub before: Position,
    /// The dice.
    pub dice: Dice,
    /// The legal play the text describes.
    pub played: Candidate,
}

/// A game's board as its entries are read in order: the one replay of a
/// match file that annotation, the tests and [`replay`] share. The board
/// faces the player of the entry being read ([`Replay::face`]), and a roll's
/// written play is resolved to the legal play it names ([`Replay::resolve`])
/// before it is made ([`Replay::advance`]).
#[derive(Clone, Debug)]
pub struct Replay<'g> {
    game: &'g Game,
    board: Position,
    /// Who acted last (the board faces them).
    turn: Option<usize>,
}

impl<'g> Replay<'g> {
    /// The opening position of `game`.
    pub fn new(game: &'g Game) -> Replay<'g> {
        Replay {
            game,
            board: Position::start(),
            turn: None,
        }
    }

    /// The board from `player`'s side, turned when the other player acted
    /// last.
    pub fn face(&mut self, player: usize) -> Position {
        if self.turn.is_some_and(|t| t != player) {
            self.board = self.board.swapped();
        }
        self.turn = Some(player);
        self.board
    }

    /// The legal play that `text`, written after a roll of `dice` by the
    /// player faced, names: `None` when the player resigned after rolling
    /// (`????`, or no play written while one was possible; with no legal
    /// play an empty text is the dance). An unreadable or illegal play is
    /// an error naming `line` and the legal plays.
    pub fn resolve(
        &self,
        line: usize,
        dice: Dice,
        text: &str,
    ) -> Result<Option<Candidate>, MatError> {
        let t = text.trim();
        if t == "????" {
            return Ok(None);
        }
        if t.is_empty() {
            let legal = legal_moves(&self.board, dice);
            return Ok(match legal.as_slice() {
                [only] => Some(*only),
                _ => None,
            });
        }
        let player = self.turn.unwrap_or(0).min(1);
        parse_move(&self.board, dice, t)
            .map(Some)
            .map_err(|err| MatError {
                line,
                reason: format!(
                    "game {}, {}: {err}",
                    self.game.number, self.game.names[player]
                ),
            })
    }

    /// Makes `played`, a play of the player faced; the board stays on
    /// their side until the next [`Replay::face`].
    pub fn advance(&mut self, played: &Candidate) {
        self.board = played.position;
    }
}

/// Replays a game's checker plays through the rules engine ([`Replay`]).
/// A play that is unreadable or illegal is an error naming its line and
/// the legal plays. The replay stops at a resignation (`????`, or an empty
/// play when a play was possible) or when a side has borne off all 15.
pub fn replay(game: &Game) -> Result<Vec<Play>, MatError> {
    let mut out = Vec::new();
    let mut r = Replay::new(game);
    for e in &game.entries {
        let Action::Roll { dice, text } = &e.action else {
            continue;
        };
        let before = r.face(e.player);
        let Some(played) = r.resolve(e.line, *dice, text)? else {
            break; // rolled, then resigned
        };
        out.push(Play {
            line: e.line,
            player: e.player,
            before,
            dice: *dice,
            played,
        });
        r.advance(&played);
        if played.position.me.off() == 15 {
            break;
        }
    }
    Ok(out)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    const SAMPLE: &str = "\u{feff}; [Site \"BackgammonGalaxy\"]\n; [Crawford \"On\"]\n\n3 point match\n\n Game 1\n lasse : 0                       mojo : 0\n  1)                             32: 24/21 13/11\n  2) 31: 8/5 6/5                 54: 13/8 13/9\n  3) 66:                         Doubles => 2\n  4)  Takes                      52: Cannot Move\n  5) 43: 25/22 6/2*\n  6)  Doubles => 4                Drops\n      Wins 2 point\n";

    #[test]
    fn writing_and_reading_back_agree() {
        let file = parse(SAMPLE).unwrap();
        let text = write(&file);
        let back = parse(&text).unwrap();
        assert_eq!(back.length, file.length);
        assert_eq!(back.tags, file.tags);
        assert_eq!(back.games.len(), file.games.len());
        for (a, b) in back.games.iter().zip(&file.games) {
            let strip = |g: &Game| -> Vec<(usize, Action)> {
                g.entries
                    .iter()
                    .map(|e| (e.player, e.action.clone()))
                    .collect()
            };
            assert_eq!(strip(a), strip(b));
            assert_eq!(a.names, b.names);
            assert_eq!(a.scores, b.scores);
        }
        assert!(text.contains("  1)                             32: 24/21 13/11\n"));
    }

    #[test]
    fn reads_tags_games_and_cells() {
        let m = parse(SAMPLE).unwrap();
        assert_eq!(m.length, 3);
        assert_eq!(m.tag("site"), Some("BackgammonGalaxy"));
        let g = &m.games[0];
        assert_eq!(g.names, ["lasse".to_string(), "mojo".to_string()]);
        let acts: Vec<(usize, &Action)> = g.entries.iter().map(|e| (e.player, &e.action)).collect();
        assert_eq!(acts[0].0, 1);
        assert!(matches!(acts[0].1, Action::Roll { text, .. } if text == "24/21 13/11"));
        assert_eq!(acts[1].0, 0);
        assert!(matches!(acts[3].1, Action::Roll { text, .. } if text.is_empty()));
        assert_eq!(acts[4], (1, &Action::Double(2)));
        assert_eq!(acts[5], (0, &Action::Take));
        assert!(matches!(acts[6].1, Action::Roll { text, .. } if text == "Cannot Move"));
        assert_eq!(acts[8], (0, &Action::Double(4)));
        assert_eq!(acts[9], (1, &Action::Drop));
        assert_eq!(acts[10], (0, &Action::Wins(2)));
    }

    #[test]
    fn errors_name_the_line() {
        let e = parse("3 point match\n Game 1\n a : 0   b : 0\n  1) 77: 13/6\n").unwrap_err();
        assert_eq!(e.line, 4);
        let e = parse("; only tags\n").unwrap_err();
        assert!(e.reason.contains("point match"));
        let e = parse("3 point match\n Game 1\n nonsense\n").unwrap_err();
        assert_eq!(e.line, 3);
    }

    #[test]
    fn a_long_left_cell_is_written_apart_from_the_right_and_read_back() {
        let long = "24/19 21/16 19/14 16/11* 6/1(2)";
        let text =
            format!("5 point match\n Game 1\n a : 0   b : 0\n  1) 55: {long}   65: 25/20 20/14*\n");
        let m = parse(&text).unwrap();
        let written = write(&m);
        let back = parse(&written).unwrap();
        let actions = |m: &MatchFile| -> Vec<(usize, Action)> {
            m.games[0]
                .entries
                .iter()
                .map(|e| (e.player, e.action.clone()))
                .collect()
        };
        assert_eq!(actions(&back), actions(&m), "{written}");
        assert!(written.contains("6/1(2) 65:"), "{written}");
    }

    #[test]
    fn rolls_are_written_high_die_first() {
        // Read as rolled (a file may write 13), written as match files
        // write a roll: 31.
        let m = parse("3 point match\n Game 1\n a : 0   b : 0\n  1) 13: 8/5 6/5\n").unwrap();
        let written = write(&m);
        assert!(written.contains(" 31: 8/5 6/5"), "{written}");
        assert!(!written.contains("13:"), "{written}");
    }

    #[test]
    fn a_colon_inside_a_name_is_not_the_score_separator() {
        let m = parse("3 point match\n Game 1\n x:1 : 0    y:2 : 1\n  1) 31: 8/5 6/5\n").unwrap();
        assert_eq!(m.games[0].names, ["x:1".to_string(), "y:2".to_string()]);
        assert_eq!(m.games[0].scores, [0, 1]);
    }

    #[test]
    fn empty_names_are_read() {
        let m = parse("1 point match\n Game 1\n  : 0    lasse : 0\n  1) 31: 8/5 6/5\n").unwrap();
        assert_eq!(m.games[0].names[0], "");
        assert_eq!(m.games[0].names[1], "lasse");
    }

    /// The real match files with extension `ext` in `data/matches` (a
    /// missing folder fails the test: the repository ships it).
    pub(crate) fn real_files(ext: &str) -> Vec<std::path::PathBuf> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/matches");
        let read = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        let mut files: Vec<_> = read
            .flatten()
            .map(|f| f.path())
            .filter(|p| p.extension().is_some_and(|e| e == ext))
            .collect();
        files.sort();
        files
    }

    /// Parses every real file of `ext` with `parse` and replays every game.
    pub(crate) fn replay_real_files(
        ext: &str,
        parse: fn(&str) -> Result<MatchFile, MatError>,
    ) -> usize {
        let files = real_files(ext);
        for p in &files {
            let text = std::fs::read_to_string(p).unwrap();
            let m = parse(&text).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            assert!(!m.games.is_empty(), "{}", p.display());
            for g in &m.games {
                let plays = replay(g).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
                assert!(!plays.is_empty(), "{} game {}", p.display(), g.number);
            }
        }
        files.len()
    }

    #[test]
    fn every_real_file_parses_and_replays() {
        let n = replay_real_files("mat", parse);
        assert!(n >= 15, "{n} files");
    }
}
