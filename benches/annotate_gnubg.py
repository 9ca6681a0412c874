#!/usr/bin/env python3
"""Compare `sheshbesh annotate` with gnubg's own analysis of a match.

gnubg's analysis is read from an analysed SGF (data/reference/
05_analysed_2ply_gnubg107.sgf: gnubg 1.07, 2-ply): per checker play the
`A[...]` move list (equities in EMG, the played move's index first), per cube
decision the `DA[...]` record (cubeful match-winning chances of no double and
double/take, turned into EMG with the Kazaross-XG2 table, which is gnubg
1.07's default). Our side is `sheshbesh annotate --json` on the .mat of the
same match. Decisions are matched by (game, move number, kind, player).

Prints: how many of gnubg's bad and very bad decisions we mark at all and at
bad or worse, how many we mark that gnubg does not, and both programs'
per-player error rates (mEMG per decision, over the decisions gnubg counts).

Usage:
  cargo build --release
  python3 benches/annotate_gnubg.py [--ply 2] [--binary target/release/sheshbesh]
      [--sgf data/reference/05_analysed_2ply_gnubg107.sgf]
      [--mat data/matches/05_galaxy_5pt_match2430002.mat]
"""

import argparse
import json
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DATA = os.path.join(ROOT, "data")

DOUBTFUL, BAD, VERY_BAD = 0.03, 0.06, 0.12


def mark(loss):
    if loss >= VERY_BAD:
        return "very bad"
    if loss >= BAD:
        return "bad"
    if loss >= DOUBTFUL:
        return "doubtful"
    return "none"


def games(text):
    """The main line of every game tree: list of (root props, [node props])."""
    out = []
    for tree in re.findall(r"\(;(.*?)\n?\)", text, flags=re.S):
        nodes = []
        for node in re.split(r"\n?;", tree):
            props = {}
            for key, vals in re.findall(r"([A-Z]+)((?:\[[^\]]*\])+)", node):
                props[key] = re.findall(r"\[([^\]]*)\]", vals)
            nodes.append(props)
        out.append(nodes)
    return out


class Met:
    """MWC lookups through sheshbesh itself (one source of truth)."""

    def __init__(self, binary, length):
        out = subprocess.run(
            [binary, "met", "--length", str(length), "--json"],
            capture_output=True, text=True, check=True,
        ).stdout
        v = json.loads(out)
        self.pre = v["pre_crawford"]
        self.post = v["post_crawford"]

    def mwc(self, a, b, post):
        if a <= 0:
            return 1.0
        if b <= 0:
            return 0.0
        if post and (a == 1 or b == 1):
            if a == 1 and b == 1:
                return 0.5
            return 1.0 - self.post[b - 1] if a == 1 else self.post[a - 1]
        return self.pre[a - 1][b - 1]

    def emg(self, mwc, a, b, cube, crawford, post):
        nxt_post = post or crawford
        w1 = self.mwc(a - cube, b, nxt_post)
        l1 = self.mwc(a, b - cube, nxt_post)
        return (2 * mwc - (w1 + l1)) / (w1 - l1)

    def cash(self, a, b, cube, crawford, post):
        return self.mwc(a - cube, b, post or crawford)


def gnubg_decisions(sgf_text, met, length):
    """gnubg's judged decisions: {(game, move, kind, player): (loss, played)}."""
    out = {}
    for nodes in games(sgf_text):
        root = nodes[0]
        mi = dict(v.split(":", 1) for v in root.get("MI", []) if ":" in v)
        game = int(mi.get("game", "0")) + 1
        score = [int(mi.get("ws", 0)), int(mi.get("bs", 0))]
        away = [length - score[0], length - score[1]]
        crawford_game = 1 in away and "Crawford" in root.get("RU", [""])[0]
        # Whether this is the Crawford game cannot be told from one tree; the
        # reference match has none at 1-away before the last games, so treat
        # the first 1-away game as Crawford.
        cube, move = 1, 0
        pending = None
        for node in nodes[1:]:
            for key, player in (("W", 0), ("B", 1)):
                if key not in node:
                    continue
                action = node[key][0]
                me, opp = away[player], away[1 - player]
                if "DA" in node:
                    f = node["DA"][0].split()
                    # E ver 3 <ctx> <n> <x> <n>, then for no double and for
                    # double/take: five probabilities, cubeless equity, cubeful MWC
                    nd_mwc, dt_mwc = float(f[13]), float(f[20])
                    crawf = crawford_game and False
                    nd = met.emg(nd_mwc, me, opp, cube, crawf, False)
                    dt = met.emg(dt_mwc, me, opp, cube, crawf, False)
                    dp = 1.0
                    best = max(nd, min(dt, dp))
                    is_double = action == "double"
                    if is_double:
                        loss = best - min(dt, dp)
                        out[(game, move + 1, "cube", player)] = (loss, "Double")
                        pending = (dt, dp)
                    else:
                        loss = best - nd
                        if min(dt, dp) > nd - 0.16:
                            out[(game, move + 1, "cube", player)] = (loss, "No double")
                if action in ("take", "drop") and pending:
                    dt, dp = pending
                    take, drop = -dt, -dp
                    loss = max(take, drop) - (take if action == "take" else drop)
                    out[(game, move + 1, "cube", player)] = (
                        loss, "Take" if action == "take" else "Pass")
                    if action == "take":
                        cube *= 2
                    pending = None
                if re.match(r"^\d\d", action):
                    move += 1
                    if "A" in node and len(node["A"]) > 2:
                        idx = int(node["A"][0])
                        eqs = [float(r.split()[9]) for r in node["A"][1:]]
                        loss = max(eqs) - eqs[idx]
                        out[(game, move, "checker", player)] = (loss, None)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ply", type=int, default=2)
    ap.add_argument("--binary", default=os.path.join(ROOT, "target", "release", "sheshbesh"))
    ap.add_argument("--sgf", default=os.path.join(
        DATA, "reference", "05_analysed_2ply_gnubg107.sgf"))
    ap.add_argument("--mat", default=os.path.join(
        DATA, "matches", "05_galaxy_5pt_match2430002.mat"))
    ap.add_argument("--weights")
    a = ap.parse_args()

    cmd = [a.binary, "annotate", a.mat, "--ply", str(a.ply), "--json", "--quiet"]
    if a.weights:
        cmd += ["--weights", a.weights]
    t0 = time.time()
    ours_json = json.loads(subprocess.run(cmd, capture_output=True, text=True,
                                          check=True).stdout)
    seconds = time.time() - t0
    length = ours_json["length"]
    names = [p["name"] for p in ours_json["players"]]
    met = Met(a.binary, length)
    with open(a.sgf) as f:
        ref = gnubg_decisions(f.read(), met, length)

    ours = {}
    for d in ours_json["decisions"]:
        player = names.index(d["player"])
        ours[(d["game"], d["move"], d["kind"], player)] = d

    theirs_marked = {k: v for k, v in ref.items() if mark(v[0]) in ("bad", "very bad")}
    we_mark = sum(1 for k in theirs_marked if k in ours and ours[k]["mark"] != "none")
    we_bad = sum(1 for k in theirs_marked
                 if k in ours and ours[k]["mark"] in ("bad", "very bad"))
    extra = sum(1 for k, d in ours.items()
                if d["mark"] in ("bad", "very bad") and mark(ref.get(k, (0,))[0]) == "none")
    common = [k for k in ref if k in ours]

    print(f"match: {os.path.basename(a.mat)}, sheshbesh at {a.ply}-ply, "
          f"{seconds:.1f} s; gnubg reference: {os.path.basename(a.sgf)}")
    print(f"decisions: gnubg {len(ref)}, ours {len(ours)}, matched {len(common)}")
    print(f"gnubg's bad or very bad decisions: {len(theirs_marked)}; we mark "
          f"{we_mark} of them ({we_bad} as bad or very bad)")
    print(f"we mark bad or very bad where gnubg marks nothing: {extra}")
    for p in range(2):
        for kind in ("checker", "cube", None):
            ks = [k for k in common if k[3] == p and (kind is None or k[2] == kind)]
            if not ks:
                continue
            g = 1000 * sum(ref[k][0] for k in ks) / len(ks)
            o = 1000 * sum(ours[k]["equity_loss"] for k in ks) / len(ks)
            label = kind or "all"
            print(f"  {names[p]:<14} {label:<8} {len(ks):>4} decisions: "
                  f"gnubg {g:5.1f} mEMG/decision, ours {o:5.1f}")


if __name__ == "__main__":
    sys.exit(main())
