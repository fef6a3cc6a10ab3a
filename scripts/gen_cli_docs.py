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

`halo-git COMMAND [options]` (or `python -m halo_git COMMAND`; `halo-git --version`
prints the version, bare `halo-git` this help). Every command takes `--root` (else
`$HALO_ROOT`, else `~/.halo`; `~` and `$VARS` are expanded, also when an MCP client
passes the path without a shell); every command except `demo` takes `--branch`
(default `main`). Every error message says what is wrong and how to fix the call.

## Exit codes

One table for every command:

| code | meaning |
|---:|---|
{exit_codes}

Commands that read a trace (`trace`, `report`, `export`, `branch`, `verify`,
`diff`, `push`, `site`, `revisions`, `approve`) exit 1 on a missing root or an unknown agent, naming the root
and the agents it holds (`check` exits 2, its table in [CI](ci.md): its 1 means findings); `pull` exits 1 and says how to `clone` the agent instead;
commands that write (`log`, `import`, `serve`, `clone`, `demo`) create the root and
the agent.

This page is generated from `--help` by `scripts/gen_cli_docs.py`.
"""


def render() -> str:
    os.environ["COLUMNS"] = "100"  # argparse wraps to the terminal; fix it for a stable page
    from halo_git.cli import EXIT_CODES, build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    table = "\n".join(f"| {code} | {meaning} |" for code, meaning in EXIT_CODES)
    parts = [INTRO.format(exit_codes=table), "```text", parser.format_help().rstrip(), "```", ""]
    for name, p in sub.choices.items():
        parts += [f"## `halo-git {name}`", "", "```text", p.format_help().rstrip(), "```", ""]
    return "\n".join(parts)


if __name__ == "__main__":
    PAGE.write_text(render(), encoding="utf-8")
    print(f"wrote {PAGE}", file=sys.stderr)
