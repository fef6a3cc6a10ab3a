"""Launch conventions: the MCP registry's server.json and the README's Git-URL snippets."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def test_server_json_describes_this_package():
    server = json.loads((REPO / "server.json").read_text(encoding="utf-8"))
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert server["$schema"].startswith("https://static.modelcontextprotocol.io/schemas/")
    assert re.fullmatch(r"io\.github\.[A-Za-z0-9-]+/[A-Za-z0-9._-]+", server["name"])
    assert server["version"] == project["version"]
    (package,) = server["packages"]
    assert (package["registryType"], package["identifier"], package["version"]) == ("pypi", project["name"], project["version"])
    assert package["transport"] == {"type": "stdio"}
    assert package["packageArguments"][0] == {"type": "positional", "value": "serve"}
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert f"mcp-name: {server['name']}" in readme  # the registry's PyPI ownership marker


def test_readme_shows_uvx_and_pipx_from_a_git_url_and_says_it_is_not_on_pypi():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert "uvx --from git+https://" in readme and "halo-git serve" in readme
    assert "pipx run --spec git+https://" in readme
    assert "not on PyPI" in readme
