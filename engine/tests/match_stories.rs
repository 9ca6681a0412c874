//! Generated impossible match stories, one family at a time: each test
//! takes a real match file of `data/matches`, breaks its story in one way
//! at a place proptest picks, writes it back as text and checks that the
//! reader refuses it with a line of the file and the reason. Unbroken
//! files, and files with lines dropped or repeated at random, never panic,
//! and whatever is read writes back to the same games.

use std::path::PathBuf;

use proptest::prelude::*;
use proptest::sample::Index;
use sheshbesh_engine::formats::matfile::{self, Action, Entry, MatError, MatchFile};
use sheshbesh_engine::formats::story;

/// The real files (`.mat` only: SGF records doubles without their value,
/// which `.mat` text needs).
fn corpus() -> Vec<(PathBuf, MatchFile)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data/matches");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|f| f.path())
        .filter(|p| p.extension().is_some_and(|e| e == "mat"))
        .collect();
    paths.sort();
    assert!(paths.len() >= 15, "{} match files", paths.len());
    paths
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            let m = story::read(&text, false).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            (p, m)
        })
        .collect()
}

fn files() -> &'static [(PathBuf, MatchFile)] {
    static FILES: std::sync::OnceLock<Vec<(PathBuf, MatchFile)>> = std::sync::OnceLock::new();
    FILES.get_or_init(corpus)
}

/// Writes `m` as `.mat` text and reads it back with its story checked.
fn reread(m: &MatchFile) -> (String, Result<MatchFile, MatError>) {
    let text = matfile::write(m);
    let back = story::read(&text, false);
    (text, back)
}

/// Asserts that `m` is refused at a line of its text for a reason that
/// holds one of `why`.
fn refused(m: &MatchFile, why: &[&str]) -> Result<(), TestCaseError> {
    let (text, back) = reread(m);
    let err = match back {
        Ok(_) => return Err(TestCaseError::fail(format!("accepted:\n{text}"))),
        Err(e) => e,
    };
    let lines = text.lines().count();
    prop_assert!(
        (1..=lines).contains(&err.line),
        "line {} of {lines}: {err}",
        err.line
    );
    prop_assert!(
        why.iter().any(|w| err.reason.contains(w)),
        "{err}\nexpected one of {why:?}"
    );
    Ok(())
}

/// (file, game, entry) places in the corpus where `pick` holds.
fn places(pick: impl Fn(&MatchFile, usize, usize) -> bool) -> Vec<(usize, usize, usize)> {
    let mut out = Vec::new();
    for (f, (_, m)) in files().iter().enumerate() {
        for (g, game) in m.games.iter().enumerate() {
            for i in 0..game.entries.len() {
                if pick(m, g, i) {
                    out.push((f, g, i));
                }
            }
        }
    }
    assert!(!out.is_empty(), "no place in the corpus for this family");
    out
}

fn is_roll(e: &Entry) -> bool {
    matches!(e.action, Action::Roll { .. })
}

fn entry(player: usize, action: Action) -> Entry {
    Entry {
        player,
        line: 0,
        action,
    }
}

/// Whether game `g` of the file whose games are `m`'s is the Crawford
/// game (each file's story is checked once).
fn is_crawford(m: &MatchFile, g: usize) -> bool {
    static CRAWFORD: std::sync::OnceLock<Vec<Vec<bool>>> = std::sync::OnceLock::new();
    let all = CRAWFORD.get_or_init(|| {
        files()
            .iter()
            .map(|(_, m)| {
                story::check(m)
                    .unwrap()
                    .iter()
                    .map(|s| s.crawford)
                    .collect()
            })
            .collect()
    });
    let f = files()
        .iter()
        .position(|(_, x)| std::ptr::eq(x, m))
        .expect("a file of the corpus");
    all[f][g]
}

/// 48 cases a test, or `PROPTEST_CASES` (a longer campaign by hand).
fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(48);
    ProptestConfig {
        cases,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    /// A double in the Crawford game, before any roll after the first.
    #[test]
    fn a_double_in_the_crawford_game(at in any::<Index>()) {
        let all = places(|m, g, i| i > 0 && is_roll(&m.games[g].entries[i]) && is_crawford(m, g));
        let (f, g, i) = all[at.index(all.len())];
        let mut m = files()[f].1.clone();
        let p = m.games[g].entries[i].player;
        m.games[g].entries.insert(i, entry(p, Action::Double(2)));
        refused(&m, &["Crawford"])?;
    }

    /// A double by the player who does not own the cube: before the
    /// doubler's next roll after a take.
    #[test]
    fn a_double_by_the_player_without_the_cube(at in any::<Index>()) {
        let all = places(|m, g, i| {
            let e = &m.games[g].entries;
            i > 0 && e[i - 1].action == Action::Take && is_roll(&e[i]) && e[i].player != e[i - 1].player
        });
        let (f, g, i) = all[at.index(all.len())];
        let mut m = files()[f].1.clone();
        let p = m.games[g].entries[i].player;
        m.games[g].entries.insert(i, entry(p, Action::Double(4)));
        refused(&m, &["owns the cube"])?;
    }

    /// A take removed when play goes on after it.
    #[test]
    fn an_unanswered_double(at in any::<Index>()) {
        let all = places(|m, g, i| {
            let e = &m.games[g].entries;
            e[i].action == Action::Take && i + 1 < e.len()
        });
        let (f, g, i) = all[at.index(all.len())];
        let mut m = files()[f].1.clone();
        m.games[g].entries.remove(i);
        refused(&m, &["unanswered", "never answered"])?;
    }

    /// A roll after the game has ended (by bearing off, a drop or a
    /// resignation).
    #[test]
    fn play_after_the_end(at in any::<Index>(), dice in 0usize..15) {
        let all = places(|m, g, i| i + 1 == m.games[g].entries.len()
            && matches!(m.games[g].entries[i].action, Action::Wins(_) | Action::Losses(_)));
        let (f, g, _) = all[at.index(all.len())];
        let mut m = files()[f].1.clone();
        let high = 2 + (dice / 3) as u8 % 5;
        let roll = Action::Roll {
            dice: sheshbesh_engine::Dice::new(high, 1).unwrap(),
            text: String::new(),
        };
        m.games[g].entries.push(entry(0, roll));
        refused(&m, &["ended", "stopped"])?;
    }

    /// A later game that repeats the score of the game before it, or the
    /// whole game repeated.
    #[test]
    fn scores_that_do_not_follow(at in any::<Index>(), repeat_game in any::<bool>()) {
        let all = places(|_, g, i| g > 0 && i == 0);
        let (f, g, _) = all[at.index(all.len())];
        let mut m = files()[f].1.clone();
        if repeat_game {
            let copy = m.games[g - 1].clone();
            m.games.insert(g, copy);
        } else {
            m.games[g].scores = m.games[g - 1].scores;
        }
        refused(&m, &["starts at", "follows game"])?;
    }

    /// An opening roll of doubles.
    #[test]
    fn an_opening_double(at in any::<Index>(), die in 1u8..=6) {
        let all = places(|m, g, i| i == 0 && is_roll(&m.games[g].entries[0]));
        let (f, g, _) = all[at.index(all.len())];
        let mut m = files()[f].1.clone();
        if let Action::Roll { dice, .. } = &mut m.games[g].entries[0].action {
            *dice = sheshbesh_engine::Dice::new(die, die).unwrap();
        }
        refused(&m, &["opening roll"])?;
    }

    /// Lines dropped or repeated at random: never a panic, and a file that
    /// is read writes back to the same games.
    #[test]
    fn lines_dropped_or_repeated(which in any::<Index>(), cuts in proptest::collection::vec((any::<Index>(), any::<bool>()), 1..4)) {
        let (path, _) = &files()[which.index(files().len())];
        let text = std::fs::read_to_string(path).unwrap();
        let mut lines: Vec<&str> = text.lines().collect();
        for (at, drop) in cuts {
            let k = at.index(lines.len());
            if drop {
                lines.remove(k);
            } else {
                lines.insert(k, lines[k]);
            }
        }
        if let Ok(m) = story::read(&lines.join("\n"), false) {
            let (text, back) = reread(&m);
            let back = back.map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
            prop_assert_eq!(back.games.len(), m.games.len());
        }
    }
}

#[test]
fn a_header_only_file_a_second_header_and_a_zero_cube_are_refused() {
    let one = "3 point match\n Game 1\n a : 0   b : 0\n  1) 31: 8/5 6/5\n";
    for (text, why) in [
        ("; [Site \"x\"]\n3 point match\n".to_string(), "no games"),
        (format!("{one}\n 5 point match\n"), "second match header"),
        (
            format!("{one}  2)                 Doubles => 0\n"),
            "power of two",
        ),
    ] {
        let e = story::read(&text, false).unwrap_err();
        assert!(e.reason.contains(why), "{e}");
    }
}

#[test]
fn an_sgf_game_of_another_match_length_is_refused() {
    let game = |len: u32, g: u32| {
        format!(
            "(;FF[4]GM[6]MI[length:{len}][game:{g}][ws:0][bs:{}]PW[a]PB[b]RE[B+1]\n;B[43lplo]\n)\n",
            g
        )
    };
    story::read(&format!("{}{}", game(5, 0), game(5, 1)), true).unwrap();
    let e = story::read(&format!("{}{}", game(5, 0), game(7, 1)), true).unwrap_err();
    assert!(e.reason.contains("7-point"), "{e}");
}

#[test]
fn a_beaver_answered_or_rolled_on_and_the_score_that_follows() {
    // b doubles to 2, a beavers to 4 and b takes (or just rolls on): a
    // then wins a single game at 4.
    let head = "; [Beaver \"On\"]\n0 point match\n Game 1\n a : 0   b : 0\n  1) 31: 8/5 6/5\n  2)                 Doubles => 2\n  3) Beavers => 4\n";
    for answer in ["  4)                 Takes\n", ""] {
        let text = format!("{head}{answer}  5)                 42: 8/4 6/4\n  6) Wins 4 points\n\n Game 2\n a : 4   b : 0\n  1) 31: 8/5 6/5\n");
        story::read(&text, false).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let wrong = text.replace(" a : 4 ", " a : 2 ");
        let e = story::read(&wrong, false).unwrap_err();
        assert!(e.reason.contains("ended at 4-0"), "{e}");
    }
}

#[test]
fn automatic_doubles_are_read_from_the_game() {
    // Game 1 opened on a tie, the cube at 2: b doubles to 4, a takes, and
    // b resigns a single game at 4.
    let text = "; [AutoDoubles \"1\"]\n0 point match\n Game 1\n a : 0   b : 0\n  1) 31: 8/5 6/5\n  2)                 Doubles => 4\n  3) Takes\n  4)                 42: 8/4 6/4\n  5) Wins 4 points\n\n Game 2\n a : 4   b : 0\n  1) 31: 8/5 6/5\n  2)                 Wins 2 points\n\n Game 3\n a : 4   b : 2\n  1) 31: 8/5 6/5\n";
    let starts = story::check(&story::read(text, false).unwrap()).unwrap();
    assert_eq!(starts[0].cube.value(), 2);
    let plain = text.replace("; [AutoDoubles \"1\"]\n", "");
    let e = story::read(&plain, false).unwrap_err();
    assert!(e.reason.contains("Doubles => 4 with the cube at 1"), "{e}");
}

#[test]
fn galaxy_results_in_odd_places_are_read_with_the_wins_lines_winner() {
    // Real files (data/matches/SOURCES.txt): in 24 the last game ends with
    // "Losses" and "Wins ... and the match" both in the left column; in 25
    // "24)  Losses 2 point ... Wins 2 point and the match" follows a roll
    // on its line. The `Wins` line names the winner.
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data/matches");
    for (name, winner) in [
        ("24_galaxy_3pt_match1100068_losses_and_wins_left.mat", 0),
        ("25_galaxy_3pt_match2900236_result_after_a_roll.mat", 1),
    ] {
        let text = std::fs::read_to_string(dir.join(name)).unwrap();
        let m = story::read(&text, false).unwrap_or_else(|e| panic!("{name}: {e}"));
        let starts = story::check(&m).unwrap();
        let (game, start) = (m.games.last().unwrap(), *starts.last().unwrap());
        let mut walk = story::Walk::new(game, start, story::rules(&m));
        for e in &game.entries {
            walk.step(e).unwrap();
        }
        assert_eq!(walk.ended().unwrap().winner.index(), winner, "{name}");
    }
}
