#!/usr/bin/env python3
"""Strength benchmark: cubeless money games on duplicate dice.

Plays Sheshbesh (driven as a co-process through `sheshbesh hint --batch`)
against an opponent and prints points per game with its standard error.
Each dice stream is played twice with the sides swapped; the pair is the
independent unit of the standard error.

Opponents:
  pubeval        Tesauro's pubeval (gnubg-nn's copy)
  gnubg0         GNU Backgammon's 0-ply evaluation (gnubg-nn)
  gnubgN         gnubg at N ply (slow)
  sage1          Open Sage at its 1-ply (= gnubg's 0-ply), cubeless
                 (pip install bgsage); sageN its N-ply
  self:PLY[:W]   Sheshbesh itself at PLY with weights W (default: shipped)

Diagnosis: --gnubg-plays CLASS lets gnubg 0-ply choose our plays in one
class of position (race: races and bear-offs, crashed, contact: gnubg's own
classification; first:N: our first N moves of each game), so the change in
points per game is what our play in that class costs.

Usage:
  pip install gnubg-nn
  cargo build --release
  python3 benches/strength.py --opponent gnubg0 --pairs 1000 [--ply 0]
      [--weights FILE] [--seed 1] [--jobs 2] [--json] [--binary PATH]
"""
import argparse
import json
import math
import os
import random
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

import gnubg_nn as g

HERE = os.path.dirname(os.path.abspath(__file__))
BINARY = os.path.join(HERE, "..", "target", "release", "sheshbesh")


class Sheshbesh:
    """A Sheshbesh co-process answering one hint per line."""

    def __init__(self, ply, weights, binary=None):
        # The games are cubeless, so plays are ranked cubeless: `hint`
        # ranks by cubeful equity unless told otherwise, which plays a
        # cubeless game worse (a live cube stops valuing gammons).
        cmd = [binary or BINARY, "hint", "--batch", "--cubeless", "--ply", str(ply)]
        if weights:
            cmd += ["--weights", weights]
        self.proc = subprocess.Popen(
            cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
        )

    def play(self, board, d1, d2):
        self.proc.stdin.write(f"{g.position_id(board)} {d1}{d2}\n")
        self.proc.stdin.flush()
        answer = json.loads(self.proc.stdout.readline())
        if "error" in answer:
            raise RuntimeError(answer["error"])
        after = g.board_from_position_id(answer["moves"][0]["position_id"])
        return [list(after[0]), list(after[1])]

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


class Gnubg:
    def __init__(self, ply):
        self.ply = ply

    def play(self, board, d1, d2):
        # The board after the play (`b=1`), not the candidate list: with
        # `list=1` gnubg-nn 1.1.0a11's searches above 0-ply crash or hang
        # when one play is forced (YbeJASSw5+ABYA with 62, q70PAABtuwcAAA
        # with 66).
        r = g.best_move(board, d1, d2, n=self.ply, b=1)
        if not r or not r[0] or not r[1]:
            return [list(board[1]), list(board[0])]
        after = g.board_from_position_key(r[1])
        return [list(after[0]), list(after[1])]

    def close(self):
        pass


class Sage:
    """Open Sage (`pip install bgsage`) at its 1-ply (gnubg's 0-ply), its
    cubeless choice: the play its production nets value highest. Its board
    is 26 integers from the mover's side: points 1-24 with the mover's
    checkers positive and the opponent's negative, 25 the mover's bar and 0
    the opponent's bar (a positive count)."""

    def __init__(self, level):
        import bgsage
        self.analyzer = bgsage.create_analyzer(level=level, cubeful=False)

    @staticmethod
    def to_sage(board):
        opp, me = board
        b = [0] * 26
        for i in range(24):
            b[i + 1] += me[i]
            b[24 - i] -= opp[i]
        b[25] = me[24]
        b[0] = opp[24]
        return b

    @staticmethod
    def from_sage(b):
        me, opp = [0] * 25, [0] * 25
        for i in range(1, 25):
            if b[i] > 0:
                me[i - 1] = b[i]
            elif b[i] < 0:
                opp[24 - i] = -b[i]
        me[24], opp[24] = b[25], b[0]
        return me, opp

    def play(self, board, d1, d2):
        r = self.analyzer.checker_play(self.to_sage(board), d1, d2)
        if not r.moves:
            return [list(board[1]), list(board[0])]
        me, opp = self.from_sage(r.moves[0].board)
        return [me, opp]

    def close(self):
        pass


class Pubeval:
    def play(self, board, d1, d2):
        best = g.pub_best_move(board, d1, d2)
        me = list(board[1])
        opp = list(board[0])
        for i in range(0, len(best), 2):
            a, b = best[i], best[i + 1]
            me[a] -= 1
            if b >= 0:
                me[b] += 1
                if opp[23 - b] == 1:
                    opp[23 - b] = 0
                    opp[24] += 1
        return [me, opp]

    def close(self):
        pass


def make(spec, weights):
    if spec == "pubeval":
        return Pubeval()
    if spec.startswith("gnubg"):
        return Gnubg(int(spec[5:] or 0))
    if spec.startswith("sage"):
        # sage1 is Open Sage's 1-ply (gnubg's 0-ply), sage2 its 2-ply.
        return Sage(f"{int(spec[4:] or 1)}ply")
    if spec.startswith("self:"):
        parts = spec.split(":", 2)
        return Sheshbesh(int(parts[1]), parts[2] if len(parts) > 2 else None)
    raise SystemExit(f"unknown opponent {spec!r}")


def play_game(players, rng):
    """players[0] moves first; returns points won by players[0]."""
    board = g.board_from_position_id("4HPwATDgc/ABMA")
    board = [list(board[0]), list(board[1])]
    while True:
        d1, d2 = rng.randint(1, 6), rng.randint(1, 6)
        if d1 != d2:
            break
    mover = 0
    while True:
        after = players[mover].play(board, d1, d2)
        # after: [mover's checkers, new player on roll's checkers]
        if sum(after[0]) == 0:
            loser = after[1]
            pts = 1
            if sum(loser) == 15:
                pts = 2
                if loser[24] > 0 or sum(loser[18:24]) > 0:
                    pts = 3
            return pts if mover == 0 else -pts
        board = after
        mover = 1 - mover
        d1, d2 = rng.randint(1, 6), rng.randint(1, 6)


class Diagnosis:
    """Ours, except where gnubg 0-ply plays for us (see --gnubg-plays)."""

    def __init__(self, ours, spec):
        self.ours, self.gnubg, self.spec, self.moves = ours, Gnubg(0), spec, 0

    def new_game(self):
        self.moves = 0

    def play(self, board, d1, d2):
        self.moves += 1
        if self.spec.startswith("first:"):
            theirs = self.moves <= int(self.spec[6:])
        else:
            c = g.classify(board)
            theirs = {"race": c in (g.c_race, g.c_bearoff), "crashed": c == g.c_crashed,
                      "contact": c == g.c_contact}[self.spec]
        return (self.gnubg if theirs else self.ours).play(board, d1, d2)

    def close(self):
        self.ours.close()


def worker(args):
    lo, hi, a = args
    ours = Sheshbesh(a.ply, a.weights, a.binary)
    if a.gnubg_plays:
        ours = Diagnosis(ours, a.gnubg_plays)
    other = make(a.opponent, a.weights)
    out = []
    for i in range(lo, hi):
        if a.gnubg_plays:
            ours.new_game()
        g1 = play_game([ours, other], random.Random(a.seed * 1_000_003 + i))
        if a.gnubg_plays:
            ours.new_game()
        g2 = -play_game([other, ours], random.Random(a.seed * 1_000_003 + i))
        out.append((g1 + g2) / 2)
    ours.close()
    other.close()
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--opponent", default="gnubg0")
    ap.add_argument("--pairs", type=int, default=1000)
    ap.add_argument("--ply", type=int, default=0)
    ap.add_argument("--weights")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--binary", help="sheshbesh binary (default: target/release/sheshbesh)")
    ap.add_argument("--gnubg-plays", metavar="CLASS",
                    help="diagnosis: gnubg 0-ply plays our race, crashed or contact positions, or first:N moves")
    a = ap.parse_args()
    if a.gnubg_plays and not (a.gnubg_plays in ("race", "crashed", "contact")
                              or (a.gnubg_plays.startswith("first:") and a.gnubg_plays[6:].isdigit())):
        raise SystemExit(f"bad --gnubg-plays {a.gnubg_plays!r}: race, crashed, contact or first:N")
    chunks = max(a.jobs * 8, 1)
    bounds = [(a.pairs * k // chunks, a.pairs * (k + 1) // chunks, a) for k in range(chunks)]
    # A pool that reports a dead worker (mp.Pool waits for a crashed one
    # forever, as it did when gnubg-nn crashed; see Gnubg.play).
    try:
        with ProcessPoolExecutor(max_workers=a.jobs) as pool:
            means = [x for part in pool.map(worker, bounds) for x in part]
    except BrokenProcessPool:
        raise SystemExit(f"a worker died playing against {a.opponent}; no result")
    n = len(means)
    mean = sum(means) / n
    var = sum((x - mean) ** 2 for x in means) / (n - 1) if n > 1 else 0.0
    se = math.sqrt(var / n)
    result = {
        "ours": f"sheshbesh {a.ply}-ply" + (f" ({a.weights})" if a.weights else "")
        + (f", gnubg playing our {a.gnubg_plays}" if a.gnubg_plays else ""),
        "opponent": a.opponent,
        "games": 2 * n,
        "ppg": round(mean, 4),
        "se": round(se, 4),
        "seed": a.seed,
    }
    if a.json:
        print(json.dumps(result))
    else:
        print(f"{result['ours']} vs {a.opponent}: {mean:+.3f} ppg ± {se:.3f} over {2 * n} games (seed {a.seed})")


if __name__ == "__main__":
    main()
