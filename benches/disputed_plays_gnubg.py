#!/usr/bin/env python3
"""Disputed checker plays: the judge's prices against gnubg's own rollouts.

`match_play_gnubg.py` prices checker plays by gnubg 2-ply, which shares
its net with one of the rivals it judges (gnubg 0-ply). This script asks
whether gnubg's own rollouts agree with the judge where it matters: it
takes the decisions of a `match_play_gnubg.py --dump` where two rows
pick different plays whose prices by the judge differ by at least
`--min-diff` EMG, and rolls out both plays with gnubg 1.07 at the match
score (cubeful, 0-ply checker play and cube decisions, variance
reduction, quasi-random dice, the same seed for both plays: gnubg's
`analyse rollout move`). A rollout is what a play is worth where an
evaluation only estimates it.

Prints, for the decisions rolled out: how much the second row's picks
(gnubg 0-ply by default) gain over the first's (ours) by the judge and
by the rollouts, in all and per decision, with the rollouts' standard
error (each play's own, as gnubg reports it, so an upper bound: both
plays have the same dice); how often the rollouts side with the judge;
and the decisions where they part most.

Each rollout is kept in `--out` as it is done (the fixture
`data/fixtures/disputed_plays_rollouts_gnubg.json` by default, written
whole or not at all), so a run resumes where it stopped and a second
run only prints. The committed fixture holds the held-out set's
disputes between our 0-ply and gnubg 0-ply: all 97 by 0.06 EMG or more,
all 209 by 0.03 to 0.06, and 200 of the 381 by 0.01 to 0.03 and 160 of
the 571 by less (`--min-diff 0.01 --max-diff 0.03 --draw 200`,
`--min-diff 0 --max-diff 0.01 --draw 160`). `--bands` rolls out nothing
and reports every band and the whole set's estimate from what the
fixture holds.
`--rows FIRST SECOND` compares two other rows of the dump (a candidate
net's picks against the shipped net's, say) with `--out` elsewhere.
gnubg is a referee here, never training data.

Usage:
  apt-get install gnubg && cargo build --release
  python3 benches/match_play_gnubg.py --limit 100000 --dump D.json data/heldout/*.mat
  python3 benches/disputed_plays_gnubg.py D.json [--min-diff 0.06] [--max-diff X]
      [--draw N] [--trials 324] [--rows FIRST SECOND] [--out FILE]
  python3 benches/disputed_plays_gnubg.py D.json --bands
"""

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile

from match_play_gnubg import ROOT, match_id_field, norm

sys.path.insert(0, os.path.join(ROOT, "data", "fixtures"))
from gen_cube_rollouts import save  # noqa: E402

FIXTURE = os.path.join(ROOT, "data", "fixtures", "disputed_plays_rollouts_gnubg.json")
OURS, THEIRS = "ours 0-ply, cubeful", "gnubg 0-ply"
NUM = r"([+-]?\d+\.\d+)"


def settings(trials, seed):
    """The rollout settings this script gives gnubg, as the fixture records them."""
    return {"trials": trials, "seed": seed, "chequer_plies": 0, "cube_plies": 0,
            "variance_reduction": True, "quasi_random": True, "cubeful": True}


def run_gnubg(position, dice, play, tail, setup):
    """Runs the commands `setup`, sets up the decision in a new match,
    plays `play`, analyses it at 0-ply and runs the commands `tail`;
    returns gnubg's text export of the game (its analysis of the move)."""
    pid, mid = position.split(":")
    n = match_id_field(mid, 21, 15)  # the match length
    cmds = [
        "set player 0 human", "set player 1 human", "set automatic roll off",
        "set analysis chequerplay evaluation plies 0",
        *setup,
        f"new match {n}", f"set matchid {mid}", f"set board {pid}",
        f"set dice {dice}", f"move {play}", "analyse game", *tail,
    ]
    with tempfile.TemporaryDirectory() as d:
        out_txt = os.path.join(d, "out.txt")
        cmd_txt = os.path.join(d, "cmds.txt")
        with open(cmd_txt, "w") as f:
            f.write("\n".join(cmds + [f"export game text {out_txt}", ""]))
        subprocess.run(["script", "-qc", f"/usr/games/gnubg -t -q < {cmd_txt}", "/dev/null"],
                       capture_output=True, text=True, timeout=7200)
        if not os.path.exists(out_txt):
            raise RuntimeError(f"{position} {dice}: gnubg wrote no export")
        return open(out_txt).read()


def listed_plays(text):
    """The analysed move's list: (index, marked, play, kind, the lines
    under it) in gnubg's order."""
    if "Rolled " not in text:
        raise RuntimeError("gnubg's export has no analysed move")
    body = text[text.index("Rolled "):]
    body = body[:body.index("Move number 2") if "Move number 2" in body else len(body)]
    head = re.compile(r"^(\*?)\s+(\d+)\.\s+(Cubeful \d-ply|Rollout)\s+(.*?)\s+Eq\.:.*$", re.M)
    found = list(head.finditer(body))
    rows = []
    for k, m in enumerate(found):
        end = found[k + 1].start() if k + 1 < len(found) else len(body)
        rows.append((int(m.group(2)), m.group(1) == "*", m.group(4).strip(), m.group(3),
                     body[m.end():end]))
    return rows


def rollout_decision(position, dice, ours, theirs, trials, seed):
    """Both plays' cubeful rollout equities (EMG) and standard errors."""
    rollout = [f"set rollout trials {trials}", "set rollout chequerplay plies 0",
               "set rollout cubedecision plies 0", "set rollout cubeful on",
               "set rollout varredn on", "set rollout quasirandom on",
               f"set rollout seed {seed}", "set threads 2"]

    def index_of(play):
        """The play's place in gnubg's 0-ply list of the roll's plays
        (the export shows the first five and the play made)."""
        listed = listed_plays(run_gnubg(position, dice, play, [], []))
        found = [i for i, star, _, _, _ in listed if star]
        if not found:
            raise RuntimeError(f"{position} {dice}: gnubg did not take the play {play!r}")
        return found[0]

    mine, other = index_of(ours), index_of(theirs)
    text = run_gnubg(position, dice, ours, ["previous", f"analyse rollout move {mine} {other}"],
                     rollout)
    out = {}
    for _, star, play, kind, rest in listed_plays(text):
        if kind != "Rollout":
            continue
        cf = re.search(r"CF\s+" + NUM + r"\s*\n\s*\[.*CF\s+" + NUM + r"\]", rest)
        if not cf:
            raise RuntimeError(f"{position} {dice}: no rollout figures for {play!r}")
        who = "ours" if star else "theirs" if norm(play) == norm(theirs) else None
        if who:
            out[who] = [float(cf.group(1)), float(cf.group(2))]
    if set(out) != {"ours", "theirs"}:
        raise RuntimeError(f"{position} {dice}: gnubg rolled out {sorted(out)}")
    return out


def disputed(dump, min_diff, max_diff, rows=(OURS, THEIRS)):
    """The dump's decisions where the two rows' picks differ by at least
    `min_diff` and less than `max_diff` in the judge's prices, in the
    dump's order. `rows` names the two rows compared (the dump's keys);
    the first's pick is kept as "ours", the second's as "theirs"."""
    out = []
    for d in dump:
        p = d["picks"]
        first, second = rows
        if first not in p or second not in p or norm(p[first][0]) == norm(p[second][0]):
            continue
        diff = p[first][1] - p[second][1]
        if min_diff <= abs(diff) < max_diff:
            out.append({"position": d["position"], "dice": d["dice"], "ours": p[first][0],
                        "theirs": p[second][0], "judge": round(diff, 4)})
    return out


def gain(case):
    """What the second row's pick gains over the first's by the rollouts."""
    return case["rollout"]["theirs"][0] - case["rollout"]["ours"][0]


def gain_variance(case):
    """The variance of `gain`, from each play's own standard error."""
    return case["rollout"]["theirs"][1] ** 2 + case["rollout"]["ours"][1] ** 2


def report(cases, rows):
    n = len(cases)
    if not n:
        print("no disputed decisions rolled out")
        return
    judge = sum(c["judge"] for c in cases)
    gains = [gain(c) for c in cases]
    var = sum(gain_variance(c) for c in cases)
    sides = sum((g > 0) == (c["judge"] > 0) for g, c in zip(gains, cases))
    print(f"{n} disputed decisions rolled out; what {rows[1]}'s pick gains over "
          f"{rows[0]}'s, EMG:")
    print(f"  by the judge (gnubg 2-ply): {judge:+.3f} in all, {1000 * judge / n:+.1f} mEMG each")
    print(f"  by gnubg's rollouts:        {sum(gains):+.3f} in all (± {var ** 0.5:.3f}), "
          f"{1000 * sum(gains) / n:+.1f} mEMG each (± {1000 * var ** 0.5 / n:.1f})")
    print(f"  the rollouts side with the judge in {sides} of {n}; "
          f"{rows[1]}'s pick better by them in {sum(g > 0 for g in gains)}")
    worst = sorted(zip(gains, cases), key=lambda x: -abs(x[0] - x[1]["judge"]))[:10]
    print(f"where the judge and the rollouts part most (gain of {rows[1]}'s pick, "
          "judge / rollout):")
    for g, c in worst:
        print(f"  {c['position']} {c['dice']}: {c['ours']} against {c['theirs']}: "
              f"{c['judge']:+.3f} / {g:+.3f}")


BANDS = [(0.06, float("inf")), (0.03, 0.06), (0.01, 0.03), (0.0, 0.01)]


def band_estimate(n, done):
    """What the rollouts put a band's whole gain at, from `done` (its
    rolled-out decisions, a random draw when fewer than the band's `n`):
    the mean gain times `n`, with a standard error of both the draw (with
    the finite-population correction, which vanishes when every decision
    is rolled out) and the rollouts' own noise."""
    k = len(done)
    gains = [gain(c) for c in done]
    mean = sum(gains) / k
    draw_var = sum((g - mean) ** 2 for g in gains) / (k - 1) if k > 1 else 0.0
    noise = sum(gain_variance(c) for c in done) / k
    var = n * n * (draw_var * (1 - k / n) / k + noise / k)
    return n * mean, var


def report_bands(dump, cases, rows, plays):
    """Every band of the judge's price difference: its decisions, how many
    were rolled out, the judge's sum and the rollouts' estimate of the
    band's whole gain; then the whole disputed set's, per play of the dump."""
    rolled = {(c["position"], c["dice"]): c for c in cases}
    print(f"what the picks of {rows[1]!r} gain over those of {rows[0]!r} on all {plays} "
          "plays, by band of the judge's price difference (EMG in all):")
    print("  band          disputed  rolled out  judge   rollouts (whole band)")
    judge_all, est_all, var_all = 0.0, 0.0, 0.0
    for lo, hi in BANDS:
        band = disputed(dump, lo, hi, rows)
        done = [rolled[(c["position"], c["dice"])] for c in band
                if (c["position"], c["dice"]) in rolled]
        judge = sum(c["judge"] for c in band)
        judge_all += judge
        name = f"{lo:.2f} to {hi:.2f}" if hi != float("inf") else f"{lo:.2f} or more"
        if not done:
            print(f"  {name:<13} {len(band):>8}  {0:>10}  {judge:+.2f}   (none rolled out)")
            est_all += judge
            continue
        est, var = band_estimate(len(band), done)
        est_all, var_all = est_all + est, var_all + var
        print(f"  {name:<13} {len(band):>8}  {len(done):>10}  {judge:+.2f}   "
              f"{est:+.2f} ± {var ** 0.5:.2f}")
    print(f"  in all: judge {judge_all:+.2f} ({1000 * judge_all / plays:+.2f} mEMG a play), "
          f"rollouts {est_all:+.2f} ± {var_all ** 0.5:.2f} "
          f"({1000 * est_all / plays:+.2f} ± {1000 * var_all ** 0.5 / plays:.2f} mEMG a play; "
          "a band none of whose decisions was rolled out counts at the judge's price)")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dump", help="a match_play_gnubg.py --dump file")
    ap.add_argument("--min-diff", type=float, default=0.06)
    ap.add_argument("--max-diff", type=float, default=float("inf"))
    ap.add_argument("--draw", type=int, metavar="N",
                    help="roll out N of the selected decisions drawn at random (seed 0)")
    ap.add_argument("--trials", type=int, default=324)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--out", default=FIXTURE)
    ap.add_argument("--bands", action="store_true",
                    help="roll out nothing; report every band of the judge's price "
                         "difference from what --out holds, and the whole set's estimate")
    ap.add_argument("--rows", nargs=2, default=[OURS, THEIRS], metavar=("FIRST", "SECOND"),
                    help="the dump's two rows whose picks are compared (default: "
                         f"{OURS!r} and {THEIRS!r})")
    a = ap.parse_args()
    with open(a.dump) as f:
        dump = json.load(f)
    if a.bands:
        if not os.path.exists(a.out):
            sys.exit(f"{a.out}: no rollouts to report (run without --bands first)")
        with open(a.out) as f:
            report_bands(dump, json.load(f)["cases"], a.rows, len(dump))
        return 0
    todo = disputed(dump, a.min_diff, a.max_diff, a.rows)
    if a.draw and a.draw < len(todo):
        keep = set(map(id, random.Random(0).sample(todo, a.draw)))
        todo = [c for c in todo if id(c) in keep]
    made_with = settings(a.trials, a.seed)
    doc = {"source": "GNU Backgammon 1.07.001, analyse rollout move",
           "settings": made_with, "script": "benches/disputed_plays_gnubg.py", "cases": []}
    if os.path.exists(a.out):
        with open(a.out) as f:
            doc = json.load(f)
        if doc["settings"] != made_with:
            sys.exit(f"{a.out} was made with other settings; remove it or name another --out")
    done = {(c["position"], c["dice"]) for c in doc["cases"]}
    for c in todo:
        if (c["position"], c["dice"]) in done:
            continue
        try:
            c["rollout"] = rollout_decision(c["position"], c["dice"], c["ours"], c["theirs"],
                                            a.trials, a.seed)
        except RuntimeError as e:
            print(f"skipped: {e}", file=sys.stderr, flush=True)
            continue
        print(json.dumps(c), flush=True)
        doc["cases"].append(c)
        save(doc, a.out)
    wanted = {(c["position"], c["dice"]) for c in todo}
    report([c for c in doc["cases"] if (c["position"], c["dice"]) in wanted], a.rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
