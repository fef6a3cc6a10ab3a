"""Write docs/cli.md from the argparse help of every command.

Run after changing a command: ``python scripts/gen_cli_docs.py``. A test fails
when the page and ``--help`` disagree.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

PAGE = Path(__file__).resolve().parent.parent / "docs" / "cli.md"

INTRO = """# Command line

`halo-git COMMAND [options]`. Every command takes `--root` (else `$HALO_ROOT`, else
`~/.halo`) and `--branch` (default `main`). Exit codes: 0 success, 1 a failure (or, for
`check` and `verify`, something found), 2 a refused call or usage error; every error
message says how to fix the call.

This page is generated from `--help` by `scripts/gen_cli_docs.py`.
"""


def render() -> str:
    os.environ["COLUMNS"] = "100"  # argparse wraps to the terminal; fix it for a stable page
    from halo_git.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    parts = [INTRO, "```text", parser.format_help().rstrip(), "```", ""]
    for name, p in sub.choices.items():
        parts += [f"## `halo-git {name}`", "", "```text", p.format_help().rstrip(), "```", ""]
    return "\n".join(parts)


if __name__ == "__main__":
    PAGE.write_text(render(), encoding="utf-8")
    print(f"wrote {PAGE}", file=sys.stderr)
