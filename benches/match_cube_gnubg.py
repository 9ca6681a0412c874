#!/usr/bin/env python3
"""Cube decisions of real matches at their scores: Sheshbesh 0-ply and
2-ply and gnubg 0-ply, each judged by GNU Backgammon 1.07's 2-ply `eval`.

The decisions: every turn of the committed match files
(`data/matches`, sources in its SOURCES.txt) at which the player on roll
could double, at the match's score and cube: `sheshbesh annotate --json`
lists the checker plays, each play's position before the roll is the
decision (`show --batch` drops the dice from the XGID). gnubg 1.07
(`apt-get install gnubg`) reads each by `set matchid` and `set board` and
`eval`s it at 2 plies (the referee) and at 0 plies (gnubg 0-ply's
verdict). A decision counts when gnubg 2-ply calls it close (double/take
or double/pass, whichever the taker prefers, above no double less 0.16
EMG, gnubg's own rule) or the player doubled. `sheshbesh cube --batch`
answers at 0 and 2 plies.

Prints, for our 0-ply, our 2-ply and gnubg 0-ply: agreement with gnubg
2-ply's proper action, the mean cost of the actions in gnubg 2-ply's own
equities (mEMG per decision: the double/no double part where it differs,
plus the take/pass part where that does), and the mean distance of the
no double and double/take equities from gnubg 2-ply's.

Each `--weights FILE` adds rows for that net at 0 and 2 plies beside the
shipped net's.

`--cache FILE` keeps gnubg's evaluations (by ply and decision) and asks
gnubg only for those it lacks, so later runs measuring candidate nets on
the same decisions take seconds.

`--files "data/heldout/*.mat"` measures on 50 held-out matches chosen by
rule, which no net or setting was chosen on (`data/heldout/SOURCES.txt`).

`--by-kind` also splits each row's cost by kind of position, as the
trainer's `--class` tells them (`trainer/src/classes.rs`): races (no
contact), blitzes (a side on the bar against four closed home points, or
two on the bar against three), holding games (a side holding two or more
points of the other's home board) and the other contact positions. It
reads boards with gnubg-nn (`pip install gnubg-nn`).

`--judge sage` prices the same decisions (gnubg 2-ply still says which
are close) by Open Sage (`pip install bgsage`) at gnubg's 2-ply, its
"3ply": a second judge with nets of its own. `--sage` adds Open Sage's
0-ply (its "1ply") as a row.

`--our-rollouts TRIALS` rolls out each decision's board with our own
net (cubeless, 0-ply play to the end) and prints how far each row's
cubeless chances are from those rollouts, with gnubg's net at 0 and 2
ply (gnubg-nn) beside them: whether a net knows what our own play makes
of the positions where cube decisions are made, without any referee's
equities. The rollouts are the shipped net's, so a `--weights` row is
measured against the same reference.

Usage: python3 benches/match_cube_gnubg.py [--files GLOB] [--limit N]
    [--weights FILE ...] [--json] [--dump FILE] [--cache FILE] [--by-kind]
    [--judge gnubg|sage] [--sage] [--our-rollouts TRIALS]
"""
import argparse
import glob
import json
import os
import re
import subprocess

from gnubg_cube import agrees, cost, cube_analysis

HERE = os.path.dirname(os.path.abspath(__file__))
BINARY = os.path.join(HERE, "..", "target", "release", "sheshbesh")
MATCHES = os.path.join(HERE, "..", "data", "matches")


def ours(args, lines):
    out = subprocess.run([BINARY, *args, "--batch"], input="".join(l + "\n" for l in lines),
                         capture_output=True, text=True, check=True).stdout
    return [json.loads(l) for l in out.splitlines()]


def decisions(files):
    """(Position ID, Match ID) before each roll of match play, and whether
    the player doubled there."""
    plays, doubled = [], set()
    for f in files:
        r = subprocess.run([BINARY, "annotate", f, "--ply", "0", "--json"],
                           capture_output=True, text=True)
        a = json.loads(r.stdout)
        if "error" in a or not a.get("length"):
            continue
        for d in a["decisions"]:
            key = f"{d['position_id']}:{d['match_id']}"
            if d["kind"] == "checker":
                plays.append(key)
            elif d["played"] == "Double":
                doubled.add(key)
    keys = set(doubled)
    for s in ours(["show", "--json"], plays):
        if "xgid" not in s:
            continue
        f = s["xgid"].split(":")
        f[4] = "00"
        keys.add(":".join(f))
    ids = ours(["show", "--json"], sorted(keys))
    out = {}
    for k, s in zip(sorted(keys), ids):
        if "match_id" in s:
            pid_mid = f"{s['position_id']}:{s['match_id']}"
            out[pid_mid] = out.get(pid_mid, False) or k in doubled
    return out


def gnubg_eval(keys, ply):
    lines = ["set display off", "new match 7", "set output digits 5",
             f"set evaluation chequerplay evaluation plies {ply}",
             f"set evaluation cubedecision evaluation plies {ply}"]
    for k in keys:
        pid, mid = k.split(":")
        lines += [f"set matchid {mid}", f"set board {pid}", "eval"]
    out = subprocess.run(["/usr/games/gnubg", "-t", "-q"], input="\n".join(lines) + "\n",
                         capture_output=True, text=True).stdout
    results = {}
    for block in re.split(r"^Position ID:\t", out, flags=re.M)[1:]:
        pid = block.split()[0]
        mid = re.search(r"^Match ID:\t(\S+)", block, re.M).group(1)
        r = cube_analysis(block)
        if all(k in r for k in ("nd", "dt", "dp", "action")):
            results[f"{pid}:{mid}"] = r
    return results


def cached_eval(keys, ply, cache):
    """gnubg_eval through `cache` (keyed by ply and decision; a decision
    gnubg gave no full answer for is kept as None)."""
    missing = [k for k in keys if f"{ply} {k}" not in cache]
    if missing:
        got = gnubg_eval(missing, ply)
        for k in missing:
            cache[f"{ply} {k}"] = got.get(k)
    return {k: cache[f"{ply} {k}"] for k in keys if cache[f"{ply} {k}"] is not None}


def sage_action(nd, dt, dp, redouble):
    """The proper action in gnubg's words from the doubler's three
    equities, as `sheshbesh cube` words them (`match_action`)."""
    d = "redouble" if redouble else "double"
    if dt >= dp:
        return f"Too good to {d}, pass" if nd > dp + 1e-4 else f"{d.capitalize()}, pass"
    if nd >= dt:
        return f"Too good to {d}, take" if nd > dp else f"No {d}, take"
    return f"{d.capitalize()}, take"


def sage_cube(keys, ply):
    """Open Sage's cube analysis of each decision at gnubg's `ply`, as
    `gnubg_eval` gives gnubg's: {nd, dt, dp, action}, equities in EMG."""
    from match_play_gnubg import match_facts, need_sage

    need_sage()
    import bgsage
    import gnubg_nn
    from strength import Sage

    analyzer = bgsage.create_analyzer(level=f"{ply + 1}ply", cubeful=True)
    out = {}
    for k in keys:
        pid, mid = k.split(":")
        cube, owner, me, opp, crawford = match_facts(mid)
        r = analyzer.cube_action(Sage.to_sage(gnubg_nn.board_from_position_id(pid)),
                                 cube_value=cube, cube_owner=owner, away1=me, away2=opp,
                                 is_crawford=crawford and min(me, opp) == 1)
        out[k] = {"nd": r.equity_nd, "dt": r.equity_dt, "dp": r.equity_dp,
                  "action": sage_action(r.equity_nd, r.equity_dt, r.equity_dp, owner == "player")}
    return out


KINDS = ("race", "blitz", "two anchors", "other contact")


def kind(position_id):
    """The kind of a position (one of KINDS), by the trainer's classes."""
    import gnubg_nn
    # Each side's checkers from its own side: index 0..23 its points 1..24, 24 its bar.
    opp, me = gnubg_nn.board_from_position_id(position_id)

    def back(side):
        return max((i for i in range(25) if side[i]), default=-1)

    if back(me) + back(opp) <= 23:
        return "race"

    def closed(side):
        return sum(1 for i in range(6) if side[i] >= 2)

    def blitzes(attacker, defender):
        c = closed(attacker)
        return (defender[24] >= 1 and c >= 4) or (defender[24] >= 2 and c >= 3)

    if blitzes(me, opp) or blitzes(opp, me):
        return "blitz"
    if any(sum(1 for i in range(18, 24) if side[i] >= 2) >= 2 for side in (me, opp)):
        return "two anchors"
    return "other contact"


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--files", default=os.path.join(MATCHES, "*"))
    ap.add_argument("--limit", type=int, default=0, help="at most this many decisions")
    ap.add_argument("--weights", action="append", default=[],
                    help="also judge with this weights file (repeatable)")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--dump", help="write every decision's judge and answers to this JSON file")
    ap.add_argument("--cache", help="keep gnubg's evaluations in this JSON file and reuse them")
    ap.add_argument("--by-kind", action="store_true",
                    help="split each row's cost by kind of position (needs gnubg-nn)")
    ap.add_argument("--judge", choices=["gnubg", "sage"], default="gnubg",
                    help="the judge: gnubg 1.07 or Open Sage (pip install bgsage)")
    ap.add_argument("--sage", action="store_true", help="add Open Sage's 0-ply as a row")
    ap.add_argument("--our-rollouts", type=int, metavar="TRIALS",
                    help="also measure each row's chances against our own cubeless rollouts "
                         "of the decisions (needs gnubg-nn)")
    a = ap.parse_args()
    cache = {}
    if a.cache and os.path.exists(a.cache):
        with open(a.cache) as f:
            cache = json.load(f)
    files = sorted(f for f in glob.glob(a.files) if f.endswith((".mat", ".sgf", ".txt")))
    found = decisions(files)
    keys = sorted(found)
    ref = cached_eval(keys, 2, cache)
    close = [k for k in keys if k in ref and
             (found[k] or min(ref[k]["dt"], ref[k]["dp"]) > ref[k]["nd"] - 0.16)]
    if a.limit:
        close = close[:a.limit]
    g0 = cached_eval(close, 0, cache)
    if a.cache:
        with open(a.cache + ".tmp", "w") as f:
            json.dump(cache, f)
        os.replace(a.cache + ".tmp", a.cache)
    judges = {"ours 0-ply": {k: o for k, o in zip(close, ours(["cube", "--ply", "0", "--json"], close))},
              "ours 2-ply": {k: o for k, o in zip(close, ours(["cube", "--ply", "2", "--json"], close))},
              "gnubg 0-ply": {k: {"action": g["action"], "no_double": g["nd"], "double_take": g["dt"]}
                              for k, g in g0.items()}}
    for w in a.weights:
        for ply in (0, 2):
            answers = ours(["cube", "--ply", str(ply), "--json", "--weights", w], close)
            judges[f"{os.path.basename(w)} {ply}-ply"] = dict(zip(close, answers))
    if a.sage:
        judges["Open Sage 0-ply"] = {k: {"action": g["action"], "no_double": g["nd"],
                                         "double_take": g["dt"]}
                                     for k, g in sage_cube(close, 0).items()}
    if a.judge == "sage":
        ref = sage_cube(close, 2)
    summary = {"files": len(files), "turns": len(keys), "close": len(close)}
    kinds = {k: kind(k.split(":")[0]) for k in close} if a.by_kind else {}
    for name, answers in judges.items():
        answered = [k for k in close if k in answers and "action" in answers[k]]
        rows = [(ref[k], answers[k]) for k in answered]
        n = len(rows)
        if a.by_kind:
            costs = [(kinds[k], cost(ref[k], answers[k]["action"])) for k in answered]
            summary.setdefault("by_kind", {})[name] = {
                t: {"decisions": sum(1 for kk, _ in costs if kk == t),
                    "cost_emg": round(sum(c for kk, c in costs if kk == t), 3)}
                for t in KINDS}
        agree = sum(agrees(r["action"], o["action"]) for r, o in rows)
        summary[name] = {
            "decisions": n,
            "agree": round(agree / max(n, 1), 3),
            "cost_memg": round(1000 * sum(cost(r, o["action"]) for r, o in rows) / max(n, 1), 1),
            "equity_difference": round(sum(abs(o["no_double"] - r["nd"]) + abs(o["double_take"] - r["dt"])
                                           for r, o in rows) / max(2 * n, 1), 4),
        }
    if a.dump:
        rows = [{"position": k, "doubled": found[k], "judge": ref[k],
                 "answers": {name: answers[k] for name, answers in judges.items() if k in answers}}
                for k in close]
        with open(a.dump + ".tmp", "w") as f:
            json.dump(rows, f, indent=1)
        os.replace(a.dump + ".tmp", a.dump)
    if a.our_rollouts:
        summary["chances"] = chances_against_rollouts(close, judges, a.our_rollouts)
    if a.json:
        print(json.dumps(summary))
        return
    print(f"{summary['files']} files, {summary['turns']} turns with the cube at the score, "
          f"{summary['close']} close or actual by gnubg 2-ply; judge "
          f"{'gnubg' if a.judge == 'gnubg' else 'Open Sage'} 2-ply")
    for name in judges:
        s = summary[name]
        print(f"{name:<{max(12, *map(len, judges))}} agrees {100 * s['agree']:.1f}% of {s['decisions']}, "
              f"cost {s['cost_memg']:.1f} mEMG per decision, "
              f"equities {s['equity_difference']:.3f} from the judge's")
    if a.by_kind:
        print("cost by kind, EMG in all (mEMG a decision):")
        print(f"{'':<{max(12, *map(len, judges))}} " + "  ".join(f"{t:>20}" for t in KINDS))
        for name in judges:
            cells = []
            for t in KINDS:
                c = summary["by_kind"][name][t]
                per = 1000 * c["cost_emg"] / max(c["decisions"], 1)
                cells.append(f"{c['cost_emg']:>7.3f} ({per:4.1f}) n={c['decisions']:<3}")
            print(f"{name:<{max(12, *map(len, judges))}} " + "  ".join(f"{c:>20}" for c in cells))
    if a.our_rollouts:
        c = summary["chances"]
        print(f"chances against our own cubeless rollouts of the {c['decisions']} decisions "
              f"({a.our_rollouts} trials, shipped net): root mean square distance / mean")
        for name, r in c["rows"].items():
            print(f"{name:<{max(14, *map(len, c['rows']))}} win {r['win_rms']:.4f} / {r['win_bias']:+.4f}"
                  f"   gammons {r['gammon_rms']:.4f} / {r['gammon_bias']:+.4f}"
                  f"   cubeless equity {r['equity_rms']:.4f} / {r['equity_bias']:+.4f}")


def money(p):
    """Cubeless money equity of five chances."""
    return 2 * p[0] - 1 + p[1] - p[3] + p[2] - p[4]


def chances_against_rollouts(keys, judges, trials):
    """How far each row's cubeless chances of the decisions' boards are
    from our own rollouts of them (cubeless, the shipped net, 0-ply play
    to the end, seed 1): the root mean square and mean distance of the
    win chance, of the gammon chances (win and loss, each), and of the
    cubeless money equity. Our rows' chances are those `cube --json`
    answers with (its `probs`); gnubg's come from gnubg-nn at 0 and 2
    ply. A rollout is the truth of the net that plays it, so this asks
    how well each net's evaluation knows what our own play makes of a
    position, where the cube's decisions are made."""
    import gnubg_nn

    boards = [k.split(":")[0] for k in keys]
    reference = [r["probs"] for r in ours(["rollout", "--trials", str(trials), "--quiet"], boards)]
    rows = {name: [answers.get(k, {}).get("probs") for k in keys]
            for name, answers in judges.items()}
    for ply in (0, 2):
        rows[f"gnubg-nn {ply}-ply"] = [
            list(gnubg_nn.probabilities(gnubg_nn.board_from_position_id(b), ply)) for b in boards]

    def stats(pairs, f):
        d = [f(p) - f(r) for p, r in pairs]
        return (sum(x * x for x in d) / len(d)) ** 0.5, sum(d) / len(d)

    out = {}
    for name, probs in rows.items():
        pairs = [(p, r) for p, r in zip(probs, reference) if p]
        if not pairs:
            continue
        w, g, e = (stats(pairs, lambda p: p[0]),
                   stats([(p[i], r[i]) for p, r in pairs for i in (1, 3)], lambda x: x),
                   stats(pairs, money))
        out[name] = {"win_rms": round(w[0], 4), "win_bias": round(w[1], 4),
                     "gammon_rms": round(g[0], 4), "gammon_bias": round(g[1], 4),
                     "equity_rms": round(e[0], 4), "equity_bias": round(e[1], 4)}
    return {"decisions": len(keys), "trials": trials, "rows": out}


if __name__ == "__main__":
    main()
