#!/usr/bin/env python3
"""Checker play at match scores, ours against gnubg's, on real match positions.

Takes the checker decisions of real match files (`sheshbesh annotate --json`
gives each one's Position ID, Match ID and dice), asks gnubg 1.07 for its
ranked plays with the score (`set gnubgid P:M`, `hint`): at `--judge-ply`
(2 by default) as the judge, at `--ply` as the rival. Asks
`sheshbesh hint --batch` at `--ply` with the Match ID, by cubeful equity
(the default) and with `--cubeless`, and with the Position ID alone (money
play). Prints for each how often it picks the judge's play and its mean
cost: the judge's equity of its best play minus that of the play picked,
in mEMG (gnubg's cubeful EMG). A play the judge does not list (it shows
the plays its filters kept) is priced at the judge's last listed play and
counted apart.

Plays are compared by what they do to the board (each point's net change
and the points hit), so notations of one play match: `24/18 13/11` =
`13/11 24/18`, `8/4*(2)` = `8/4* 8/4`, `5/3*/1* 5/1` = `5/3*/1*(2)`,
`13/8 8/5` = `13/5`.

Usage:
  apt-get install gnubg && cargo build --release
  python3 benches/match_play_gnubg.py [--ply 0] [--judge-ply 2] [--limit 400]
      [--judge gnubg|sage] [--sage] [--gnubg-net]
      [--binary target/release/sheshbesh] [--weights FILE ...] [--by-kind]
      [FILES...]

`--by-kind` also splits each row's cost by kind of position, as
`match_cube_gnubg.py --by-kind` does (races, blitzes, holding games with
two anchors, other contact; needs gnubg-nn), and by score: double match
point, the Crawford game, after it, a side 2-away, and the rest.

`--judge sage` makes Open Sage (`pip install bgsage`) the judge instead,
at `--judge-ply` in gnubg's count (Sage's "3ply" is gnubg's 2-ply): a
second referee with nets of its own, to tell what the plays cost from
what gnubg 2-ply's partiality to gnubg's own net adds. Sage ranks every
legal play; the plays the rows picked are valued at the full level
whatever its filter keeps, and the rest at the level of the best play
are listed.

`--sage` adds a row of Open Sage's own picks at `--ply`; `--gnubg-net`
a row of gnubg's net's 0-ply chances valued as `--cubeless` values ours
(by the match equity table, the cube held dead): the same valuation
with another net, to tell the net's part of a gap from the cube
model's.

Each `--weights FILE` adds a row of that net's cubeful picks beside the
shipped net's (a candidate net measured against the shipped one in one
run). `--cache FILE` keeps gnubg's and Sage's answers (by judge, ply,
position, score and dice) and asks each only for those it lacks, so
later runs that measure candidate nets on the same decisions take
seconds, not minutes.
"""

import argparse
import base64
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
MATCHES = os.path.join(ROOT, "data", "matches")
DEFAULT_FILES = [
    "03_galaxy_3pt_match1061881.mat",
    "05_galaxy_5pt_match2430002.mat",
    "07_galaxy_7pt_match7663225.mat",
    "13_bgstudio_5pt_Magic-Lasse.mat",
    "14_bgstudio_9pt_Llabba-faith23.mat",
    "16_bgstudio_13pt_Llabba-grahamd.mat",
]


def norm(play):
    """A play as what it does to the board: each point's net change of
    the mover's checkers (bar 25, off 0) and the points it hits. Notations
    of one play differ (`5/3*/1* 5/1` and gnubg's `5/3*/1*(2)`, `13/8 8/5`
    and `13/5`); the board after it does not."""
    delta, hits = {}, set()
    for m in play.lower().split():
        n = re.match(r"^(.*)\((\d)\)$", m)
        path, times = (n.group(1), int(n.group(2))) if n else (m, 1)
        points = path.split("/")
        for p in points[1:]:
            if p.endswith("*"):
                hits.add(p.rstrip("*"))
        steps = [0 if p.rstrip("*") == "off" else 25 if p == "bar" else int(p.rstrip("*"))
                 for p in points]
        delta[steps[0]] = delta.get(steps[0], 0) - times
        delta[steps[-1]] = delta.get(steps[-1], 0) + times
    return (tuple(sorted((k, v) for k, v in delta.items() if v)), tuple(sorted(hits)))


SCORES = ("double match point", "Crawford game", "post-Crawford", "2-away", "other scores")


def match_id_field(match_id, start, width):
    """A field of a Match ID: its 9 bytes are little-endian bit fields."""
    bits = int.from_bytes(base64.b64decode(match_id), "little")
    return (bits >> start) & ((1 << width) - 1)


def match_facts(match_id):
    """Cube value, cube owner (in Sage's words), away counts of the side
    on roll and of its opponent, and the Crawford flag of a Match ID."""

    def field(start, width):
        return match_id_field(match_id, start, width)

    turn, length, owner = field(11, 1), field(21, 15), field(4, 2)
    scores = (field(36, 15), field(51, 15))
    owner = "centered" if owner == 3 else "player" if owner == turn else "opponent"
    return (1 << field(0, 4), owner, length - scores[turn], length - scores[1 - turn],
            bool(field(7, 1)))


def score_kind(match_id):
    """The kind of score of a Match ID (one of SCORES), from the side on
    roll."""
    _, _, me, opp, crawford = match_facts(match_id)
    if me == 1 and opp == 1:
        return SCORES[0]
    if min(me, opp) == 1:
        return SCORES[1] if crawford else SCORES[2]
    return SCORES[3] if min(me, opp) == 2 else SCORES[4]


def decisions(binary, files, limit):
    out = []
    for f in files:
        v = json.loads(subprocess.run(
            [binary, "annotate", f, "--ply", "0", "--json", "--quiet"],
            capture_output=True, text=True, check=True).stdout)
        if v.get("length", 0) == 0:
            continue
        for d in v["decisions"]:
            if d["kind"] == "checker":
                out.append((d["position_id"], d["match_id"], d["dice"]))
    return out[:limit]


def gnubg_hints(positions, ply):
    """gnubg's ranked plays for each (position ID, match ID, dice): a list
    of (play, equity), best first, or None where it gave no answer."""
    lines = [
        "set player 0 human",
        "set player 1 human",
        f"set evaluation chequerplay evaluation plies {ply}",
    ]
    for pos, mid, _ in positions:
        lines += [f"set gnubgid {pos}:{mid}", "hint 999"]
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write("\n".join(lines) + "\n")
        script = f.name
    try:
        text = subprocess.run(
            ["script", "-qc", f"/usr/games/gnubg -t -q < {script}", "/dev/null"],
            capture_output=True, text=True, timeout=3600).stdout
    finally:
        os.unlink(script)
    hints = []
    # Each position's answer follows gnubg's "Setting GNUbg ID" line.
    for chunk in text.split("Setting GNUbg ID")[1: len(positions) + 1]:
        plays = re.findall(r"\b\d+\.\s+Cubeful\s+\d-ply\s+(.*?)\s+Eq\.:\s+([-+]\d+\.\d+)", chunk)
        hints.append([(p.strip(), float(e)) for p, e in plays] or None)
    return hints


def cached_hints(positions, ply, cache):
    """gnubg_hints through `cache` (a dict, keyed by ply and decision):
    gnubg is asked only for the decisions the cache lacks."""
    keys = [f"{ply} {p}:{m} {d}" for p, m, d in positions]
    missing = [i for i, k in enumerate(keys) if k not in cache]
    if missing:
        for i, h in zip(missing, gnubg_hints([positions[i] for i in missing], ply)):
            cache[keys[i]] = h
    return [cache[k] for k in keys]


def load_cache(path):
    if not path or not os.path.exists(path):
        return {}
    with open(path) as f:
        return {k: [tuple(x) for x in v] if v else None for k, v in json.load(f).items()}


def save_cache(path, cache):
    """Written whole to a temporary file and renamed over the old one."""
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(cache, f)
    os.replace(tmp, path)


def cost(judge, play):
    """The judge's equity of its best play minus that of `play` (priced at
    its last listed play when not listed), and whether it was listed."""
    eq = {norm(p): e for p, e in judge}
    listed = norm(play) in eq
    return judge[0][1] - (eq[norm(play)] if listed else judge[-1][1]), listed


def ours_plays(binary, inputs):
    """Every legal play of each decision, as ours lists them: a dict from
    each play's effect (`norm`) to its notation and the Position ID after
    it (the opponent on roll), or None where there was no answer."""
    text = "\n".join(inputs) + "\n"
    out = subprocess.run([binary, "hint", "--ply", "0", "--batch"], input=text,
                         capture_output=True, text=True, check=True).stdout
    plays = []
    for line in out.splitlines():
        v = json.loads(line)
        plays.append({norm(m["move"]): (m["move"], m["position_id"]) for m in v["moves"]}
                     if "moves" in v else None)
    return plays


_SAGE = {}


def need_sage():
    """Stops with one line when Open Sage is not installed."""
    try:
        import bgsage  # noqa: F401
    except ImportError:
        sys.exit("Open Sage is not installed: pip install bgsage")


def sage_hint(job):
    """Open Sage's ranked plays of one decision, in our notation: (play,
    equity) best first, the forced plays and those valued at the best
    play's level; None when Sage finds no legal play."""
    from strength import Sage
    import bgsage
    import gnubg_nn

    level, pos, mid, dice, plays, forced = job
    if level not in _SAGE:
        _SAGE[level] = bgsage.create_analyzer(level=level, cubeful=True)

    def after(pid):
        opp, me = gnubg_nn.board_from_position_id(pid)
        return tuple(Sage.to_sage((me, opp)))

    cube, owner, me, opp, crawford = match_facts(mid)
    notation = {after(pid): move for move, pid in plays.values()}
    forced_boards = [after(plays[k][1]) for k in forced]
    r = _SAGE[level].checker_play(Sage.to_sage(gnubg_nn.board_from_position_id(pos)),
                                  int(dice[0]), int(dice[1]), cube_value=cube, cube_owner=owner,
                                  away1=me, away2=opp, is_crawford=crawford and min(me, opp) == 1,
                                  force_boards=[list(b) for b in forced_boards])
    if not r.moves:
        return None
    top = r.moves[0].eval_level
    return [(notation[tuple(m.board)], m.equity) for m in r.moves
            if (m.eval_level == top or tuple(m.board) in forced_boards)
            and tuple(m.board) in notation]


def sage_hints(positions, ply, cache, plays, picks):
    """Open Sage's judgement of each decision (see `sage_hint`) at gnubg's
    `ply`, through `cache` as `cached_hints`; the plays in `picks` are
    valued at the full level (a cached answer that lacks one is asked
    again)."""
    from concurrent.futures import ProcessPoolExecutor

    keys = [f"sage{ply} {p}:{m} {d}" for p, m, d in positions]
    jobs = []
    for i, (p, m, d) in enumerate(positions):
        if not plays[i]:
            continue
        forced = {norm(best[i]) for best in picks.values() if best[i]} & plays[i].keys()
        if keys[i] in cache and (cache[keys[i]] is None
                                 or forced <= {norm(play) for play, _ in cache[keys[i]]}):
            continue
        jobs.append((i, (f"{ply + 1}ply", p, m, d, plays[i], sorted(forced))))
    with ProcessPoolExecutor(os.cpu_count()) as pool:
        for (i, _), h in zip(jobs, pool.map(sage_hint, [j for _, j in jobs], chunksize=16)):
            cache[keys[i]] = h
    return [cache.get(k) for k in keys]


def dead_cube_outcomes(met, match_id):
    """The mover's MWC after each outcome of the game at this cube (win
    1, 2, 3 times the cube, lose 1, 2, 3 times), from `sheshbesh met
    --json`'s tables: the cube held dead, as `hint --cubeless` values."""
    cube, _, me, opp, _ = match_facts(match_id)
    pre, post = met["pre_crawford"], met["post_crawford"]
    post_crawford = min(me, opp) == 1

    def mwc(a, b):
        if a <= 0 or b <= 0:
            return 1.0 if a <= 0 else 0.0
        if a == 1 and b == 1:
            return 0.5
        if min(a, b) == 1 and post_crawford:
            return 1.0 - post[b - 1] if a == 1 else post[a - 1]
        return pre[a - 1][b - 1]

    return [mwc(me - k * cube, opp) for k in (1, 2, 3)] + \
        [mwc(me, opp - k * cube) for k in (1, 2, 3)]


def gnubg_net_best(binary, positions, plays):
    """The play gnubg's net (gnubg-nn, 0-ply) values highest when its
    chances are valued as ours are with `--cubeless`: a row that tells
    the net's part from the cube model's."""
    import gnubg_nn

    met = json.loads(subprocess.run([binary, "met", "--json"], capture_output=True,
                                    text=True, check=True).stdout)
    best = []
    for (_, mid, _), ps in zip(positions, plays):
        if not ps:
            best.append(None)
            continue
        a = dead_cube_outcomes(met, mid)

        def value(pid):
            # gnubg-nn's chances are the side on roll's: the opponent's.
            w, wg, wbg, lg, lbg = gnubg_nn.probabilities(gnubg_nn.board_from_position_id(pid), 0)
            return ((1 - w - lg) * a[0] + (lg - lbg) * a[1] + lbg * a[2]
                    + (w - wg) * a[3] + (wg - wbg) * a[4] + wbg * a[5])

        best.append(max(ps.values(), key=lambda m: value(m[1]))[0])
    return best


def ours_best(binary, inputs, ply, *flags):
    text = "\n".join(inputs) + "\n"
    out = subprocess.run([binary, "hint", "--ply", str(ply), "--batch", *flags], input=text,
                         capture_output=True, text=True, check=True).stdout
    best = []
    for line in out.splitlines():
        v = json.loads(line)
        best.append(v["moves"][0]["move"] if "moves" in v else None)
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ply", type=int, default=0)
    ap.add_argument("--judge-ply", type=int, default=2)
    ap.add_argument("--judge", choices=["gnubg", "sage"], default="gnubg",
                    help="the judge: gnubg 1.07 or Open Sage (pip install bgsage)")
    ap.add_argument("--gnubg-net", action="store_true",
                    help="add a row of gnubg's 0-ply chances valued as ours --cubeless values")
    ap.add_argument("--sage", action="store_true",
                    help="add a row of Open Sage's own picks at --ply (pip install bgsage)")
    ap.add_argument("--limit", type=int, default=400)
    ap.add_argument("--binary", default=os.path.join(ROOT, "target", "release", "sheshbesh"))
    ap.add_argument("--weights", action="append", default=[],
                    help="also rank with this weights file (repeatable)")
    ap.add_argument("--dump", help="write every decision's picks and costs to this JSON file")
    ap.add_argument("--cache", help="keep the referees' answers in this JSON file and reuse them")
    ap.add_argument("--by-kind", action="store_true",
                    help="split each row's cost by kind of position and of score (needs gnubg-nn)")
    ap.add_argument("files", nargs="*")
    a = ap.parse_args()
    if a.sage or a.judge == "sage":
        need_sage()
    files = a.files or [os.path.join(MATCHES, f) for f in DEFAULT_FILES]
    pos = decisions(a.binary, files, a.limit)
    cache = load_cache(a.cache)
    rival = cached_hints(pos, a.ply, cache)
    if a.judge == "gnubg":
        judge = cached_hints(pos, a.judge_ply, cache)
    with_score = [f"{p}:{m} {d}" for p, m, d in pos]
    picks = {
        f"ours {a.ply}-ply, cubeful": ours_best(a.binary, with_score, a.ply),
        f"ours {a.ply}-ply, cubeless": ours_best(a.binary, with_score, a.ply, "--cubeless"),
        f"ours {a.ply}-ply, as money": ours_best(a.binary, [f"{p} {d}" for p, m, d in pos], a.ply),
        f"gnubg {a.ply}-ply": [r[0][0] if r else None for r in rival],
    }
    for w in a.weights:
        picks[f"ours {a.ply}-ply, {os.path.basename(w)}"] = ours_best(
            a.binary, with_score, a.ply, "--weights", w)
    plays = (ours_plays(a.binary, with_score)
             if a.sage or a.gnubg_net or a.judge == "sage" else None)
    if a.gnubg_net:
        picks["gnubg's net, valued as ours"] = gnubg_net_best(a.binary, pos, plays)
    if a.sage:
        ranked = sage_hints(pos, a.ply, cache, plays, {})
        picks[f"Open Sage {a.ply}-ply"] = [r[0][0] if r else None for r in ranked]
    if a.judge == "sage":
        judge = sage_hints(pos, a.judge_ply, cache, plays, picks)
    if a.cache:
        save_cache(a.cache, cache)
    n = sum(1 for j in judge if j)
    print(f"{len(pos)} checker decisions from {len(files)} match files; "
          f"judge {'gnubg' if a.judge == 'gnubg' else 'Open Sage'} {a.judge_ply}-ply "
          f"answered {n}")
    width = max(26, *(len(name) for name in picks))
    print(f"{'player':<{width}} {'agrees':>14} {'mEMG/play':>10} {'unlisted':>9}")
    groups = {}
    if a.by_kind:
        from match_cube_gnubg import KINDS, kind
        groups = {g: [] for g in KINDS + SCORES}
        for i, (p, m, _) in enumerate(pos):
            groups[kind(p)].append(i)
            groups[score_kind(m)].append(i)
    split = {}
    for name, best in picks.items():
        agree, total, unlisted, k = 0, 0.0, 0, 0
        costs = [None] * len(pos)
        for i, (j, o) in enumerate(zip(judge, best)):
            if not j or o is None:
                continue
            c, listed = cost(j, o)
            costs[i] = c
            k += 1
            total += c
            agree += c <= 1e-9
            unlisted += not listed
        print(f"{name:<{width}} {agree:>5}/{k:<4} {100.0 * agree / max(k, 1):4.1f}% "
              f"{1000.0 * total / max(k, 1):>10.2f} {unlisted:>9}")
        split[name] = {g: [costs[i] for i in idx if costs[i] is not None] for g, idx in groups.items()}
    if a.by_kind:
        print("cost by kind of position and of score, EMG in all (mEMG a play):")
        col = max(28, *(len(name) + 2 for name in picks))
        print(f"{'':<20}" + "".join(f"{name:>{col}}" for name in picks))
        for g in groups:
            cells = []
            for name in picks:
                c = split[name][g]
                cells.append(f"{sum(c):7.2f} ({1000 * sum(c) / max(len(c), 1):5.2f}) n={len(c):<4}")
            print(f"{g:<20}" + "".join(f"{c:>{col}}" for c in cells))
    if a.dump:
        rows = []
        for i, (p, m, d) in enumerate(pos):
            if not judge[i]:
                continue
            row = {"position": f"{p}:{m}", "dice": d, "judge": judge[i][:8], "picks": {}}
            for name, best in picks.items():
                if best[i] is not None:
                    row["picks"][name] = [best[i], round(cost(judge[i], best[i])[0], 4)]
            rows.append(row)
        with open(a.dump, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
