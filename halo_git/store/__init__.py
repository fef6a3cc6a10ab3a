"""The only package that touches Git (through dulwich).

``Store`` is a root folder holding one bare repository per agent
(``<root>/<agent>.git``); ``AgentRepo`` appends and reads one agent's events.
Everything above this package sees events, commit ids and branch names only.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

from ..errors import InvalidCall
from ..model import check_agent_name
from .repo import DEFAULT_BRANCH, AgentRepo, Committed, EventLog, event_path
from .remote import Transfer, clone, fetch_into_root, pull, push
from .verify import Verified, verify_branch

__all__ = ["Store", "AgentRepo", "Committed", "EventLog", "DEFAULT_BRANCH", "event_path", "default_root", "expand_root", "Transfer", "push", "pull", "clone", "fetch_into_root", "Verified", "verify_branch"]


def expand_root(root: str | os.PathLike[str]) -> Path:
    """A root as the user wrote it: ``~`` and ``$VARS`` expanded (an MCP client's
    JSON config passes ``--root ~/.halo`` without a shell to expand it)."""
    return Path(os.path.expanduser(os.path.expandvars(os.fspath(root))))


def default_root() -> Path:
    """``--root``, else ``HALO_ROOT``, else ``~/.halo`` (documented in the README)."""
    env = os.environ.get("HALO_ROOT")
    return expand_root(env) if env else Path.home() / ".halo"


class Store:
    """A HALO root folder: one bare Git repository per agent."""

    def __init__(self, root: str | os.PathLike[str] | None = None, *, fsync: bool = False):
        self.root = expand_root(root) if root is not None else default_root()
        if self.root.exists() and not self.root.is_dir():
            raise InvalidCall(f"the HALO root {self.root} is a file, not a folder; pass --root (or set HALO_ROOT) to a "
                              "folder: the one holding the agents' <agent>.git repositories, or a new one")
        self.fsync = fsync
        self._repos: dict[str, AgentRepo] = {}
        self._lock = threading.Lock()

    def repo(self, agent: str) -> AgentRepo:
        """The agent's repository (created on first append). Names are checked,
        so no agent can reach outside the root."""
        check_agent_name(agent)
        with self._lock:
            repo = self._repos.get(agent)
            if repo is None:
                repo = AgentRepo(self.root / f"{agent}.git", agent, fsync=self.fsync)
                self._repos[agent] = repo
            return repo

    def agents(self) -> list[str]:
        """Agents that have a repository under the root, sorted. A folder that only
        looks like one (``x.git`` without ``objects`` and ``refs``, as Git itself
        requires) is no agent, so it cannot make ``--all`` commands fail for all."""
        if not self.root.is_dir():
            return []
        names = []
        for p in self.root.iterdir():
            if p.name.endswith(".git") and (p / "HEAD").is_file() and (p / "objects").is_dir() and (p / "refs").is_dir():
                name = p.name[: -len(".git")]
                try:
                    names.append(check_agent_name(name))
                except Exception:
                    continue
        return sorted(names)

    def close(self) -> None:
        with self._lock:
            for repo in self._repos.values():
                repo.close()
            self._repos.clear()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
