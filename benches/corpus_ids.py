#!/usr/bin/env python3
"""Annotate a whole corpus of real match files and read back every ID.

Runs `sheshbesh annotate DIR --ply 0 --json` over a folder of match files
(for example the raw files of lassehjorthmadsen/bglab, `data-raw/*/raw/`),
then gives every decision's `PositionID:MatchID` to the Python package's
`evaluate`, which reads positions as every command does. Prints the files
read and refused (with each refusal), the decisions, and the IDs refused on
reading back: an ID we write that we cannot read is a defect.

Usage:
  cargo build --release && bash .ci/deps
  python3 benches/corpus_ids.py DIR [--binary target/release/sheshbesh]
"""

import argparse
import json
import subprocess
import sys

import sheshbesh


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir")
    ap.add_argument("--binary", default="target/release/sheshbesh")
    a = ap.parse_args()
    out = subprocess.run(
        [a.binary, "annotate", a.dir, "--ply", "0", "--json", "--quiet"],
        capture_output=True, text=True, check=False,
    )
    files = json.loads(out.stdout)
    refused = [f for f in files if f.get("error")]
    for f in refused:
        print(f"refused {f['file']}: {f['error']}")
    ids = sorted({d["position_id"] + ":" + d["match_id"]
                  for f in files for d in f.get("decisions", [])})
    decisions = sum(len(f.get("decisions", [])) for f in files)
    bad = []
    chunk = 5000
    for i in range(0, len(ids), chunk):
        part = ids[i:i + chunk]
        try:
            sheshbesh.evaluate(part)
        except sheshbesh.InputError:
            for one in part:
                try:
                    sheshbesh.evaluate([one])
                except sheshbesh.InputError as e:
                    bad.append((one, str(e)))
    for one, why in bad[:20]:
        print(f"not read back {one}: {why}")
    print(f"files {len(files)}, refused {len(refused)}; decisions {decisions}, "
          f"distinct IDs {len(ids)}, not read back {len(bad)}")
    return 1 if refused or bad else 0


if __name__ == "__main__":
    sys.exit(main())
