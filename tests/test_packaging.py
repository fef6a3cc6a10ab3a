"""Launch conventions: the MCP registry's server.json and the README's Git-URL snippets."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
# The registry's own schema for the version server.json names, vendored byte for byte from
# https://github.com/modelcontextprotocol/registry/blob/e361b5ff5a925b36a38eda0544bca8230a84558b/internal/validators/schemas/2025-12-11.json
# (published as https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json).
SCHEMA = REPO / "tests" / "fixtures" / "server.schema.2025-12-11.json"


def registry_errors(server: dict) -> list[str]:
    import jsonschema

    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    jsonschema.Draft7Validator.check_schema(schema)
    validator = jsonschema.Draft7Validator(schema, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(server)]


def test_server_json_is_valid_under_the_registry_schema_it_names():
    server = json.loads((REPO / "server.json").read_text(encoding="utf-8"))
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    assert server["$schema"] == schema["$id"]  # the vendored file is the version server.json claims
    assert registry_errors(server) == []
    assert len(server["description"]) <= 100


def test_the_vendored_schema_rejects_what_the_registry_rejects():
    server = json.loads((REPO / "server.json").read_text(encoding="utf-8"))
    too_long = {**server, "description": "x" * 101}
    assert any("description" in e and "too long" in e for e in registry_errors(too_long))
    latest = json.loads(json.dumps(server))
    latest["packages"][0]["version"] = "latest"
    assert registry_errors(latest) != []
    assert registry_errors({k: v for k, v in server.items() if k != "name"}) != []


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


def test_readme_client_snippets_parse_and_launch_the_server():
    """Claude Desktop, VS Code (`servers`, `type: stdio`) and Cursor snippets are valid JSON
    that start `halo-git serve`."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    blocks = [json.loads(b) for b in re.findall(r"```json\n(.*?)```", readme, re.S)]
    vscode = [b["servers"]["halo"] for b in blocks if "servers" in b]
    assert vscode and vscode[0]["type"] == "stdio" and vscode[0]["args"][0] == "serve"
    assert vscode[0]["command"].endswith("halo-git")
    assert "VS Code (`.vscode/mcp.json`" in readme and "Cursor (`~/.cursor/mcp.json`" in readme
    others = [b["mcpServers"]["halo"] for b in blocks if "mcpServers" in b]
    assert len(others) >= 3  # Claude Desktop, Cursor, uvx
    assert all("serve" in s["args"] for s in others)
