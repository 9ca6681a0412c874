//! Match equity tables: match-winning chances (MWC) by score, read from
//! GNU Backgammon's MET XML format.
//!
//! Scores are "away" counts: a player `a`-away needs `a` more points. The
//! pre-Crawford table gives the MWC of a player `a`-away against one
//! `b`-away; its entries with `a` or `b` equal to 1 are the Crawford game's.
//! The post-Crawford row gives the trailer's MWC, `b`-away, against a
//! leader 1-away after the Crawford game.
//!
//! Kazaross-XG2 is compiled in ([`Met::kazaross_xg2`]); tables of the
//! `explicit` type from gnubg's collection load from files.

use roxmltree::{Document, Node, ParsingOptions};
use thiserror::Error;

/// Why a table could not be read.
#[derive(Debug, Error, PartialEq)]
pub enum MetError {
    /// Not well-formed XML.
    #[error("bad match equity table: not readable XML: {0}")]
    Xml(String),
    /// Something the format requires is missing or wrong.
    #[error("bad match equity table: {0}")]
    Format(String),
}

/// A match equity table.
#[derive(Clone, Debug, PartialEq)]
pub struct Met {
    /// The table's name.
    pub name: String,
    /// Its description.
    pub description: String,
    /// Longest away count covered.
    pub length: usize,
    /// `pre[a-1][b-1]`: MWC of a player `a`-away against one `b`-away.
    pub pre: Vec<Vec<f32>>,
    /// `post[b-1]`: MWC of the trailer `b`-away against a leader 1-away
    /// after the Crawford game.
    pub post: Vec<f32>,
}

/// The score of a match from one player's side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Score {
    /// Points the player still needs.
    pub me: u32,
    /// Points the opponent still needs.
    pub opp: u32,
    /// After the Crawford game (only meaningful with someone 1-away).
    pub post_crawford: bool,
}

impl Score {
    /// A score before or in the Crawford game.
    pub fn pre(me: u32, opp: u32) -> Score {
        Score {
            me,
            opp,
            post_crawford: false,
        }
    }
}

static KAZAROSS: &str = include_str!("../../../data/met/Kazaross-XG2.xml");

static KAZAROSS_MET: std::sync::LazyLock<Met> =
    std::sync::LazyLock::new(|| Met::from_xml(KAZAROSS).expect("the shipped table is valid"));

fn child<'a, 'i>(n: Node<'a, 'i>, name: &str) -> Option<Node<'a, 'i>> {
    n.children().find(|c| c.has_tag_name(name))
}

fn numbers(row: Node) -> Result<Vec<f32>, MetError> {
    row.children()
        .filter(|c| c.has_tag_name("me"))
        .map(|c| {
            let t = c.text().unwrap_or("").trim();
            t.parse::<f32>()
                .ok()
                .filter(|v| (0.0..=1.0).contains(v))
                .ok_or_else(|| MetError::Format(format!("entry \"{t}\" is not a probability")))
        })
        .collect()
}

impl Met {
    /// The Kazaross-XG2 table (25 points), compiled in.
    pub fn kazaross_xg2() -> &'static Met {
        &KAZAROSS_MET
    }

    /// Reads a gnubg MET XML document with explicit tables.
    pub fn from_xml(text: &str) -> Result<Met, MetError> {
        let opts = ParsingOptions {
            allow_dtd: true,
            ..ParsingOptions::default()
        };
        let doc =
            Document::parse_with_options(text, opts).map_err(|e| MetError::Xml(e.to_string()))?;
        let root = doc.root_element();
        if !root.has_tag_name("met") {
            return Err(MetError::Format("the root element is not <met>".into()));
        }
        let info = child(root, "info").ok_or_else(|| MetError::Format("no <info>".into()))?;
        let text_of = |n: &str| {
            child(info, n)
                .and_then(|x| x.text())
                .unwrap_or("")
                .trim()
                .to_string()
        };
        let name = text_of("name");
        let description = text_of("description");
        let pre_node = child(root, "pre-crawford-table")
            .ok_or_else(|| MetError::Format("no <pre-crawford-table>".into()))?;
        let kind = pre_node.attribute("type").unwrap_or("");
        if kind != "explicit" {
            return Err(MetError::Format(format!(
                "pre-Crawford table type \"{kind}\" is computed from parameters; only explicit tables load"
            )));
        }
        let pre: Vec<Vec<f32>> = pre_node
            .children()
            .filter(|c| c.has_tag_name("row"))
            .map(numbers)
            .collect::<Result<_, _>>()?;
        let length = pre.len();
        if length == 0 || pre.iter().any(|r| r.len() != length) {
            return Err(MetError::Format(format!(
                "pre-Crawford table is not square ({length} rows of lengths {:?})",
                pre.iter().map(Vec::len).collect::<Vec<_>>()
            )));
        }
        let posts: Vec<Node> = root
            .children()
            .filter(|c| c.has_tag_name("post-crawford-table"))
            .collect();
        // One table for both players, or player 0's when they differ.
        let post_node = posts
            .iter()
            .find(|n| n.attribute("player") == Some("both"))
            .or_else(|| posts.iter().find(|n| n.attribute("player") == Some("0")))
            .ok_or_else(|| MetError::Format("no <post-crawford-table>".into()))?;
        let kind = post_node.attribute("type").unwrap_or("");
        if kind != "explicit" {
            return Err(MetError::Format(format!(
                "post-Crawford table type \"{kind}\" is computed from parameters; only explicit tables load"
            )));
        }
        let row = child(*post_node, "row")
            .ok_or_else(|| MetError::Format("post-Crawford table has no row".into()))?;
        let post = numbers(row)?;
        if post.len() < length {
            return Err(MetError::Format(format!(
                "post-Crawford row has {} entries for a {length}-point table",
                post.len()
            )));
        }
        Ok(Met {
            name,
            description,
            length,
            pre,
            post: post[..length].to_vec(),
        })
    }

    /// MWC of a player `me`-away against one `opp`-away (0 or less: the
    /// match is won or lost). Scores beyond the table are an error.
    pub fn mwc(&self, score: Score) -> Result<f32, MetError> {
        let (a, b) = (score.me, score.opp);
        if a == 0 {
            return Ok(1.0);
        }
        if b == 0 {
            return Ok(0.0);
        }
        let n = self.length as u32;
        if a > n || b > n {
            return Err(MetError::Format(format!(
                "score {a}-away, {b}-away is beyond the table's {n} points"
            )));
        }
        if score.post_crawford && (a == 1 || b == 1) {
            return Ok(if a == 1 && b == 1 {
                0.5
            } else if a == 1 {
                1.0 - self.post[b as usize - 1]
            } else {
                self.post[a as usize - 1]
            });
        }
        Ok(self.pre[a as usize - 1][b as usize - 1])
    }

    /// MWC after a result of `points` (positive: won) at `score`, moving
    /// into post-Crawford play when the Crawford game ends.
    pub fn after(&self, score: Score, points: i32) -> Result<f32, MetError> {
        let crawford_game = !score.post_crawford && (score.me == 1 || score.opp == 1);
        let (me, opp) = if points > 0 {
            (score.me.saturating_sub(points as u32), score.opp)
        } else {
            (score.me, score.opp.saturating_sub((-points) as u32))
        };
        self.mwc(Score {
            me,
            opp,
            post_crawford: score.post_crawford || crawford_game,
        })
    }

    /// The table as a gnubg MET XML document (explicit tables), which
    /// [`Met::from_xml`] and gnubg's `set matchequitytable` read back.
    pub fn to_xml(&self) -> String {
        let esc = |t: &str| {
            t.replace('&', "&amp;")
                .replace('<', "&lt;")
                .replace('>', "&gt;")
        };
        let row = |xs: &[f32]| {
            let cells: String = xs
                .iter()
                .map(|x| format!("      <me>{x:.6}</me>\n"))
                .collect();
            format!("    <row>\n{cells}    </row>\n")
        };
        let mut out = String::from(
            "<?xml version = \"1.0\"?>\n<!DOCTYPE met PUBLIC \"-//GNU Backgammon//DTD Match Equity Tables//EN\"\n                     \"met.dtd\">\n\n<met>\n  <info>\n",
        );
        out.push_str(&format!(
            "    <name>{}</name>\n    <description>{}</description>\n    <length>{}</length>\n  </info>\n\n  <pre-crawford-table type=\"explicit\">\n",
            esc(&self.name),
            esc(&self.description),
            self.length
        ));
        for r in &self.pre {
            out.push_str(&row(r));
        }
        out.push_str("  </pre-crawford-table>\n\n  <post-crawford-table type=\"explicit\" player=\"both\">\n");
        out.push_str(&row(&self.post));
        out.push_str("  </post-crawford-table>\n\n</met>\n");
        out
    }

    /// Largest `|M[a][b] + M[b][a] - 1|` of the pre-Crawford table.
    pub fn asymmetry(&self) -> f32 {
        let mut worst = 0.0f32;
        for a in 0..self.length {
            for b in 0..self.length {
                worst = worst.max((self.pre[a][b] + self.pre[b][a] - 1.0).abs());
            }
        }
        worst
    }
}

/// Take point and gammon values at a score, for a cube of `cube` about to
/// be doubled to `2 * cube` (dead cube: no redoubles).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScoreFacts {
    /// Win probability the taker needs (gammonless, dead cube).
    pub take_point: f32,
    /// Gammon value for the player: extra MWC of a gammon win over a single
    /// win, per MWC at stake in a single game.
    pub gammon_value_me: f32,
    /// The same for the opponent.
    pub gammon_value_opp: f32,
}

impl Met {
    /// Dead-cube take point of the opponent if the player doubles `cube`,
    /// and both sides' gammon values at the current cube.
    pub fn facts(&self, score: Score, cube: u32) -> Result<ScoreFacts, MetError> {
        let c = cube as i32;
        // The opponent takes at 2c: it wins or loses 2c; passing loses c.
        let win2 = self.after(score, 2 * c)?;
        let lose2 = self.after(score, -2 * c)?;
        let pass = self.after(score, c)?;
        // From the taker's side: its MWC is 1 - mine.
        let take_point = (pass - win2) / (lose2 - win2);
        let w1 = self.after(score, c)?;
        let w2 = self.after(score, 2 * c)?;
        let l1 = self.after(score, -c)?;
        let l2 = self.after(score, -2 * c)?;
        let stake = (w1 - l1).max(1e-9);
        Ok(ScoreFacts {
            take_point,
            gammon_value_me: (w2 - w1) / stake,
            gammon_value_opp: (l1 - l2) / stake,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(me: u32, opp: u32) -> Score {
        Score::pre(me, opp)
    }

    #[test]
    fn kazaross_loads_and_is_symmetric() {
        let m = Met::kazaross_xg2();
        assert_eq!(m.length, 25);
        assert_eq!(m.mwc(s(1, 2)).unwrap(), 0.67736);
        assert_eq!(m.mwc(s(2, 1)).unwrap(), 0.32264);
        assert!(m.asymmetry() < 1e-4, "{}", m.asymmetry());
        // Post-Crawford: 2-away trailer against 1-away leader.
        let post = Score {
            post_crawford: true,
            ..s(2, 1)
        };
        assert_eq!(m.mwc(post).unwrap(), 0.48803);
        assert_eq!(m.mwc(s(0, 3)).unwrap(), 1.0);
        assert!(m.mwc(s(26, 3)).is_err());
    }

    #[test]
    fn take_points_by_hand() {
        let m = Met::kazaross_xg2();
        // Money-like score far from the end: close to 25% (gammonless).
        let f = m.facts(s(25, 25), 1).unwrap();
        assert!((f.take_point - 0.25).abs() < 0.03, "{f:?}");
        // 2-away 2-away: a double means the match: no take/pass nuance
        // beyond MWC(1-away Crawford vs 2-away)... the taker passes to
        // 2-away vs 1-away Crawford (0.32264) or plays for the match:
        // take point = 0.32264.
        let f = m.facts(s(2, 2), 1).unwrap();
        assert!((f.take_point - 0.32264).abs() < 1e-5, "{f:?}");
        // 4-away 2-away, player (4-away) doubles to 2: the 2-away taker
        // wins the match when it wins; passing leaves it 2-away vs 3-away.
        let f = m.facts(s(4, 2), 1).unwrap();
        let pass = 1.0 - m.mwc(s(3, 2)).unwrap();
        let lose = 1.0 - m.mwc(s(2, 2)).unwrap();
        let want = (pass - lose) / (1.0 - lose);
        assert!((f.take_point - want).abs() < 1e-5, "{f:?} {want}");
    }

    #[test]
    fn a_written_table_reads_back() {
        let mut m = Met::kazaross_xg2().clone();
        m.name = "a <test> & table".into();
        let back = Met::from_xml(&m.to_xml()).unwrap();
        assert_eq!(back.name, m.name);
        assert_eq!(back.length, m.length);
        for (a, b) in back.pre.iter().flatten().zip(m.pre.iter().flatten()) {
            assert!((a - b).abs() < 1e-6);
        }
        for (a, b) in back.post.iter().zip(&m.post) {
            assert!((a - b).abs() < 1e-6);
        }
    }

    #[test]
    fn bad_tables_are_named() {
        assert!(matches!(Met::from_xml("<met"), Err(MetError::Xml(_))));
        assert!(matches!(Met::from_xml("<x/>"), Err(MetError::Format(_))));
        let zadeh = r#"<met><info><name>z</name></info><pre-crawford-table type="zadeh"/></met>"#;
        let e = Met::from_xml(zadeh).unwrap_err();
        assert!(e.to_string().contains("zadeh"));
        let bad = KAZAROSS.replacen("<me>0.67736</me>", "<me>1.7</me>", 1);
        assert!(Met::from_xml(&bad).unwrap_err().to_string().contains("1.7"));
    }
}
