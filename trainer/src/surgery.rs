//! Net surgery: nets made from other nets without training. An ensemble
//! folds independently trained nets into one (their output logits
//! averaged), an average folds late checkpoints of one run, a splice takes
//! the contact net of one file and the race net (or the luck yardstick) of
//! another, and a second
//! hidden layer can be added to a net with silent output weights. What was
//! tried and measured with each is in
//! `docs/experiments/2026-12-04-weights-notebook.md`.

use ndarray::{s, Array1, Array2, Axis};
use rand::Rng;

use anyhow::Result;
use sheshbesh_engine::evaluation::evaluator::{NetClass, NetEvaluator};
use sheshbesh_engine::evaluation::net::{Net, Params, BLOCK2, MAX_HIDDEN, MAX_HIDDEN2, OUTPUTS};

use crate::checkpoint::{self, Provenance};
use std::path::Path;

/// One net that averages the output logits of several nets of the same
/// inputs: their hidden layers side by side, each net's output weights
/// scaled by its share. An ensemble of independently trained nets errs
/// less than its members, and folded this way it is evaluated by the
/// same kernels as any net. `None` when the inputs differ or the hidden
/// layers together exceed [`MAX_HIDDEN`].
pub fn ensemble_nets(nets: &[&Net]) -> Option<Net> {
    let first = nets.first()?;
    let hidden: usize = nets.iter().map(|n| n.hidden()).sum();
    let hidden2: usize = nets.iter().map(|n| n.hidden2()).sum();
    if hidden > MAX_HIDDEN
        || hidden2 > MAX_HIDDEN2
        || nets.iter().any(|n| n.inputs() != first.inputs())
    {
        return None;
    }
    let share = 1.0 / nets.len() as f32;
    // Side by side along the hidden axis, in the row-major layout the
    // kernels read.
    fn side_by_side<D: ndarray::RemoveAxis>(
        axis: Axis,
        parts: Vec<ndarray::ArrayView<'_, f32, D>>,
    ) -> ndarray::Array<f32, D> {
        ndarray::concatenate(axis, &parts)
            .expect("shapes checked")
            .as_standard_layout()
            .into_owned()
    }
    let w1 = side_by_side(Axis(1), nets.iter().map(|n| n.params().w1.view()).collect());
    let b1 = side_by_side(Axis(0), nets.iter().map(|n| n.params().b1.view()).collect());
    let b_mid = side_by_side(
        Axis(0),
        nets.iter().map(|n| n.params().b_mid.view()).collect(),
    );
    // Each member's second layer reads only its own first layer.
    let mut w_mid = Array2::zeros((hidden2, hidden));
    let (mut row, mut col) = (0, 0);
    for n in nets {
        w_mid
            .slice_mut(s![row..row + n.hidden2(), col..col + n.hidden()])
            .assign(&n.params().w_mid);
        (row, col) = (row + n.hidden2(), col + n.hidden());
    }
    // The output layer reads every first layer, then every second.
    let firsts = nets
        .iter()
        .map(|n| n.params().w2.slice(s![.., ..n.hidden()]));
    let seconds = nets
        .iter()
        .map(|n| n.params().w2.slice(s![.., n.hidden()..]));
    let w2 = side_by_side(Axis(1), firsts.chain(seconds).collect()) * share;
    let b2 = nets
        .iter()
        .fold(Array1::zeros(OUTPUTS), |acc, n| acc + &n.params().b2)
        * share;
    Some(Net::from(Params {
        w1,
        b1,
        w_mid,
        b_mid,
        w2,
        b2,
    }))
}

/// `self += scale * (other - base)`: folds another worker's progress
/// since `base` into this net.
pub fn add_delta(net: &mut Net, other: &Net, base: &Net, scale: f32) {
    fn fold<D: ndarray::Dimension>(
        a: &mut ndarray::Array<f32, D>,
        o: &ndarray::Array<f32, D>,
        b: &ndarray::Array<f32, D>,
        s: f32,
    ) {
        ndarray::Zip::from(a)
            .and(o)
            .and(b)
            .for_each(|a, &o, &b| *a += s * (o - b));
    }
    let (net, other, base) = (net.params_mut(), other.params(), base.params());
    fold(&mut net.w1, &other.w1, &base.w1, scale);
    fold(&mut net.b1, &other.b1, &base.b1, scale);
    fold(&mut net.w_mid, &other.w_mid, &base.w_mid, scale);
    fold(&mut net.b_mid, &other.b_mid, &base.b_mid, scale);
    fold(&mut net.w2, &other.w2, &base.w2, scale);
    fold(&mut net.b2, &other.b2, &base.b2, scale);
}

/// This net with a second hidden layer of `hidden2` units (random
/// weights from the first layer) whose output weights are zero, so it
/// evaluates exactly as before until trained. `None` when the net
/// already has one or `hidden2` is not a positive multiple of
/// [`BLOCK2`] up to [`MAX_HIDDEN2`].
pub fn with_second_layer(net: &Net, hidden2: usize, rng: &mut impl Rng) -> Option<Net> {
    if net.hidden2() != 0
        || hidden2 == 0
        || !hidden2.is_multiple_of(BLOCK2)
        || hidden2 > MAX_HIDDEN2
    {
        return None;
    }
    let h = net.hidden();
    let r = (6.0 / (h + hidden2) as f32).sqrt();
    let mut w2 = Array2::zeros((OUTPUTS, h + hidden2));
    w2.slice_mut(s![.., ..h]).assign(&net.params().w2);
    Some(Net::from(Params {
        w_mid: Array2::from_shape_fn((hidden2, h), |_| rng.gen_range(-r..r)),
        b_mid: Array1::zeros(hidden2),
        w2,
        ..net.params().clone()
    }))
}

/// `ev += scale * (other - base)` for every net: folds another worker's
/// progress since `base` into `ev`. The three must have the same shapes.
pub fn add_delta_all(ev: &mut NetEvaluator, other: &NetEvaluator, base: &NetEvaluator, scale: f32) {
    add_delta(&mut ev.contact, &other.contact, &base.contact, scale);
    add_delta(&mut ev.race, &other.race, &base.race, scale);
}

/// Drops a pre-filter and its record: it was distilled from a contact
/// net that has just been replaced (`train prefilter` makes a new one).
fn drop_prefilter(ev: &mut NetEvaluator, prov: &mut Provenance) {
    ev.prefilter = None;
    prov.prefilter = None;
}

/// A file's provenance (or a blank one) with `step` appended to its
/// command: what was done to the nets after training.
fn with_step(prov: Option<Provenance>, step: &str) -> Provenance {
    let mut prov = prov.unwrap_or_else(|| Provenance::new("", 0));
    prov.command = format!("{} ; {step}", prov.command);
    prov
}

/// The mean of several checkpoints' nets (stochastic weight averaging):
/// checkpoints of one run late in training sit near one optimum, and their
/// mean is usually closer to it than any one of them. The provenance is the
/// last file's, with the averaging recorded in its command.
pub fn average(paths: &[std::path::PathBuf]) -> Result<(NetEvaluator, Provenance)> {
    anyhow::ensure!(!paths.is_empty(), "nothing to average");
    let mut loaded = Vec::new();
    for p in paths {
        loaded.push(checkpoint::load(p)?);
    }
    let (first, _) = &loaded[0];
    let mut mean = first.clone();
    let scale = 1.0 / loaded.len() as f32;
    for (ev, _) in &loaded[1..] {
        anyhow::ensure!(
            ev.contact.params().w1.dim() == first.contact.params().w1.dim()
                && ev.race.params().w1.dim() == first.race.params().w1.dim(),
            "checkpoints of different shapes cannot be averaged"
        );
    }
    // mean = first + sum over the others of (other - first) / n
    for (ev, _) in &loaded[1..] {
        add_delta_all(&mut mean, ev, first, scale);
    }
    let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    let last = loaded.last().and_then(|(_, p)| p.clone());
    let mut prov = with_step(last, &format!("average of {}", names.join(" ")));
    drop_prefilter(&mut mean, &mut prov);
    Ok((mean, prov))
}

/// One net from several independently trained ones ([`ensemble_nets`]):
/// their output logits averaged, contact and race nets alike. The
/// provenance records every member's command, and its games and seconds
/// are the members' sums (the checks are the first member's).
pub fn ensemble(paths: &[std::path::PathBuf]) -> Result<(NetEvaluator, Provenance)> {
    anyhow::ensure!(
        paths.len() >= 2,
        "an ensemble needs at least two weights files"
    );
    let mut loaded = Vec::new();
    for p in paths {
        loaded.push(checkpoint::load(p)?);
    }
    let (first, _) = &loaded[0];
    anyhow::ensure!(
        loaded.iter().all(|(ev, _)| ev.layout == first.layout),
        "the weights files read different input layouts"
    );
    let contact: Vec<&Net> = loaded.iter().map(|(ev, _)| &ev.contact).collect();
    let race: Vec<&Net> = loaded.iter().map(|(ev, _)| &ev.race).collect();
    let mut merged = first.clone();
    merged.contact = ensemble_nets(&contact).ok_or_else(|| {
        anyhow::anyhow!("the contact nets together exceed {MAX_HIDDEN} hidden units")
    })?;
    merged.race = ensemble_nets(&race).ok_or_else(|| {
        anyhow::anyhow!("the race nets together exceed {MAX_HIDDEN} hidden units")
    })?;
    let mut prov = loaded[0]
        .1
        .clone()
        .unwrap_or_else(|| Provenance::new("", 0));
    let members: Vec<String> = loaded
        .iter()
        .zip(paths)
        .map(|((_, p), path)| match p {
            Some(p) => format!("{} [{}]", path.display(), p.command),
            None => path.display().to_string(),
        })
        .collect();
    prov.command = format!("ensemble of {}", members.join(" + "));
    // The ensemble holds every member's training, not only the first's.
    prov.games = loaded
        .iter()
        .filter_map(|(_, p)| p.as_ref())
        .map(|p| p.games)
        .sum();
    prov.seconds = loaded
        .iter()
        .filter_map(|(_, p)| p.as_ref())
        .map(|p| p.seconds)
        .sum();
    drop_prefilter(&mut merged, &mut prov);
    Ok((merged, prov))
}

/// Where a splice takes its nets from: the contact file's nets, with the
/// race net, the blitz net, the back-game net and the luck yardstick's
/// contact net replaced where given.
pub struct SpliceFrom<'a> {
    /// The file whose contact net (and, unless replaced, others) is kept.
    pub contact: &'a Path,
    /// The file whose race net is taken.
    pub race: Option<&'a Path>,
    /// The file whose contact net becomes the blitz net
    /// ([`sheshbesh_engine::evaluation::evaluator::BLITZ_NET`]).
    pub blitz: Option<&'a Path>,
    /// The file whose contact net becomes the back-game net
    /// ([`sheshbesh_engine::evaluation::evaluator::BACK_GAME_NET`]).
    pub back_game: Option<&'a Path>,
    /// The file whose contact net becomes the luck yardstick's
    /// ([`sheshbesh_engine::evaluation::evaluator::LUCK_NET`]).
    pub luck: Option<&'a Path>,
    /// Whether the contact file's luck yardstick replaces its contact net
    /// (and leaves the yardstick's place empty): the next round of value
    /// iteration labels and fits from the yardstick as a player.
    pub promote_luck: bool,
}

/// One file's contact net with another's race net, or with another's
/// contact net as the rollouts' luck yardstick: a race net can be trained
/// apart (another width, its own labels) and still be sampled and judged
/// beside the contact net it will ship with, and a net fitted for
/// self-consistency can measure luck while the shipped net plays. The
/// provenance is the contact file's, with each other file and its command
/// recorded and its games and seconds added.
pub fn splice(from: &SpliceFrom) -> Result<(NetEvaluator, Provenance)> {
    anyhow::ensure!(
        from.race.is_some()
            || from.blitz.is_some()
            || from.back_game.is_some()
            || from.luck.is_some()
            || from.promote_luck,
        "a splice needs a race file, a blitz file, a back-game file, a luck file or a promoted luck net"
    );
    let (mut ev, mut prov) = checkpoint::load(from.contact)?;
    if from.promote_luck {
        let luck = ev.luck.take().ok_or_else(|| {
            anyhow::anyhow!("{} carries no luck net to promote", from.contact.display())
        })?;
        ev.contact = luck.contact.clone();
        let mut step = with_step(
            prov,
            &format!("luck net of {} promoted to contact", from.contact.display()),
        );
        drop_prefilter(&mut ev, &mut step);
        prov = Some(step);
    }
    if let Some(path) = from.race {
        let other = spliced_in(&ev, &mut prov, from.contact, path, "race net of")?;
        ev.race = other.race;
        // The yardstick judges races with the race net it ships beside.
        let luck = ev.luck.take();
        ev = ev.with_luck(luck.as_ref().map(|l| &l.contact));
    }
    for (path, class) in [
        (from.blitz, NetClass::Blitz),
        (from.back_game, NetClass::BackGame),
    ] {
        let Some(path) = path else { continue };
        let plan = if class == NetClass::Blitz {
            "blitz"
        } else {
            "back-game"
        };
        let net = if path == from.contact {
            // A copy of the file's own contact net: no other training to
            // add to the record.
            prov = Some(with_step(
                prov,
                &format!("{plan} net: a copy of the contact net"),
            ));
            ev.contact.clone()
        } else {
            let what = format!("{plan} net: contact net of");
            spliced_in(&ev, &mut prov, from.contact, path, &what)?.contact
        };
        match class {
            NetClass::Blitz => ev.blitz = Some(net),
            _ => ev.back_game = Some(net),
        }
    }
    if let Some(path) = from.luck {
        let other = spliced_in(
            &ev,
            &mut prov,
            from.contact,
            path,
            "luck net: contact net of",
        )?;
        ev = ev.with_luck(Some(&other.contact));
    }
    Ok((ev, prov.expect("a step was recorded")))
}

/// Loads `path` to splice a net of it into `into` (read from `contact`):
/// the layouts must agree, and `prov` records `what` was taken with the
/// file's command, games and seconds.
fn spliced_in(
    into: &NetEvaluator,
    prov: &mut Option<Provenance>,
    contact: &Path,
    path: &Path,
    what: &str,
) -> Result<NetEvaluator> {
    let (other, prov_o) = checkpoint::load(path)?;
    anyhow::ensure!(
        into.layout == other.layout,
        "{} reads input layout {} and {} layout {}: a splice needs one layout",
        contact.display(),
        into.layout.id(),
        path.display(),
        other.layout.id()
    );
    let step = match &prov_o {
        Some(p) => format!("{what} {} [{}]", path.display(), p.command),
        None => format!("{what} {}", path.display()),
    };
    let mut next = with_step(prov.take(), &step);
    if let Some(p) = prov_o {
        next.games += p.games;
        next.seconds += p.seconds;
    }
    *prov = Some(next);
    Ok(other)
}

/// Gives the contact net a second hidden layer of `hidden2` units
/// ([`with_second_layer`]): its output weights start at zero, so training
/// continues from the same play and learns what the depth adds.
pub fn add_second_layer(
    ev: &mut NetEvaluator,
    hidden2: usize,
    rng: &mut impl rand::Rng,
) -> Result<()> {
    let refuse = |net: &Net| {
        if net.hidden2() > 0 {
            anyhow::anyhow!("the net already has a second hidden layer")
        } else {
            anyhow::anyhow!(
                "a second hidden layer needs a multiple of {} up to {} units, not {hidden2}",
                sheshbesh_engine::evaluation::net::BLOCK2,
                sheshbesh_engine::evaluation::net::MAX_HIDDEN2
            )
        }
    };
    ev.contact = with_second_layer(&ev.contact, hidden2, rng).ok_or_else(|| refuse(&ev.contact))?;
    Ok(())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_xoshiro::Xoshiro256PlusPlus;
    use sheshbesh_engine::evaluation::inputs::{Layout, SparseInputs};
    use sheshbesh_engine::Position;
    use std::fs;

    /// A net with a second layer that counts: its output weights random.
    pub(crate) fn deep(hidden: usize, hidden2: usize, seed: u64) -> Net {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let mut net = with_second_layer(
            &Net::random(Layout::V2.inputs(), hidden, &mut rng),
            hidden2,
            &mut rng,
        )
        .unwrap();
        let p = net.params_mut();
        p.w2.mapv_inplace(|_| rng.gen_range(-0.5..0.5));
        p.b_mid.mapv_inplace(|_| rng.gen_range(-0.5..0.5));
        net
    }

    #[test]
    fn a_deepened_net_evaluates_as_before_until_trained() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(6);
        let net = Net::random(Layout::V2.inputs(), 64, &mut rng);
        let deeper = with_second_layer(&net, 16, &mut rng).unwrap();
        assert_eq!((deeper.hidden(), deeper.hidden2()), (64, 16));
        let mut act = deeper.activations();
        let x = SparseInputs::encode(&Position::start(), Layout::V2);
        assert_eq!(net.eval(&x, &mut act), deeper.eval(&x, &mut act));
        assert!(with_second_layer(&deeper, 16, &mut rng).is_none());
        assert!(with_second_layer(&net, 12, &mut rng).is_none());
        assert!(with_second_layer(&net, 0, &mut rng).is_none());
        assert!(with_second_layer(&net, MAX_HIDDEN2 + BLOCK2, &mut rng).is_none());
    }

    #[test]
    fn an_ensemble_averages_its_members_logits() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
        let a = Net::random(Layout::V2.inputs(), 64, &mut rng);
        let mut b = Net::random(Layout::V2.inputs(), 32, &mut rng);
        b.params_mut().b2 = Array1::from_vec(vec![0.5, -1.0, -2.0, 0.3, -3.0]);
        let both = ensemble_nets(&[&a, &b]).unwrap();
        assert_eq!(both.hidden(), 96);
        let logit = |p: f32| (p / (1.0 - p)).ln();
        let mut act = both.activations();
        let mut pos = Position::start();
        for _ in 0..2 {
            let x = SparseInputs::encode(&pos, Layout::V2);
            let (pa, pb, pe) = (
                a.eval(&x, &mut act),
                b.eval(&x, &mut act),
                both.eval(&x, &mut act),
            );
            for k in 0..OUTPUTS {
                let want = (logit(pa.0[k]) + logit(pb.0[k])) / 2.0;
                assert!((logit(pe.0[k]) - want).abs() < 1e-3, "output {k}");
            }
            pos = pos.swapped();
        }
        let alone = ensemble_nets(&[&a]).unwrap();
        assert_eq!(alone, a);
    }

    #[test]
    fn an_ensemble_of_deep_nets_averages_their_logits() {
        let (a, b) = (deep(64, 16, 9), deep(32, 8, 10));
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
        let shallow = Net::random(Layout::V2.inputs(), 32, &mut rng);
        let all = ensemble_nets(&[&a, &shallow, &b]).unwrap();
        assert_eq!((all.hidden(), all.hidden2()), (128, 24));
        let logit = |p: f32| (p / (1.0 - p)).ln();
        let mut act = all.activations();
        let x = SparseInputs::encode(&Position::start(), Layout::V2);
        let members = [&a, &shallow, &b].map(|n| n.eval(&x, &mut act));
        let joint = all.eval(&x, &mut act);
        for k in 0..OUTPUTS {
            let want = members.iter().map(|p| logit(p.0[k])).sum::<f32>() / 3.0;
            assert!((logit(joint.0[k]) - want).abs() < 1e-3, "output {k}");
        }
    }

    #[test]
    fn an_ensemble_refuses_mismatched_or_oversized_members() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(4);
        let a = Net::random(Layout::V2.inputs(), 256, &mut rng);
        let small = Net::random(Layout::V2.inputs() - 1, 32, &mut rng);
        assert!(ensemble_nets(&[&a, &small]).is_none());
        assert!(ensemble_nets(&[&a, &a, &a]).is_none());
        assert!(ensemble_nets(&[]).is_none());
    }

    #[test]
    fn averaging_two_checkpoints_gives_the_midpoint() {
        let dir = std::env::temp_dir().join(format!("shb-avg-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let layout = sheshbesh_engine::evaluation::inputs::Layout::V2;
        let mut a = crate::train::fresh(1, 32, 32, layout);
        let b = crate::train::fresh(2, 32, 32, layout);
        // A pre-filter of `a`'s contact net does not outlive the average.
        use sheshbesh_engine::evaluation::prefilter::{random_net, Prefilter};
        let pf = random_net(32, &mut Xoshiro256PlusPlus::seed_from_u64(3));
        let pf = Prefilter::new(pf).unwrap();
        a.prefilter = Some(std::sync::Arc::new(pf));
        let (pa, pb) = (dir.join("a.w"), dir.join("b.w"));
        checkpoint::save(&pa, &a, &Provenance::new("a", 1)).unwrap();
        checkpoint::save(&pb, &b, &Provenance::new("b", 2)).unwrap();
        assert!(checkpoint::load(&pa).unwrap().0.prefilter.is_some());
        let (m, prov) = average(&[pa.clone(), pb]).unwrap();
        assert!(m.prefilter.is_none() && prov.prefilter.is_none());
        let w1 = |ev: &NetEvaluator| ev.contact.params().w1[[3, 4]];
        let want = (w1(&a) + w1(&b)) / 2.0;
        assert!((w1(&m) - want).abs() < 1e-6);
        assert!(prov.command.contains("average of"));
        let (same, _) = average(&[pa.clone(), pa]).unwrap();
        assert_eq!(same.contact, a.contact);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn an_ensemble_records_all_its_members_training() {
        let dir = std::env::temp_dir().join(format!("shb-ens-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let layout = sheshbesh_engine::evaluation::inputs::Layout::V2;
        let (pa, pb) = (dir.join("a.w"), dir.join("b.w"));
        let mut prov_b = Provenance::new("train b", 2);
        prov_b.games = 300;
        prov_b.seconds = 2.0;
        let mut prov_a = Provenance::new("train a", 1);
        prov_a.games = 200;
        prov_a.seconds = 1.0;
        checkpoint::save(&pa, &crate::train::fresh(1, 32, 32, layout), &prov_a).unwrap();
        checkpoint::save(&pb, &crate::train::fresh(2, 64, 32, layout), &prov_b).unwrap();
        let (ev, prov) = ensemble(&[pa.clone(), pb]).unwrap();
        assert_eq!((ev.contact.hidden(), ev.race.hidden()), (96, 64));
        assert_eq!((prov.games, prov.seconds), (500, 3.0));
        assert!(prov.command.contains("train a") && prov.command.contains("train b"));
        assert!(ensemble(&[pa]).is_err());
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_splice_takes_each_net_from_its_file() {
        use sheshbesh_engine::evaluation::inputs::Layout;
        let dir = std::env::temp_dir().join(format!("shb-splice-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let (pa, pb, pc) = (dir.join("a.w"), dir.join("b.w"), dir.join("c.w"));
        let a = crate::train::fresh(1, 32, 32, Layout::V3);
        let b = crate::train::fresh(2, 64, 96, Layout::V3);
        let mut prov_b = Provenance::new("train b", 2);
        prov_b.games = 300;
        checkpoint::save(&pa, &a, &Provenance::new("train a", 1)).unwrap();
        checkpoint::save(&pb, &b, &prov_b).unwrap();
        checkpoint::save(&pc, &crate::train::fresh(3, 32, 32, Layout::V2), &prov_b).unwrap();
        fn with<'a>(
            contact: &'a Path,
            race: Option<&'a Path>,
            luck: Option<&'a Path>,
        ) -> SpliceFrom<'a> {
            SpliceFrom {
                contact,
                race,
                blitz: None,
                back_game: None,
                luck,
                promote_luck: false,
            }
        }
        let (ev, prov) = splice(&with(&pa, Some(&pb), None)).unwrap();
        assert_eq!(ev.contact, a.contact);
        assert_eq!(ev.race, b.race);
        assert!(ev.luck.is_none());
        assert_eq!(prov.games, 300);
        assert!(prov.command.starts_with("train a") && prov.command.contains("train b"));
        // A luck yardstick: b's contact net beside the race net kept, and
        // written and read back with the file.
        let (ev, _) = splice(&with(&pa, None, Some(&pb))).unwrap();
        assert_eq!((&ev.contact, &ev.race), (&a.contact, &a.race));
        let luck = ev.luck.as_ref().expect("a luck net");
        assert_eq!((&luck.contact, &luck.race), (&b.contact, &a.race));
        let pd = dir.join("d.w");
        checkpoint::save(&pd, &ev, &prov).unwrap();
        let (back, _) = checkpoint::load(&pd).unwrap();
        assert_eq!(back, ev);
        // A blitz net: b's contact net values the blitzes, written and
        // read back with the file.
        let (ev, prov) = splice(&SpliceFrom {
            blitz: Some(&pb),
            ..with(&pa, None, None)
        })
        .unwrap();
        assert_eq!(
            (&ev.contact, ev.blitz.as_ref()),
            (&a.contact, Some(&b.contact))
        );
        assert!(prov.command.contains("blitz net"), "{}", prov.command);
        let pe = dir.join("e.w");
        checkpoint::save(&pe, &ev, &prov).unwrap();
        assert_eq!(checkpoint::load(&pe).unwrap().0, ev);
        // A back-game net beside it: a's own contact net, read back too.
        let (ev, prov) = splice(&SpliceFrom {
            back_game: Some(&pa),
            ..with(&pe, None, None)
        })
        .unwrap();
        assert_eq!(
            (ev.blitz.as_ref(), ev.back_game.as_ref()),
            (Some(&b.contact), Some(&a.contact))
        );
        assert!(prov.command.contains("back-game net"), "{}", prov.command);
        checkpoint::save(&pe, &ev, &prov).unwrap();
        assert_eq!(checkpoint::load(&pe).unwrap().0, ev);
        // A copy of the file's own contact net adds no games to the record.
        let (ev, prov) = splice(&SpliceFrom {
            blitz: Some(&pa),
            ..with(&pa, None, None)
        })
        .unwrap();
        assert_eq!(ev.blitz.as_ref(), Some(&a.contact));
        assert!(
            prov.command.contains("a copy of the contact net"),
            "{}",
            prov.command
        );
        assert_eq!(prov.games, checkpoint::load(&pa).unwrap().1.unwrap().games);
        // Splicing a race net in keeps the yardstick's race net the same.
        let (ev, _) = splice(&with(&pd, Some(&pb), None)).unwrap();
        let luck = ev.luck.as_ref().expect("the luck net kept");
        assert_eq!((&luck.contact, &luck.race), (&b.contact, &b.race));
        // Promoting the yardstick makes it the player, with no yardstick.
        let promote = |contact| SpliceFrom {
            promote_luck: true,
            ..with(contact, None, None)
        };
        let (ev, prov) = splice(&promote(&pd)).unwrap();
        assert_eq!((&ev.contact, &ev.race), (&b.contact, &a.race));
        assert!(ev.luck.is_none());
        assert!(prov.command.contains("promoted"), "{}", prov.command);
        let err = splice(&promote(&pa)).unwrap_err().to_string();
        assert!(err.contains("no luck net"), "{err}");
        assert!(splice(&with(&pa, None, None)).is_err());
        let err = splice(&with(&pa, Some(&pc), None)).unwrap_err().to_string();
        assert!(
            err.contains("layout 3") && err.contains("layout 2"),
            "{err}"
        );
        fs::remove_dir_all(&dir).unwrap();
    }
}
