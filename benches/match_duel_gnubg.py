#!/usr/bin/env python3
"""Match duel: whole matches with the cube against gnubg, in gnubg's program.

`strength.py` plays cubeless money games; what a player pays for in real
matches is checker play at match scores and cube action together. Here
gnubg 1.07 plays whole matches (`new match 7`, Crawford rule, its
default match equity table) with Sheshbesh as its external player
(`sheshbesh external`): every checker play, double, take, pass and
resignation of ours is answered over the socket, gnubg's own at
`--gnubg-ply` (checker play and cube decisions). No judge prices
anything: a match is won or lost.

Dice are duplicated: pair i is two matches on gnubg's Mersenne Twister
seeded `--seed + i`, ours player 0 in one and player 1 in the other, so
each side gets the other's dice (until the two matches part). The pair
is the independent unit of the standard error. `--opponent self:PLY[:W]`
plays a second Sheshbesh instead (a candidate net against the shipped
one in match play); gnubg then only keeps the score and rolls.

Prints our share of the matches won with its standard error, the games
and points each side won, and its gammons and backgammons. `--save
DIR` keeps every match as gnubg exports it (`.mat`), to be analysed
(`sheshbesh annotate`, gnubg's `analyse match`) or replayed.

Usage:
  apt-get install gnubg && cargo build --release
  python3 benches/match_duel_gnubg.py [--pairs 100] [--length 7] [--ply 0]
      [--gnubg-ply 0] [--opponent gnubg|self:PLY[:W]] [--weights FILE]
      [--seed 1] [--jobs 2] [--json] [--save DIR] [--binary PATH]
"""

import argparse
import json
import math
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BINARY = os.path.join(ROOT, "target", "release", "sheshbesh")
GNUBG = "/usr/games/gnubg"
# Seconds a match may take before the run is stopped as hung.
MATCH_TIMEOUT = 600

STARTED = re.compile(r"A new (\d+) points? match has been started")
# After each game; names are player 0's, then player 1's.
SCORE = re.compile(r"The score \(after \d+ games?\) is: (.+?) (\d+), (.+?) (\d+) \(match to")


class Server:
    """A `sheshbesh external` on a free loopback port."""

    def __init__(self, binary, ply, weights):
        cmd = [binary, "external", "--listen", "127.0.0.1:0", "--ply", str(ply)]
        if weights:
            cmd += ["--weights", weights]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
        banner = self.proc.stdout.readline().strip()
        if not banner.startswith("listening on "):
            self.proc.kill()
            raise SystemExit(f"sheshbesh external did not start: {banner!r}")
        self.addr = banner.removeprefix("listening on ")

    def close(self):
        self.proc.kill()
        self.proc.wait()


def player_setup(seat, opponent, gnubg_ply, ours_addr, theirs_addr):
    """gnubg commands that seat ours at `seat` and the opponent at the other."""
    other = 1 - seat
    cmds = [f"set player {seat} external {ours_addr}"]
    if opponent == "gnubg":
        cmds += [f"set player {other} gnubg",
                 f"set player {other} chequerplay evaluation plies {gnubg_ply}",
                 f"set player {other} cubedecision evaluation plies {gnubg_ply}"]
    else:
        cmds += [f"set player {other} external {theirs_addr}"]
    # No names: `new match` gives the players gnubg's defaults again, so
    # results are told apart by seat (see `read_match`).
    return cmds


def play_matches(seat, seeds, a, ours_addr, theirs_addr):
    """Plays one match per seed with ours at `seat`; returns each match's
    result: the winner, and each game's winner, kind and points."""
    cmds = ["set display off", "set rng mersenne",
            *player_setup(seat, a.opponent_kind, a.gnubg_ply, ours_addr, theirs_addr)]
    for s in seeds:
        cmds += [f"set seed {s}", f"new match {a.length}"]
        if a.save:
            cmds.append(f"export match mat {os.path.join(a.save, f'seed{s}-ours{seat}.mat')}")
    cmds.append("quit")
    try:
        text = subprocess.run([a.gnubg, "-t", "-q"], input="\n".join(cmds) + "\n",
                              capture_output=True, text=True,
                              timeout=MATCH_TIMEOUT * len(seeds)).stdout
    except subprocess.TimeoutExpired:
        raise SystemExit(f"gnubg took over {MATCH_TIMEOUT} s a match (seeds {seeds[0]} "
                         f"to {seeds[-1]}, ours player {seat}): hung")
    parts = STARTED.split(text)[1:]
    # split() keeps the length group: [length, text, length, text, ...]
    matches = parts[1::2]
    if len(matches) != len(seeds):
        raise SystemExit(f"gnubg started {len(matches)} matches of {len(seeds)} "
                         f"(seeds {seeds[0]} to {seeds[-1]}, ours player {seat}):\n{text[-2000:]}")
    return [read_match(m, seat, s, a.length) for s, m in zip(seeds, matches)]


def read_match(text, seat, seed, length):
    """One match's result from what gnubg printed: whether ours (player
    `seat`) won it, and each game's winner, kind and points. Players are
    named in gnubg's score lines, player 0 first."""
    where = f"the match of seed {seed} (ours player {seat})"
    scores = SCORE.findall(text)
    if not scores:
        raise SystemExit(f"{where} has no score line:\n{text[-2000:]}")
    names = (scores[0][0], scores[0][2])
    if names[0] == names[1]:
        raise SystemExit(f"{where}: both players are named {names[0]!r}")
    final = (int(scores[-1][1]), int(scores[-1][3]))
    if max(final) < length:
        raise SystemExit(f"{where} did not end: the score is {final[0]}-{final[1]}")
    winner = 0 if final[0] >= length else 1
    won = re.compile(rf"({re.escape(names[0])}|{re.escape(names[1])}) wins an? "
                     r"(single game|gammon|backgammon) and (\d+) points?")
    games = [{"ours": who == names[seat], "kind": kind, "points": int(p)}
             for who, kind, p in won.findall(text)]
    if len(games) != len(scores):
        raise SystemExit(f"{where}: {len(games)} games won for {len(scores)} score lines")
    return {"seed": seed, "ours_won": winner == seat, "games": games}


def summary(pairs):
    """Our share of matches won (pairs as the unit), and games' figures."""
    scores = [(x["ours_won"] + y["ours_won"]) / 2 for x, y in pairs]
    n = len(scores)
    mean = sum(scores) / n
    var = sum((x - mean) ** 2 for x in scores) / (n - 1) if n > 1 else 0.0
    games = [g for pair in pairs for m in pair for g in m["games"]]
    def tally(ours):
        won = [g for g in games if g["ours"] == ours]
        return {"games_won": len(won), "points": sum(g["points"] for g in won),
                "gammons": sum(g["kind"] == "gammon" for g in won),
                "backgammons": sum(g["kind"] == "backgammon" for g in won)}
    return {"matches": 2 * n, "ours_share": mean, "se": math.sqrt(var / n),
            "both_won": sum(s == 1 for s in scores), "split": sum(s == 0.5 for s in scores),
            "both_lost": sum(s == 0 for s in scores), "games": len(games),
            "ours": tally(True), "theirs": tally(False)}


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pairs", type=int, default=100)
    ap.add_argument("--length", type=int, default=7)
    ap.add_argument("--ply", type=int, default=0)
    ap.add_argument("--gnubg-ply", type=int, default=0)
    ap.add_argument("--opponent", default="gnubg", help="gnubg or self:PLY[:W]")
    ap.add_argument("--weights")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2,
                    help="gnubg processes per seat at once (each waits on the other side half the time)")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--save", metavar="DIR",
                    help="export every match gnubg played to DIR as seedS-oursK.mat (ours player K)")
    ap.add_argument("--binary", default=BINARY)
    ap.add_argument("--gnubg", default=GNUBG)
    a = ap.parse_args()
    if a.pairs < 1 or a.length < 1 or a.jobs < 1:
        raise SystemExit("--pairs, --length and --jobs must be at least 1")
    m = re.fullmatch(r"self:(\d+)(?::(.+))?", a.opponent)
    if a.opponent != "gnubg" and not m:
        raise SystemExit(f"bad --opponent {a.opponent!r}: gnubg or self:PLY[:W]")
    a.opponent_kind = "gnubg" if a.opponent == "gnubg" else "self"
    if a.save:
        os.makedirs(a.save, exist_ok=True)
    if not os.path.exists(a.gnubg):
        raise SystemExit(f"gnubg not found at {a.gnubg}: apt-get install gnubg")
    ours = Server(a.binary, a.ply, a.weights)
    theirs = Server(a.binary, int(m.group(1)), m.group(2)) if m else None
    try:
        seeds = list(range(a.seed, a.seed + a.pairs))
        chunks = [seeds[k::a.jobs] for k in range(a.jobs) if seeds[k::a.jobs]]
        with ThreadPoolExecutor(max_workers=2 * len(chunks)) as pool:
            runs = {(seat, k): pool.submit(play_matches, seat, c, a, ours.addr,
                                           theirs.addr if theirs else None)
                    for seat in (0, 1) for k, c in enumerate(chunks)}
            by_seed = [{}, {}]
            for (seat, _), f in runs.items():
                for r in f.result():
                    by_seed[seat][r["seed"]] = r
    finally:
        ours.close()
        if theirs:
            theirs.close()
    pairs = [(by_seed[0][s], by_seed[1][s]) for s in seeds]
    r = summary(pairs)
    gnubg_side = f"gnubg {a.gnubg_ply}-ply" if a.opponent == "gnubg" else f"sheshbesh {a.opponent}"
    r.update({"ours_side": f"sheshbesh {a.ply}-ply" + (f" ({a.weights})" if a.weights else ""),
              "opponent": gnubg_side, "length": a.length, "seed": a.seed})
    if a.json:
        print(json.dumps(r))
        return
    print(f"{r['ours_side']} against {gnubg_side}, {a.length}-point matches, "
          f"{r['matches']} matches on duplicate dice (seeds {a.seed} to {seeds[-1]}):")
    print(f"  ours won {100 * r['ours_share']:.1f}% ± {100 * r['se']:.1f}% of the matches "
          f"(pairs won both {r['both_won']}, split {r['split']}, lost both {r['both_lost']})")
    for side, name in (("ours", "ours"), ("theirs", gnubg_side)):
        t = r[side]
        print(f"  {name}: {t['games_won']} games won of {r['games']}, {t['points']} points, "
              f"{t['gammons']} gammons, {t['backgammons']} backgammons")


if __name__ == "__main__":
    sys.exit(main())
