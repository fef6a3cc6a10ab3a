"""MCP beyond tools, through the official client over stdio and HTTP in both
protocol modes: titles and output schemas, structured content, resources and
templates, completion, prompts and subscriptions."""

from __future__ import annotations

import json
import warnings
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp_types import PromptReference, ResourceTemplateReference

from halo_git import Halo
from halo_git.mcp_resources import BELIEFS, FINDINGS, HISTORY, REPORT, SESSION_REPORT, TRACE, uri
from halo_git.server import GUIDE, LOGGED_SCHEMA, TRACE_SCHEMA
from tests.conftest import server_params
from tests.test_server import http_server

MODES = ["legacy", "auto"]
TRANSPORTS = ["stdio", "http"]
LOGGING = ["halo_observe", "halo_remember", "halo_recall", "halo_act", "halo_outcome", "halo_revise"]


@asynccontextmanager
async def connect(root: Path, transport: str, mode: str, *extra: str, **kw):
    if transport == "stdio":
        async with Client(server_params(root, *extra), mode=mode, **kw) as c:
            yield c
    else:
        async with http_server(root, *extra) as url:
            async with Client(url, mode=mode, **kw) as c:
                yield c


def seed(root: Path) -> None:
    """``demo``: an ungoverned self-revision the next steps build on; ``clean``: no high or medium finding."""
    with Halo(root) as h:
        h.log("demo", "observe", "user said evening reminders get lost", session="day1")
        h.log("demo", "revise", "remind 50 minutes before instead of at 9:00", ["e1"], session="day1",
              target="reminder timing rule", made_by="agent", governance="none")
        h.log("demo", "act", "reminded at 8:40", ["e2"], session="day2 / morning", trigger="request", form="communication")
        h.log("clean", "observe", "user asked for the weather", session="s1")
        h.log("clean", "act", "told the user it will rain", ["e1"], session="s1", trigger="request", form="communication")
        h.log("clean", "outcome", "the user took an umbrella", session="s1", about="e2")
        h.log("clean", "remember", "the user likes rain warnings", ["e3"], session="s1")


def body(result) -> str:
    assert len(result.content) == 1
    return result.content[0].text


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("transport", TRANSPORTS)
def test_titles_schemas_and_structured_content_of_every_tool(root, transport, mode):
    async def main():
        async with connect(root, transport, mode, "--agent", "demo") as c:
            tools = {t.name: t for t in (await c.list_tools()).tools}
            assert all(t.title for t in tools.values())
            assert len({t.title for t in tools.values()}) == 9
            for name in LOGGING:
                assert tools[name].output_schema == LOGGED_SCHEMA
            assert tools["halo_trace"].output_schema == TRACE_SCHEMA
            assert tools["halo_report"].output_schema is None and tools["halo_guide"].output_schema is None
            calls = [
                ("halo_observe", {"summary": "user asked for a 9:30 reminder", "session": "day1"}),
                ("halo_remember", {"summary": "reminder at 9:30", "uses": ["e1"], "session": "day1"}),
                ("halo_recall", {"summary": "looked up the reminder", "uses": ["e2"], "session": "day2"}),
                ("halo_act", {"summary": "reminded at 9:30", "uses": ["e1", "e3"], "trigger": "self", "session": "day2"}),
                ("halo_outcome", {"summary": "user said thanks", "about": "e4", "session": "day2"}),
                ("halo_revise", {"summary": "remind earlier", "uses": ["e5"], "target": "timing", "made_by": "agent",
                                 "governance": "none", "session": "day2"}),
            ]
            for tool, args in calls:
                r = await c.call_tool(tool, args)
                assert not r.is_error, body(r)
                assert r.structured_content == json.loads(body(r))
            assert body(r) == '{"id": "e6", "agent": "demo", "session": "day2", "note": "Logged e6 (Mechanism, revise). Channels: S→R."}'
            r = await c.call_tool("halo_trace", {"limit": 3})
            lines = body(r).splitlines()
            assert lines[0] == "e4 [day2] act: reminded at 9:30 (uses e1, e3) {trigger=self, form=communication}"
            events = r.structured_content["events"]
            assert r.structured_content["agent"] == "demo" and [e["id"] for e in events] == ["e4", "e5", "e6"]
            assert events[0] == {"id": "e4", "session": "day2", "kind": "act", "summary": "reminded at 9:30",
                                 "uses": ["e1", "e3"], "trigger": "self", "form": "communication"}
            assert events[1]["about"] == "e4" and events[2]["governance"] == "none"
            empty = await c.call_tool("halo_trace", {"agent": "nobody"})
            assert empty.structured_content == {"agent": "nobody", "events": []}
            assert body(empty) == "No events yet for agent 'nobody'; log the first with halo_observe."
            refused = await c.call_tool("halo_observe", {"summary": "x", "uses": ["e99"]})
            assert refused.is_error and refused.structured_content is None and list(json.loads(body(refused))) == ["error"]
            guide = await c.call_tool("halo_guide", {})
            assert body(guide) == GUIDE and guide.structured_content is None

    anyio.run(main)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("transport", TRANSPORTS)
def test_resources_templates_completion_and_prompts(root, transport, mode):
    seed(root)
    with Halo(root) as h:
        expected_findings = [(f.rule, f.severity, list(f.ids)) for f in h.diagnosis("demo").findings]
    assert ("HALO-R1", "high", ["e2", "e3"]) in expected_findings

    async def main():
        async with connect(root, transport, mode) as c:
            caps = c.server_capabilities
            assert caps.resources is not None and caps.prompts is not None and caps.completions is not None
            templates = {t.uri_template for t in (await c.list_resource_templates()).resource_templates}
            assert templates == {REPORT, FINDINGS, TRACE, SESSION_REPORT, HISTORY, BELIEFS}
            listed = {str(r.uri) for r in (await c.list_resources()).resources}
            assert listed == {"halo://agents/clean/report", "halo://agents/demo/report"}

            async def read(u: str) -> str:
                contents = (await c.read_resource(u)).contents
                assert len(contents) == 1 and str(contents[0].uri) == u
                return contents[0].text

            report = body(await c.call_tool("halo_report", {"agent": "demo"}))
            assert await read(uri(REPORT, "demo")) == report
            session = "day2 / morning"
            assert uri(SESSION_REPORT, "demo", session) == "halo://agents/demo/sessions/day2%20%2F%20morning/report"
            assert await read(uri(SESSION_REPORT, "demo", session)) == body(
                await c.call_tool("halo_report", {"agent": "demo", "session": session})
            )
            assert await read(uri(TRACE, "demo")) == body(await c.call_tool("halo_trace", {"agent": "demo", "limit": 200}))
            findings = json.loads(await read(uri(FINDINGS, "demo")))
            assert findings["agent"] == "demo" and findings["scope"] == "whole trace"
            assert [(f["rule"], f["severity"], f["events"]) for f in findings["findings"]] == expected_findings
            r1 = next(f for f in findings["findings"] if f["rule"] == "HALO-R1")
            assert r1["name"] == "ungoverned-self-revision" and r1["next_step"].startswith("Have the user approve")
            assert r1["summaries"]["e2"] == "remind 50 minutes before instead of at 9:00"
            assert "message" in r1
            with pytest.raises(Exception, match="unknown resource"):
                await c.read_resource("halo://agents/demo/nothing")
            with pytest.raises(Exception, match="no session 'nope'"):
                await c.read_resource(uri(SESSION_REPORT, "demo", "nope"))

            agents = await c.complete(ResourceTemplateReference(type="ref/resource", uri=REPORT), {"name": "agent", "value": "d"})
            assert agents.completion.values == ["demo"]
            sessions = await c.complete(
                ResourceTemplateReference(type="ref/resource", uri=SESSION_REPORT),
                {"name": "session", "value": "day"},
                context_arguments={"agent": "demo"},
            )
            assert sessions.completion.values == ["day1", "day2 / morning"]
            prompt_agents = await c.complete(PromptReference(type="ref/prompt", name="halo_self_review"), {"name": "agent", "value": ""})
            assert prompt_agents.completion.values == ["clean", "demo"]

            prompts = {p.name: p for p in (await c.list_prompts()).prompts}
            assert set(prompts) == {"halo_self_review", "halo_log_step"}
            assert [a.name for a in prompts["halo_self_review"].arguments] == ["agent", "session"]
            review = (await c.get_prompt("halo_self_review", {"agent": "demo"})).messages
            assert len(review) == 1 and review[0].role == "user"
            text = review[0].content.text
            assert "HALO-R1 ungoverned-self-revision (high)" in text
            assert "e2 [day1] revise: remind 50 minutes before instead of at 9:00 (uses e1)" in text
            assert "Ask your user whether they approve it" in text and "made_by user, governance approved" in text
            clean = (await c.get_prompt("halo_self_review", {"agent": "clean"})).messages[0].content.text
            assert "no open finding of high or medium severity" in clean and "HALO-" not in clean
            step = (await c.get_prompt("halo_log_step", {"step": "emailed the user the weekly report"})).messages[0].content.text
            assert step.startswith("You are about to log this step with HALO: emailed the user the weekly report")
            for line in GUIDE.splitlines():
                if line.startswith("- halo_"):
                    assert line in step
            with pytest.raises(Exception, match="unknown argument"):
                await c.get_prompt("halo_self_review", {"agnet": "demo"})

    anyio.run(main)


def test_an_approval_answers_the_finding(root):
    """Once the user's approving revision names the ungoverned one, the self-review is clean."""
    seed(root)
    with Halo(root) as h:
        h.log("demo", "observe", "the user approved the 50-minute rule", session="day3")
        h.log("demo", "revise", "the user approved reminding 50 minutes before", ["e2", "e4"], session="day3",
              target="reminder timing rule", made_by="user", governance="approved")

    async def main():
        async with Client(server_params(root, "--agent", "demo"), mode="legacy") as c:
            return (await c.get_prompt("halo_self_review", {})).messages[0].content.text

    text = anyio.run(main)
    assert "HALO-R1" not in text


def test_subscription_to_findings_is_notified_on_append_legacy(root):
    seed(root)
    updates: list[str] = []

    async def handler(message) -> None:
        params = getattr(getattr(message, "params", None), "uri", None)
        if params is not None:
            updates.append(str(params))

    async def main():
        async with Client(server_params(root, "--agent", "demo"), mode="legacy", message_handler=handler) as c:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                await c.subscribe_resource(uri(FINDINGS, "demo"))
                await c.subscribe_resource(uri(TRACE, "clean"))
            r = await c.call_tool("halo_act", {"summary": "booked a taxi on my own", "trigger": "self", "form": "execution"})
            assert not r.is_error
            with anyio.fail_after(20):
                while uri(FINDINGS, "demo") not in updates:
                    await anyio.sleep(0.05)
            assert uri(TRACE, "clean") not in updates  # another agent's resource did not change

    anyio.run(main)


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_listen_stream_is_notified_on_append_modern(root, transport):
    seed(root)

    async def main():
        async with connect(root, transport, "auto", "--agent", "demo") as c:
            assert c.protocol_version == "2026-07-28"
            findings, clean = uri(FINDINGS, "demo"), uri(REPORT, "clean")
            async with c.listen(resource_subscriptions=[findings, clean]) as sub:
                r = await c.call_tool("halo_act", {"summary": "booked a taxi on my own", "trigger": "self", "form": "execution"})
                assert not r.is_error
                with anyio.fail_after(20):
                    event = await sub.__anext__()
                assert event.uri == findings

    anyio.run(main)
