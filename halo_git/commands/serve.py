"""``halo-git serve``: run the HALO MCP server (stdio by default, or HTTP).

Over stdio it prints one line on stderr when it starts (root, agent, branch)
and stops on Ctrl-C (SIGINT) at once, as on Ctrl-D (end of input): every
append is crash-safe, so stopping mid-call loses at most that call. A --branch
the agent's repository does not hold is refused at start, not on every call.
"""

from __future__ import annotations

import os
import signal
import sys

import anyio

from ..store.sync import EVERY, IDLE, TIMEOUT
from . import add_common, open_halo, port_number, positive_float, positive_int


def _log(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _terminate(signum, frame) -> None:
    raise KeyboardInterrupt  # unwinds through Halo.close, which pushes what is pending


HOST = "127.0.0.1"
PORT = 8765


def add_parser(sub) -> None:
    p = sub.add_parser("serve", help="run the HALO MCP server over stdio (default) or streamable HTTP")
    add_common(p, agent=False)
    p.add_argument("--agent", help="default agent name for calls that pass none (else the MCP client's name)")
    p.add_argument("--transport", choices=("stdio", "http"), default="stdio", help="stdio (default) or http")
    p.add_argument(
        "--host",
        help=f"HTTP host (default {HOST}); a non-loopback address is refused unless a token is set",
    )
    p.add_argument("--port", type=port_number, help=f"HTTP port (default {PORT}; 0 picks a free one)")
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
        type=positive_int,
        default=None,
        metavar="N",
        help="HTTP: open sessions kept (default 1000); at the cap the least recently active idle one is closed",
    )
    p.add_argument("--quiet", action="store_true", help="print no start line on stderr (errors are still printed)")
    p.add_argument("--fsync", action="store_true", help="fsync objects before each reply (survives power loss; slower)")
    p.add_argument(
        "--push",
        metavar="REMOTE",
        help="push each agent's branch to REMOTE/<agent>.git (or REMOTE with {agent} replaced) in the background: "
        "after each session, every --push-every events and on shutdown, retrying with backoff; appends never wait for it",
    )
    p.add_argument("--push-every", type=positive_int, default=EVERY, metavar="N", help=f"with --push: push after N events even mid-session (default {EVERY})")
    p.add_argument("--push-idle", type=positive_float, default=IDLE, metavar="S", help=f"with --push: a session counts as ended after S seconds without an event (default {IDLE:g})")
    p.add_argument("--seal-every-session", action="store_true",
                   help="seal each agent's branch (refs/halo/seals/<branch>/, see halo-git seal) when one of its sessions "
                   "ends (the agent logs under a new session label) and on shutdown")
    p.add_argument("--seal-sign", choices=("ssh", "gpg"), help="with --seal-every-session: sign the seals with the server's key")
    p.add_argument("--seal-key", metavar="KEY", help="with --seal-sign: SSH private key file or GPG key id (default: git config user.signingkey)")
    p.add_argument("--seal-by", metavar="NAME", help="with --seal-every-session: the sealer's name (default: git config user.name)")
    p.add_argument("--seal-email", metavar="ADDR", help="with --seal-every-session: the sealer's email (default: git config user.email)")
    p.add_argument("--push-timeout", type=positive_float, default=TIMEOUT, metavar="S", help=f"with --push: give up one push after S seconds (default {TIMEOUT:g})")
    p.set_defaults(run=run)


def run(args) -> int:
    from ..errors import InvalidCall
    from ..server import MAX_HTTP_SESSIONS, HaloServer, read_token, serve_http, serve_stdio

    token = None
    if args.transport == "http":
        token = read_token(args.token_file)
        args.host = HOST if args.host is None else args.host
        args.port = PORT if args.port is None else args.port
    elif (args.token_file or args.allow_host or args.allow_origin or args.host is not None or args.port is not None
          or args.max_sessions is not None):
        raise InvalidCall("--host, --port, --token-file, --allow-host, --allow-origin and --max-sessions apply to "
                          "--transport http only")
    if not args.push and (args.push_every, args.push_idle, args.push_timeout) != (EVERY, IDLE, TIMEOUT):
        raise InvalidCall("--push-every, --push-idle and --push-timeout go with --push REMOTE")
    if not args.seal_every_session and (args.seal_sign or args.seal_key or args.seal_by or args.seal_email):
        raise InvalidCall("--seal-sign, --seal-key, --seal-by and --seal-email go with --seal-every-session")
    with open_halo(args, fsync=args.fsync) as halo:
        halo.require_branch(args.agent, args.branch)
        if args.seal_every_session:
            halo.start_sealing(sign=args.seal_sign, key=args.seal_key, name=args.seal_by, email=args.seal_email,
                               log=None if args.quiet else _log)
        if args.push:
            halo.start_push(args.push, every=args.push_every, idle=args.push_idle, timeout=args.push_timeout, log=_log)
            signal.signal(signal.SIGTERM, _terminate)  # a service manager's stop: push what is pending first
        app = HaloServer(halo, agent=args.agent)
        if args.transport == "stdio":
            signal.signal(signal.SIGINT, lambda signum, frame: _stop(halo if args.push else None))  # before the line that invites Ctrl-C
            who = f"agent {args.agent}" if args.agent else "agent: the MCP client's name"
            if not args.quiet:
                print(f"halo-git serve: root {halo.root}, {who}, branch {args.branch}; "
                      "waiting for an MCP client on stdin (Ctrl-C or Ctrl-D stops)", file=sys.stderr, flush=True)
            anyio.run(serve_stdio, app)
        else:
            shown = f"[{args.host}]" if ":" in args.host else args.host

            def ready(port: int) -> None:
                if args.quiet:
                    return
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


def _stop(pushing) -> None:
    """SIGINT over stdio: the stdin reader blocks in a worker thread that no
    cancellation reaches, so leave at once (as a kill would; appends are atomic),
    after pushing what is pending when ``serve --push`` is on (``pushing``, the
    Halo; bounded by --push-timeout)."""
    print("halo-git serve: stopped (Ctrl-C)", file=sys.stderr, flush=True)
    if pushing is not None:
        pushing.close()
    os._exit(130)
