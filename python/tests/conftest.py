"""Shared fixtures: the command line the package is compared with.

The tests compare the package with `target/release/sheshbesh` (built by
the README's test command before pytest runs). A missing binary fails
the tests with the command that builds it, never skips them.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any, List, Tuple

import pytest

ROOT = Path(__file__).resolve().parents[2]
MATCHES = ROOT / "data" / "matches"


class Cli:
    """Runs `sheshbesh` and reads its answers."""

    def __init__(self, binary: Path) -> None:
        self.binary = binary

    def run(self, *args: str) -> Tuple[int, str, str]:
        p = subprocess.run(
            [str(self.binary), *args], capture_output=True, text=True, timeout=600
        )
        return p.returncode, p.stdout, p.stderr

    def json(self, *args: str) -> Any:
        code, out, err = self.run(*args, "--json")
        assert code == 0, f"sheshbesh {' '.join(args)} --json failed: {err}"
        return json.loads(out)

    def text(self, *args: str) -> str:
        code, out, err = self.run(*args)
        assert code in (0, 1), f"sheshbesh {' '.join(args)} failed: {err}"
        return out

    def error(self, *args: str) -> str:
        """The one line the command prints for bad input, without the
        program's name."""
        code, out, err = self.run(*args)
        assert code != 0, f"sheshbesh {' '.join(args)} succeeded: {out}"
        lines: List[str] = err.strip().splitlines()
        assert len(lines) == 1, f"expected one line, got {err!r}"
        return lines[0].removeprefix("sheshbesh: ")


@pytest.fixture(scope="session")
def cli() -> Cli:
    binary = Path(os.environ.get("SHESHBESH_BIN", ROOT / "target" / "release" / "sheshbesh"))
    if not binary.exists():
        pytest.fail(
            f"{binary} is missing: build it with `cargo build --release` "
            "(the README's test command does) or set SHESHBESH_BIN"
        )
    return Cli(binary)
