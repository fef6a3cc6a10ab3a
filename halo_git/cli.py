"""The ``halo-git`` command line: one module per command under ``commands/``.

Each command module defines ``add_parser(subparsers)`` and ``run(args) -> int``;
its docstring is the command's ``--help`` description. This file only
assembles them and maps every error to an exit code in one place
(``EXIT_CODES``, rendered into docs/cli.md).
"""

from __future__ import annotations

import argparse
import importlib
import os
import re
import sys
from typing import Sequence

from . import __version__
from .errors import CLI, HaloError, InvalidCall

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
    "agents",
    "check",
    "verify",
    "export",
    "import_",
    "demo",
    "site",
    "revisions",
    "approve",
    "merge",
    "history",
    "blame",
    "beliefs",
    "seal",
    "redact",
]

OK, FAILED, USAGE, INTERRUPTED = 0, 1, 2, 130

# The one table of exit codes: every command, every error. docs/cli.md shows it.
EXIT_CODES: list[tuple[int, str]] = [
    (OK, "success (`check`: no finding at or above `--fail-on`; `verify`: the branch is intact); "
         "also when the reader of the output went away (`halo-git export` piped into `head`)"),
    (FAILED, "something was found or refused: `check` findings, a `verify` failure, a root, agent, branch, "
             "session or revision that does not exist, a push or pull refused as not fast-forward, a busy "
             "repository, an I/O error"),
    (USAGE, "usage or bad input: an unknown option or missing argument, a value outside its rule "
            "(agent name, id, limit, branch name), a refused event, an unreadable or invalid import file; "
            "for `check`, every error (a root, agent, branch, baseline or session that does not exist, a trace "
            "that cannot be read, an I/O error), so that its 1 always means findings"),
    (INTERRUPTED, "interrupted with Ctrl-C (SIGINT)"),
]


# Commands whose exit 1 is a verdict (findings): any error they meet exits 2 instead.
GATES = frozenset({"check"})


def exit_code(error: BaseException, command: str | None = None) -> int:
    """The exit code of an error raised by a command (see ``EXIT_CODES``)."""
    if isinstance(error, KeyboardInterrupt):
        return INTERRUPTED
    if isinstance(error, InvalidCall) or command in GATES:
        return USAGE
    return FAILED


def description(module) -> str:
    """A command's ``--help`` description: its module docstring, without the
    ``halo-git NAME``: prefix and reST quoting."""
    doc = (module.__doc__ or "").strip()
    doc = re.sub(r"^``halo-git [^`]+``:\s*", "", doc)
    doc = doc.replace("``", "")
    return doc[:1].upper() + doc[1:]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="halo-git",
        description="HALO agent event traces as Git history: serve the MCP tools, read traces and reports, build the review site.",
        epilog="Exit codes: 0 ok, 1 found or refused (findings, not found, not fast-forward), 2 usage or bad input, "
        "130 interrupted. Run 'halo-git COMMAND --help' for a command's options.",
    )
    parser.add_argument("--version", action="version", version=f"halo-git {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        module = importlib.import_module(f"halo_git.commands.{name}")
        module.add_parser(sub)
        p = sub.choices[name.rstrip("_")]
        if not p.description:
            p.description = description(module)
    return parser


def _from_git_library(error: BaseException) -> bool:
    """True when ``error`` was raised inside dulwich: what it could not parse is
    a repository file (a ref, packed-refs, an object, the config), not our code."""
    tb = error.__traceback__
    last = None
    while tb is not None:
        last = tb.tb_frame.f_code.co_filename
        tb = tb.tb_next
    return last is not None and f"{os.sep}dulwich{os.sep}" in last


def _subparser(parser: argparse.ArgumentParser, command: str) -> argparse.ArgumentParser:
    for action in parser._subparsers._group_actions:  # argparse keeps the subcommands' parsers here
        if command in getattr(action, "choices", {}):
            return action.choices[command]
    return parser


def _first_leaf(group: BaseExceptionGroup) -> BaseException:
    """The error a command should report from an exception group: its first HALO
    error, interrupt or I/O error, else the group itself (a bug: a traceback)."""
    for kind in (HaloError, KeyboardInterrupt, BrokenPipeError, OSError):
        found = group.subgroup(kind)
        if found is not None:
            e: BaseException = found
            while isinstance(e, BaseExceptionGroup):
                e = e.exceptions[0]
            return e
    return group


def _quiet_stdout() -> None:
    """The reader of stdout went away: send what is still buffered nowhere, so
    the interpreter's final flush does not raise again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if args.command is None:  # bare ``halo-git``
        if extra:
            parser.error(f"unrecognized arguments: {' '.join(extra)}")
        parser.print_help()
        return OK
    if extra:  # the command's own usage line, not the top-level one
        _subparser(parser, args.command).error(f"unrecognized arguments: {' '.join(extra)}")
    try:
        try:
            code = int(args.run(args) or 0)
        except BaseExceptionGroup as group:  # a task group (the demo's MCP client, the server) wrapped it
            leaf = _first_leaf(group)
            if leaf is group:
                raise
            raise leaf from group
        sys.stdout.flush()
        return code
    except HaloError as e:
        print(f"halo-git: error: {e.for_interface(CLI)}", file=sys.stderr)
        return exit_code(e, args.command)
    except BrokenPipeError:
        _quiet_stdout()
        return OK
    except KeyboardInterrupt as e:
        print("halo-git: interrupted", file=sys.stderr)
        return exit_code(e)
    except OSError as e:  # a file or folder the command could not read or write
        where = f": {e.filename}" if e.filename else ""
        print(f"halo-git: error: {e.strerror or e}{where}", file=sys.stderr)
        return exit_code(HaloError(), args.command)
    except Exception as e:
        if not _from_git_library(e):
            raise  # a bug in halo-git: the traceback is the report
        root = getattr(args, "root", None) or "the HALO root"
        print(f"halo-git: error: cannot read the Git repositories under {root} ({type(e).__name__}: {str(e)[:300]}): "
              "a ref, object or config file was changed outside HALO or is damaged; check with git fsck and "
              "halo-git verify, or restore the repository from a copy", file=sys.stderr)
        return exit_code(HaloError(), args.command)  # check: a trace that cannot be read is never "findings"


if __name__ == "__main__":
    sys.exit(main())
