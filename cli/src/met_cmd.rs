//! `sheshbesh met`: print a match equity table, the take points and gammon
//! values at a score, or generate a table from our own engine.

use crate::output::rounded;
use anyhow::{bail, Context, Result};
use clap::Args;
use serde_json::{json, Value};
use sheshbesh_engine::cube::match_cube::{self, generate_from};
use sheshbesh_engine::cube::met::{Met, Score};
use sheshbesh_engine::formats::files::read_text;
use sheshbesh_engine::rollout::met_progress::{MetProgress, RolledTable};
use sheshbesh_engine::rollout::met_rollout::rollout_opening;

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
    /// Cube value for --score: a power of two from 1 to 4096.
    #[arg(long, default_value_t = 1, value_parser = cube_arg)]
    pub cube: u32,
    /// Generate a table from our own engine: gammon rates from the net's
    /// evaluation of the opening, a live-cube model with cube efficiency
    /// 0.68, and print its largest difference from Kazaross-XG2.
    #[arg(long)]
    pub generate: bool,
    /// With --generate: roll the table out instead, the opening at every
    /// score up to --length (default 7) with a live cube, each player
    /// moving first; written to --out, resumable (rerun the same command).
    #[arg(long, requires = "generate")]
    pub rollout: bool,
    /// The gnubg MET XML file --rollout writes (its progress is kept
    /// beside it in FILE.cells).
    #[arg(long, requires = "rollout")]
    pub out: Option<std::path::PathBuf>,
    /// Checker-play depth inside the --rollout trials.
    #[arg(long, default_value_t = 0, requires = "rollout", value_parser = crate::position_cmd::ply_arg)]
    pub ply: u32,
    #[command(flatten)]
    pub rollout_options: crate::rollout_cmd::RolloutOptions,
    #[command(flatten)]
    pub weights: crate::nets::WeightsArg,
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
    let p = rounded(100.0 * x, 1);
    format!("{:.1}%", if p == 0.0 { 0.0 } else { p })
}

/// Rolls out a table of `--length` points (see `met_rollout`), keeping
/// each finished opening in `OUT.cells` so a stopped run resumes; `None`
/// when Ctrl-C stopped it.
fn rollout_table(a: &MetArgs) -> Result<Option<RolledTable>> {
    let Some(out) = &a.out else {
        bail!("bad options: --rollout needs --out FILE, the table to write");
    };
    let length = a.length.unwrap_or(7);
    if !(2..=25).contains(&length) {
        bail!("bad length \"{length}\": roll out 2 to 25 points");
    }
    let length = length as u32;
    let input = crate::input::parse_position("start")?;
    let s = a.rollout_options.settings(&input, a.ply, true)?;
    let mut progress = MetProgress::resume(&MetProgress::path_beside(out), length, &s)?;
    let ev = a.weights.load()?;
    let pool = a.rollout_options.pool()?;
    let stop = crate::rollout_cmd::interrupt_flag();
    let todo = progress.todo();
    let bar = crate::rollout_cmd::progress_bar(
        u32::try_from(todo.len()).unwrap_or(u32::MAX) * s.trials,
        !a.json,
    );
    for (k, o) in todo.iter().enumerate() {
        let so_far = progress.table();
        let done_before = k as u64 * u64::from(s.trials);
        bar.set_message(format!(
            "{}-away {}-away{}",
            o.away,
            o.opp_away,
            if o.post_crawford {
                " post-Crawford"
            } else {
                ""
            }
        ));
        let e = pool.install(|| {
            rollout_opening(&ev, &so_far, *o, &s, &stop, |n| {
                bar.set_position(done_before + u64::from(n))
            })
        })?;
        if stop.load(std::sync::atomic::Ordering::Relaxed) {
            bar.finish_and_clear();
            eprintln!(
                "stopped: {} of {} openings rolled out, kept in {}; rerun the same command to resume",
                progress.done(),
                progress.needed(),
                progress.path().display()
            );
            return Ok(None);
        }
        progress.record(*o, e, &s)?;
    }
    bar.finish_and_clear();
    Ok(Some(progress.write_table(out, &s)?))
}

/// `--cube`: a cube's value is a power of two (1 to 4096, as gnubg's).
pub fn cube_arg(s: &str) -> std::result::Result<u32, String> {
    match s.parse::<u32>() {
        Ok(c) if c.is_power_of_two() && c <= 4096 => Ok(c),
        _ => Err("give a power of two from 1 to 4096".into()),
    }
}

/// A table file (gnubg's MET XML), or Kazaross-XG2.
pub fn load_table(path: Option<&std::path::Path>) -> Result<std::borrow::Cow<'static, Met>> {
    let Some(path) = path else {
        return Ok(std::borrow::Cow::Borrowed(Met::kazaross_xg2()));
    };
    let text = read_text(path)
        .with_context(|| format!("bad table \"{}\": cannot read", path.display()))?;
    let met = Met::from_xml(&text).with_context(|| format!("bad table \"{}\"", path.display()))?;
    Ok(std::borrow::Cow::Owned(met))
}

/// The rows and columns shown: `--length`, else the whole table for JSON
/// and at most 15 for text.
pub fn length_of(met: &Met, length: Option<usize>, json: bool) -> Result<usize> {
    let length = length.unwrap_or(if json { met.length } else { met.length.min(15) });
    if length == 0 || length > met.length {
        bail!(
            "bad length \"{length}\": the table covers 1 to {}",
            met.length
        );
    }
    Ok(length)
}

/// The facts at a score `A,B`: the MWC, and take points and gammon values
/// from each side.
pub struct Facts {
    me: u32,
    opp: u32,
    mwc: f32,
    f: sheshbesh_engine::cube::met::ScoreFacts,
    fo: sheshbesh_engine::cube::met::ScoreFacts,
}

impl Facts {
    /// The facts as `met --score A,B --json` gives them at cube `cube`.
    fn json(&self, cube: u32) -> Value {
        let (f, fo) = (&self.f, &self.fo);
        json!({
            "me_away": self.me, "opp_away": self.opp, "cube": cube, "mwc": rounded(self.mwc, 5),
            "take_point_opp": rounded(f.take_point, 5), "take_point_me": rounded(fo.take_point, 5),
            "gammon_value_me": rounded(f.gammon_value_me, 5), "gammon_value_opp": rounded(f.gammon_value_opp, 5),
        })
    }

    /// The facts as `met --score A,B` prints them at cube `cube`.
    fn line(&self, cube: u32) -> String {
        format!(
            "At {}-away {}-away (cube {cube}): MWC {}; opponent's take point {}, yours {}; gammon values: yours {:.3}, opponent's {:.3}",
            self.me,
            self.opp,
            percent(self.mwc),
            percent(self.f.take_point),
            percent(self.fo.take_point),
            self.f.gammon_value_me,
            self.f.gammon_value_opp
        )
    }
}

/// Reads `--score A,B` and looks its facts up in `met` at cube `cube`.
pub fn facts_at(met: &Met, score: &str, cube: u32) -> Result<Facts> {
    let (me, opp) = parse_score(score)?;
    let at = |me, opp| Score {
        me,
        opp,
        post_crawford: false,
    };
    Ok(Facts {
        me,
        opp,
        mwc: met.mwc(at(me, opp))?,
        f: met.facts(at(me, opp), cube)?,
        fo: met.facts(at(opp, me), cube)?,
    })
}

/// `met --json`'s table (to `length`) and the facts at a score.
pub fn json_answer(met: &Met, length: usize, facts: Option<&Facts>, cube: u32) -> Value {
    let mut v = json!({
        "name": met.name,
        "length": length,
        "pre_crawford": met.pre[..length].iter().map(|r| r[..length].iter().map(|&x| rounded(x, 5)).collect::<Vec<_>>()).collect::<Vec<_>>(),
        "post_crawford": met.post[..length].iter().map(|&x| rounded(x, 5)).collect::<Vec<_>>(),
    });
    if let Some(facts) = facts {
        v["score"] = facts.json(cube);
    }
    v
}

/// Runs `sheshbesh met`; `Ok(false)` when Ctrl-C stopped a rollout.
pub fn run(a: MetArgs) -> Result<bool> {
    let mut rolled = None;
    if a.rollout {
        match rollout_table(&a)? {
            Some(r) => rolled = Some(r),
            None => return Ok(false),
        }
    }
    let worst_se = rolled.as_ref().map(|r| r.worst_se);
    let loaded = load_table(a.table.as_deref())?;
    let mut met: &Met = &loaded;
    let generated;
    let mut largest_difference = None;
    if let Some(RolledTable { met: table, .. }) = &rolled {
        let worst = match_cube::largest_difference(table, Met::kazaross_xg2());
        largest_difference = Some((worst.difference, worst.away, worst.opp_away));
        met = table;
    } else if a.generate {
        let ev = a.weights.load()?;
        let k = Met::kazaross_xg2();
        generated = generate_from(&ev, k.length);
        let worst = match_cube::largest_difference(&generated, k);
        largest_difference = Some((worst.difference, worst.away, worst.opp_away));
        met = &generated;
    }
    let length = length_of(met, a.length, a.json)?;
    let facts = a
        .score
        .as_deref()
        .map(|s| facts_at(met, s, a.cube))
        .transpose()?;
    if a.json {
        let mut v = json_answer(met, length, facts.as_ref(), a.cube);
        if let Some((d, i, j)) = largest_difference {
            v["largest_difference"] = json!({"value": rounded(d, 5), "me_away": i, "opp_away": j, "against": "Kazaross XG2"});
        }
        if let Some(se) = worst_se {
            v["largest_se"] = json!(rounded(se, 5));
            v["out"] = json!(a.out.as_ref().map(|p| p.display().to_string()));
        }
        println!("{v}");
        return Ok(true);
    }
    if let Some(facts) = facts {
        // The question asked, and nothing else: the table is for --length
        // without --score.
        println!("{}", facts.line(a.cube));
        return Ok(true);
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
    if let (Some(se), Some(out)) = (worst_se, &a.out) {
        println!(
            "largest standard error {:.2}%; written to {}",
            100.0 * se,
            out.display()
        );
    }
    Ok(true)
}
