//! `sheshbesh met`: print a match equity table, the take points and gammon
//! values at a score, or generate a table from our own engine.

use anyhow::{bail, Context, Result};
use clap::Args;
use serde_json::json;
use sheshbesh_engine::cube::match_cube::{self, generate_from};
use sheshbesh_engine::cube::met::{Met, Score};

/// Options of `sheshbesh met`.
#[derive(Args, Debug)]
pub struct MetArgs {
    /// A gnubg MET XML file (explicit tables) instead of Kazaross-XG2.
    #[arg(long)]
    pub table: Option<std::path::PathBuf>,
    /// Show the table up to this many points away (default: all of it, or
    /// 15 in text).
    #[arg(long)]
    pub length: Option<usize>,
    /// Take points and gammon values at a score given as "A,B": the player
    /// A-away, the opponent B-away (e.g. 3,5).
    #[arg(long)]
    pub score: Option<String>,
    /// Cube value for --score.
    #[arg(long, default_value_t = 1)]
    pub cube: u32,
    /// Generate a table from our own engine: gammon rates from the net's
    /// evaluation of the opening, a live-cube model with cube efficiency
    /// 0.68, and print its largest difference from Kazaross-XG2.
    #[arg(long)]
    pub generate: bool,
    /// Weights for --generate.
    #[arg(long)]
    pub weights: Option<std::path::PathBuf>,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
}

fn parse_score(s: &str) -> Result<(u32, u32)> {
    let bad = || anyhow::anyhow!("bad score \"{s}\": give A,B with both 1 or more, e.g. 3,5");
    let (a, b) = s.split_once([',', '-', ' ']).ok_or_else(bad)?;
    let a: u32 = a.trim().parse().map_err(|_| bad())?;
    let b: u32 = b.trim().parse().map_err(|_| bad())?;
    if a == 0 || b == 0 {
        return Err(bad());
    }
    Ok((a, b))
}

/// A chance as a percentage with one decimal, never "-0.0%".
fn percent(x: f32) -> String {
    let p = (1000.0 * f64::from(x)).round() / 10.0;
    format!("{:.1}%", if p == 0.0 { 0.0 } else { p })
}

fn round(x: f32) -> f64 {
    (f64::from(x) * 1e5).round() / 1e5
}

/// Runs `sheshbesh met`.
pub fn run(a: MetArgs) -> Result<()> {
    let loaded;
    let mut met: &Met = match &a.table {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("bad table \"{}\": cannot read", path.display()))?;
            loaded = Met::from_xml(&text)
                .with_context(|| format!("bad table \"{}\"", path.display()))?;
            &loaded
        }
        None => Met::kazaross_xg2(),
    };
    let generated;
    let mut largest_difference = None;
    if a.generate {
        let ev = crate::nets::load(a.weights.as_deref())?;
        let k = Met::kazaross_xg2();
        generated = generate_from(&ev, k.length);
        let worst = match_cube::largest_difference(&generated, k);
        largest_difference = Some((worst.difference, worst.away, worst.opp_away));
        met = &generated;
    }
    let length = a.length.unwrap_or(if a.json {
        met.length
    } else {
        met.length.min(15)
    });
    if length == 0 || length > met.length {
        bail!(
            "bad length \"{length}\": the table covers 1 to {}",
            met.length
        );
    }
    let facts = match &a.score {
        Some(s) => {
            let (me, opp) = parse_score(s)?;
            let score = Score {
                me,
                opp,
                post_crawford: false,
            };
            let mwc = met.mwc(score)?;
            let f = met.facts(score, a.cube)?;
            let back = Score {
                me: opp,
                opp: me,
                post_crawford: false,
            };
            let fo = met.facts(back, a.cube)?;
            Some((me, opp, mwc, f, fo))
        }
        None => None,
    };
    if a.json {
        let mut v = json!({
            "name": met.name,
            "length": length,
            "pre_crawford": met.pre[..length].iter().map(|r| r[..length].iter().map(|&x| round(x)).collect::<Vec<_>>()).collect::<Vec<_>>(),
            "post_crawford": met.post[..length].iter().map(|&x| round(x)).collect::<Vec<_>>(),
        });
        if let Some((me, opp, mwc, f, fo)) = facts {
            v["score"] = json!({
                "me_away": me, "opp_away": opp, "cube": a.cube, "mwc": round(mwc),
                "take_point_opp": round(f.take_point), "take_point_me": round(fo.take_point),
                "gammon_value_me": round(f.gammon_value_me), "gammon_value_opp": round(f.gammon_value_opp),
            });
        }
        if let Some((d, i, j)) = largest_difference {
            v["largest_difference"] =
                json!({"value": round(d), "me_away": i, "opp_away": j, "against": "Kazaross XG2"});
        }
        println!("{v}");
        return Ok(());
    }
    if let Some((me, opp, mwc, f, fo)) = facts {
        // The question asked, and nothing else: the table is for --length
        // without --score.
        println!(
            "At {me}-away {opp}-away (cube {}): MWC {}; opponent's take point {}, yours {}; gammon values: yours {:.3}, opponent's {:.3}",
            a.cube,
            percent(mwc),
            percent(f.take_point),
            percent(fo.take_point),
            f.gammon_value_me,
            f.gammon_value_opp
        );
        return Ok(());
    }
    println!("{} ({}-point table)", met.name, met.length);
    print!("      ");
    for j in 1..=length {
        print!("{:>6}", format!("{j}a"));
    }
    println!();
    for i in 1..=length {
        print!("{:>6}", format!("{i}a"));
        for j in 1..=length {
            print!("{:>6.1}", 100.0 * met.pre[i - 1][j - 1]);
        }
        println!();
    }
    print!("post-Crawford (trailer vs 1-away):");
    for j in 1..=length {
        print!(" {j}a {:.1}", 100.0 * met.post[j - 1]);
    }
    println!();
    if let Some((d, i, j)) = largest_difference {
        println!(
            "largest difference from Kazaross XG2: {:.2}% at {i}-away {j}-away",
            100.0 * d
        );
    }
    Ok(())
}
