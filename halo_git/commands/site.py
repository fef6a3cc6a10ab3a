"""``halo-git site``: build the offline review site (MkDocs Material)."""

from __future__ import annotations

from ..site import DEFAULT_OUT, DEFAULT_TITLE, build_site
from ..store import DEFAULT_BRANCH


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
    p.add_argument("--title", default=DEFAULT_TITLE, help=f"site title (default: {DEFAULT_TITLE!r})")
    p.add_argument("--src", help="keep the generated Markdown and mkdocs.yml in this new folder (default: a temporary folder)")
    p.set_defaults(run=run)


def run(args) -> int:
    built = build_site(
        args.root,
        args.out,
        agents=args.agent,
        branch=args.branch,
        title=args.title,
        compare=args.compare,
        src=args.src,
    )
    print(built.message())
    return 0
