"""What ``history``, ``blame`` and ``beliefs`` share: the same options (``--format``,
``--allowed-signers``, the common ones) and the same run (open the root unscreened,
ask the ``Halo`` object for a dict, print it as JSON or as text lines).

Not a command: ``cli.COMMANDS`` lists the commands by name.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable

from ..api import Halo
from . import add_common, open_halo


def add_lineage_parser(sub, name: str, help: str, run: Callable[[argparse.Namespace], int],
                       own: Callable[[argparse.ArgumentParser], None]) -> None:
    """The subcommand ``name``: the common options, then the command's ``own`` arguments,
    then ``--format`` and ``--allowed-signers`` (the order ``--help`` shows)."""
    p = sub.add_parser(name, help=help)
    add_common(p)
    own(p)
    p.add_argument("--format", choices=("text", "json"), default="text", help="text (default) or json")
    p.add_argument("--allowed-signers", metavar="FILE", help="ssh-keygen allowed-signers file that proves signed approvals "
                   "(default: $HALO_ALLOWED_SIGNERS, else <root>/allowed_signers if present)")
    p.set_defaults(run=run)


def print_lineage(args: argparse.Namespace, read: Callable[[Halo], dict], lines: Callable[[dict], list[str]]) -> int:
    """Read the view with ``read(halo)`` and print it: JSON (indented, non-ASCII kept) with
    ``--format json``, else ``lines(view)``, one a line."""
    with open_halo(args, screen=None) as h:
        out = read(h)
    if args.format == "json":
        json.dump(out, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
    else:
        sys.stdout.write("\n".join(lines(out)) + "\n")
    return 0
