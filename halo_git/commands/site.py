"""``halo-git site``: build the offline review site (MkDocs Material)."""

from __future__ import annotations

import sys
from pathlib import Path

from ..errors import InvalidCall
from ..observed import DEFAULT_WINDOW, load
from ..site import DEFAULT_OUT, DEFAULT_TITLE, build_site
from ..store import DEFAULT_BRANCH, default_root, expand_root, fetch_into_root
from . import add_accept, load_accept, positive_float


def add_parser(sub) -> None:
    p = sub.add_parser(
        "site",
        help="build the review site: trace, diagnosis and revision pages of every agent, as static HTML",
        description=(
            "Reads the agents' repositories at the branch head, writes Markdown pages and builds an offline "
            "MkDocs Material site in strict mode (a broken link fails the build)."
        ),
    )
    p.add_argument("--root", help="HALO root folder (default: $HALO_ROOT, else ~/.halo)")
    p.add_argument("--out", default=str(DEFAULT_OUT), help=f"output folder, emptied and rebuilt (default: ./{DEFAULT_OUT})")
    p.add_argument("--agent", action="append", default=[], metavar="A", help="only this agent; repeat for more (default: all)")
    p.add_argument("--branch", default=DEFAULT_BRANCH, help="branch to read (default: main)")
    p.add_argument(
        "--compare",
        action="append",
        default=[],
        metavar="A:BASE...HEAD",
        help="add a compare page for agent A between two branches or commits; repeatable",
    )
    p.add_argument(
        "--remote",
        action="append",
        default=[],
        metavar="A=URL",
        help="first clone agent A from a Git remote into the root, or fast-forward it if present; repeatable",
    )
    p.add_argument("--title", default=DEFAULT_TITLE, help=f"site title (default: {DEFAULT_TITLE!r})")
    p.add_argument(
        "--site-url",
        metavar="URL",
        help="the address the site is published at, e.g. https://org.github.io/repo/: canonical links and a full sitemap.xml",
    )
    p.add_argument(
        "--previous",
        metavar="FILE",
        help="the halo-summary.json of an earlier build to show changes against (default: the one in --out, if any)",
    )
    p.add_argument("--src", help="keep the generated Markdown and mkdocs.yml in this new folder (default: a temporary folder)")
    p.add_argument(
        "--observed", action="append", default=[], metavar="[A=]FILE",
        help="observed evidence (ATIF trajectory or folder, OTLP/JSON spans) set beside agent A's diagnosis; "
        "FILE alone when the site shows one agent; repeatable",
    )
    p.add_argument("--observed-window", metavar="SECONDS", type=positive_float, default=DEFAULT_WINDOW,
                   help=f"alignment window of the observed evidence (default: {DEFAULT_WINDOW:g})")
    add_accept(p, "listed apart on the diagnosis pages and not counted as open")
    p.set_defaults(run=run)


def run(args) -> int:
    if str(args.out).startswith("~"):  # quoted, the shell left it alone: it would be a folder named '~'
        raise InvalidCall(f"--out {str(args.out)[:80]!r} starts with '~', which the shell did not expand (it was quoted); "
                          "write the path out, e.g. --out \"$HOME/site\"")
    agents = list(args.agent)
    if args.remote:
        root = expand_root(args.root) if args.root else default_root()
        for spec in args.remote:
            agent, sep, url = spec.partition("=")
            if not sep or not agent or not url:
                raise InvalidCall(f"--remote {spec!r} must look like AGENT=URL, e.g. demo=https://git.example.com/traces/demo.git")
            for transfer in fetch_into_root(root, agent, url):
                print(transfer.describe(), file=sys.stderr)
            if agents and agent not in agents:
                agents.append(agent)
        args.root = str(root)
    accepted, _ = load_accept(args)
    observed = {}
    for spec in args.observed:
        agent, sep, path = spec.partition("=")
        if not sep or Path(spec).exists():
            agent, path = "", spec
        observed[agent] = load(path, window=args.observed_window)
    built = build_site(
        args.root,
        args.out,
        agents=agents,
        branch=args.branch,
        title=args.title,
        compare=args.compare,
        src=args.src,
        previous=args.previous,
        site_url=args.site_url,
        observed=observed,
        accepted=accepted,
    )
    print(built.message())
    return 0
