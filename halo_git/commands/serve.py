"""``halo-git serve``: run the HALO MCP server (stdio by default, or HTTP)."""

from __future__ import annotations

import sys

import anyio

from . import add_common, open_halo


def add_parser(sub) -> None:
    p = sub.add_parser("serve", help="run the HALO MCP server over stdio (default) or streamable HTTP")
    add_common(p, agent=False)
    p.add_argument("--agent", help="default agent name for calls that pass none (else the MCP client's name)")
    p.add_argument("--transport", choices=("stdio", "http"), default="stdio", help="stdio (default) or http")
    p.add_argument(
        "--host",
        default="127.0.0.1",
        help="HTTP host (default 127.0.0.1); a non-loopback address is refused unless a token is set",
    )
    p.add_argument("--port", type=int, default=8765, help="HTTP port (default 8765; 0 picks a free one)")
    p.add_argument(
        "--token-file",
        metavar="FILE",
        help="HTTP: require 'Authorization: Bearer <token>' with the token in FILE (else $HALO_TOKEN, if set)",
    )
    p.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="HOST",
        help="HTTP: also accept this Host header (e.g. halo.example.org or 10.0.0.5:8765; repeatable); others get 421",
    )
    p.add_argument(
        "--allow-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="HTTP: also accept this Origin header (e.g. https://review.example.org; repeatable); others get 403",
    )
    p.add_argument(
        "--max-sessions",
        type=int,
        default=None,
        metavar="N",
        help="HTTP: open sessions kept (default 1000); at the cap the least recently active idle one is closed",
    )
    p.add_argument("--fsync", action="store_true", help="fsync objects before each reply (survives power loss; slower)")
    p.set_defaults(run=run)


def run(args) -> int:
    from ..errors import InvalidCall
    from ..server import MAX_HTTP_SESSIONS, HaloServer, read_token, serve_http, serve_stdio

    token = None
    if args.transport == "http":
        token = read_token(args.token_file)
        if args.max_sessions is not None and args.max_sessions < 1:
            raise InvalidCall("--max-sessions must be at least 1")
    elif args.token_file or args.allow_host or args.allow_origin:
        raise InvalidCall("--token-file, --allow-host and --allow-origin apply to --transport http only")
    with open_halo(args, fsync=args.fsync) as halo:
        app = HaloServer(halo, agent=args.agent)
        if args.transport == "stdio":
            anyio.run(serve_stdio, app)
        else:
            shown = f"[{args.host}]" if ":" in args.host else args.host

            def ready(port: int) -> None:
                auth = "bearer token required" if token else "no authentication (loopback only)"
                print(f"HALO MCP server on http://{shown}:{port}/mcp (root {halo.root}; {auth})", file=sys.stderr, flush=True)

            anyio.run(
                lambda: serve_http(
                    app,
                    args.host,
                    args.port,
                    ready,
                    token=token,
                    allow_hosts=args.allow_host,
                    allow_origins=args.allow_origin,
                    max_sessions=args.max_sessions or MAX_HTTP_SESSIONS,
                )
            )
    return 0
