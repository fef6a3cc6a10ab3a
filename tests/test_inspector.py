"""A third-party client: the MCP Inspector CLI (TypeScript SDK) against the real
server over stdio and streamable HTTP. ``scripts/test.sh`` installs it into
``.ci-tools/``."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import anyio
import pytest

from halo_git import Halo
from tests.conftest import CI_TOOLS, PYTHON, require_tool
from tests.test_server import http_server

REPO = Path(__file__).resolve().parent.parent
INSPECTOR = CI_TOOLS / "node_modules" / ".bin" / "mcp-inspector"


@pytest.fixture(scope="module", autouse=True)
def inspector_installed():
    require_tool("the MCP Inspector", INSPECTOR.exists(), f"the npm package @modelcontextprotocol/inspector in {CI_TOOLS}")


def inspect(tmp_path: Path, *args: str) -> dict:
    env = {**os.environ, "MCP_CATALOG_PATH": str(tmp_path / "catalog.json")}
    r = subprocess.run([str(INSPECTOR), "--cli", *args], capture_output=True, text=True, timeout=120, env=env)
    assert r.returncode == 0, r.stderr + r.stdout
    return json.loads(r.stdout)


def seeded(root: Path) -> Path:
    with Halo(root) as h:
        h.log("demo", "observe", "user said evening reminders get lost", session="day1")
        h.log("demo", "revise", "remind 50 minutes before instead of at 9:00", ["e1"], session="day1",
              target="reminder timing rule", made_by="agent", governance="none")
    return root


def serve(root: Path) -> list[str]:
    return [PYTHON, "-m", "halo_git.cli", "serve", "--root", str(root), "--agent", "demo"]


def test_inspector_over_stdio_lists_templates_prompts_and_tools(root, tmp_path):
    seeded(root)
    templates = inspect(tmp_path, *serve(root), "--method", "resources/templates/list")
    assert [t["uriTemplate"] for t in templates["resourceTemplates"]] == [
        "halo://agents/{agent}/report",
        "halo://agents/{agent}/findings",
        "halo://agents/{agent}/trace",
        "halo://agents/{agent}/sessions/{session}/report",
        "halo://agents/{agent}/events/{id}/history",
        "halo://agents/{agent}/beliefs",
    ]
    prompts = inspect(tmp_path, *serve(root), "--method", "prompts/list")
    assert [p["name"] for p in prompts["prompts"]] == ["halo_self_review", "halo_log_step"]
    review = inspect(tmp_path, *serve(root), "--method", "prompts/get", "--prompt-name", "halo_self_review")
    assert "HALO-R1 ungoverned-self-revision (high)" in review["messages"][0]["content"]["text"]
    findings = inspect(tmp_path, *serve(root), "--method", "resources/read", "--uri", "halo://agents/demo/findings")
    data = json.loads(findings["contents"][0]["text"])
    assert any(f["rule"] == "HALO-R1" and f["events"] == ["e2"] for f in data["findings"])
    tools = inspect(tmp_path, *serve(root), "--method", "tools/list")["tools"]
    assert all(t.get("title") for t in tools)
    assert {t["name"] for t in tools if "outputSchema" in t} == {
        "halo_observe", "halo_remember", "halo_recall", "halo_act", "halo_outcome", "halo_revise", "halo_trace",
    }
    logged = inspect(tmp_path, *serve(root), "--method", "tools/call", "--tool-name", "halo_observe",
                     "--tool-arg", "summary=looked at the calendar")
    assert logged["structuredContent"] == json.loads(logged["content"][0]["text"])
    assert logged["structuredContent"]["id"] == "e3"


def test_inspector_over_http_lists_templates_and_prompts(root, tmp_path):
    seeded(root)

    async def main():
        async with http_server(root) as url:
            templates = await anyio.to_thread.run_sync(
                lambda: inspect(tmp_path, url, "--transport", "http", "--method", "resources/templates/list")
            )
            prompts = await anyio.to_thread.run_sync(
                lambda: inspect(tmp_path, url, "--transport", "http", "--method", "prompts/list")
            )
            return templates, prompts

    templates, prompts = anyio.run(main)
    assert len(templates["resourceTemplates"]) == 6
    assert {p["name"] for p in prompts["prompts"]} == {"halo_self_review", "halo_log_step"}
