"""The ``halo-git`` command line: one module per command under ``commands/``.

Each command module defines ``add_parser(subparsers)`` and ``run(args) -> int``.
This file only assembles them and maps ``HaloError`` to an exit code in one
place: 2 for a call that breaks the contract, 1 for anything else.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import Sequence

from .errors import HaloError, InvalidCall

COMMANDS = [
    "serve",
    "log",
    "trace",
    "report",
    "diff",
    "branch",
    "push",
    "pull",
    "clone",
    "check",
    "verify",
    "export",
    "import_",
    "demo",
    "site",
    "revisions",
    "approve",
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="halo-git",
        description="HALO agent event traces as Git history: serve the MCP tools, read traces and reports, build the review site.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMANDS:
        importlib.import_module(f"halo_git.commands.{name}").add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.run(args) or 0)
    except InvalidCall as e:
        print(f"halo-git: error: {e}", file=sys.stderr)
        return 2
    except HaloError as e:
        print(f"halo-git: error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
