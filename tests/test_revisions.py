"""The revision audit trail: per-target history and impact on a hand-computed
trace, approvals authored (and SSH-signed) by the user and checked by the real
``git verify-commit`` and ``ssh-keygen``, ``verify --allowed-signers``, the
report's proven/claimed labels, the policy check, JSON output and the site page."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import jsonschema
import pytest

from halo_git import Halo
from halo_git import revisions as rv
from halo_git.site import build_site
from tests.conftest import git, run_cli
from tests.test_site import parse

AGENT = "a"


# --- the hand-computed trace ------------------------------------------------------------------
#
# s1: e1 observe, e2 act (request) uses e1, e3 outcome about e2
# s2: e4 observe, e5 revise "reminder rule" v1 (agent, none) uses e4,
#     e6 revise "tone" v1 (user, approved) uses e4
# s3: e7 act (self, execution) uses e5 -- cites v1, no outcome;
#     e8 revise "Reminder  rule" v2 (agent, approved) uses e7
# s4: e9 observe, e10 act (request) uses e9, e8; e11 outcome about e10;
#     e12 revise "reminder rule" v3 (user, bounded) uses e11
#
# Targets: "reminder rule" e5, e8, e12 (in force e12); "tone" e6.
# Windows (the session before / after the revision's own):
#   e5, e6 (s2): s1 against s3;  e8 (s3): s2 against s4;  e12 (s4): s3, no later session.
# Findings by window: s1 {S1}; s2 {R1, R3}; s3 {A1, A2, R3, S2}; s4 {R3}.

STORY = [
    ("s1", "observe", "user asked for a reminder", [], {}),
    ("s1", "act", "set the reminder", ["e1"], {"trigger": "request"}),
    ("s1", "outcome", "the user confirmed", [], {"about": "e2"}),
    ("s2", "observe", "user missed a reminder", [], {}),
    ("s2", "revise", "remind an hour earlier", ["e4"], {"target": "reminder rule", "made_by": "agent", "governance": "none"}),
    ("s2", "revise", "shorter messages", ["e4"], {"target": "tone", "made_by": "user", "governance": "approved"}),
    ("s3", "act", "moved a meeting on my own", ["e5"], {"trigger": "self", "form": "execution"}),
    ("s3", "revise", "remind only before meetings", ["e7"], {"target": "Reminder  rule", "made_by": "agent", "governance": "approved"}),
    ("s4", "observe", "user asked for a standup reminder", [], {}),
    ("s4", "act", "reminded before the standup", ["e9", "e8"], {"trigger": "request"}),
    ("s4", "outcome", "user joined on time", [], {"about": "e10"}),
    ("s4", "revise", "user bounded reminders to work hours", ["e11"], {"target": "reminder rule", "made_by": "user", "governance": "bounded"}),
]


def fill(h: Halo, agent: str = AGENT) -> None:
    for n, (session, kind, summary, uses, fields) in enumerate(STORY, 1):
        h.log(agent, kind, summary, uses=uses, session=session, time=f"2026-11-{n + 1:02d}T09:00:00Z", **fields)


@pytest.fixture
def keys(tmp_path):
    """Two SSH keys made here with ssh-keygen; only alice's is an allowed signer."""
    d = tmp_path / "keys"
    d.mkdir()
    for name in ("alice", "mallory"):
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", str(d / name)], check=True)
    allowed = d / "allowed_signers"
    allowed.write_text(f'alice@example.com namespaces="git" {(d / "alice.pub").read_text().strip()}\n')
    return {"alice": d / "alice", "mallory": d / "mallory", "allowed": allowed}


@pytest.fixture
def story(root):
    with Halo(root) as h:
        fill(h)
    return root


def approve(root, *args):
    return run_cli("approve", "--agent", AGENT, *args, root=root)


def head(root) -> str:
    return git(root / f"{AGENT}.git", "rev-parse", "main").stdout.strip()


# --- history and impact (pure, on the hand-computed trace) ------------------------------------


def test_history_per_target_versions_in_force_and_reliance(story):
    with Halo(story) as h:
        a = h.audit(AGENT)
        commits = h.event_log(AGENT).commits
    assert [t.name for t in a.targets] == ["reminder rule", "tone"]
    rule, tone = a.targets
    assert [v.id for v in rule.versions] == ["e5", "e8", "e12"] and [v.number for v in rule.versions] == [1, 2, 3]
    assert rule.in_force.id == "e12" and [v.in_force for v in rule.versions] == [False, False, True]
    assert [v.id for v in tone.versions] == ["e6"] and tone.in_force.id == "e6"
    v1, v2, v3 = rule.versions
    assert (v1.made_by, v1.governance, v1.basis, v1.relied_on_by) == ("agent", "none", ("e4",), ("e7",))
    assert (v2.target, v2.relied_on_by, v2.basis) == ("Reminder  rule", ("e10",), ("e7",))
    assert v3.relied_on_by == () and v3.governance == "bounded"
    assert [v.commit for v in (v1, v2, v3)] == [commits[4], commits[7], commits[11]]
    # approvals: none, claimed by the agent's own label, none (bounded is not an approval), the user's label
    assert [v.approval for v in (v1, v2, v3)] == ["none", "claimed", "none"] and tone.versions[0].approval == "claimed"


def test_impact_compares_the_session_before_with_the_session_after(story):
    with Halo(story) as h:
        a = h.audit(AGENT)
    i5, i6, i8, i12 = (a.impacts[x] for x in ("e5", "e6", "e8", "e12"))
    assert (i5.before.session, i5.after.session) == ("s1", "s3")
    assert (i5.before.first, i5.before.last, i5.before.events) == ("e1", "e3", 3)
    assert dict(i5.before.findings) == {}  # "the user confirmed" is no feedback left unused (S1 is for adverse outcomes)
    # the open loop is part of A1; e8's approval is only the agent's own label (HALO-R6)
    assert dict(i5.after.findings) == {"HALO-A1": 1, "HALO-R3": 1, "HALO-R6": 1, "HALO-S2": 1}
    assert i5.introduced == ("HALO-A1", "HALO-R3", "HALO-R6", "HALO-S2") and i5.resolved == ()
    assert i5.acts == ("e7",)
    m_before, m_after = dict(i5.before.metrics), dict(i5.after.metrics)
    assert str(m_before["outcome coverage"]) == "1/1" and str(m_after["outcome coverage"]) == "0/1"
    assert str(m_before["self initiated"]) == "0/1" and str(m_after["self initiated"]) == "1/1"
    assert str(m_after["revisions governed"]) == "1/1"
    assert dict(i5.before.channels) == {"S→A": 1, "A→S": 1} and dict(i5.after.channels) == {"R→A": 1, "A→R": 1}
    assert (i6.before, i6.after, i6.acts) == (i5.before, i5.after, ())
    assert (i8.before.session, i8.after.session) == ("s2", "s4")
    # e6 and e12 are logged as the user's own changes and nothing in the trace speaks against them (neither
    # loosens, names an approver or rests on a proposal): the user's word, no HALO-R6; HALO-R3 (info) lists the
    # agent's own churn
    assert dict(i8.before.findings) == {"HALO-R1": 1, "HALO-R3": 1} and dict(i8.after.findings) == {}
    assert i8.introduced == () and i8.resolved == ("HALO-R1", "HALO-R3") and i8.acts == ("e10",)
    assert str(dict(i8.before.metrics)["revisions governed"]) == "1/2"
    assert (i12.before.session, i12.after) == ("s3", None) and i12.introduced == ()
    line = rv.impact_text(i5, str)
    assert line.startswith("s1 → s3: outcome coverage 100% → 0%") and "findings introduced HALO-A1" in line
    assert line.endswith("resolved none; cited by acts e7")
    assert rv.impact_text(i12, str) == "no later session yet (before: s3)"


def test_each_window_is_measured_as_its_session_report(story):
    """The window's measures equal those of ``diagnose`` on the whole branch with session scope."""
    with Halo(story) as h:
        a = h.audit(AGENT)
        for session, impact in (("s1", a.impacts["e5"].before), ("s3", a.impacts["e5"].after), ("s2", a.impacts["e8"].before)):
            assert impact == rv.window_of(h.diagnosis(AGENT, session=session), session)


def test_audit_is_deterministic(story):
    with Halo(story) as h:
        first = rv.to_json(h.audit(AGENT))
    with Halo(story) as h:
        assert rv.to_json(h.audit(AGENT)) == first
    assert run_cli("revisions", "--agent", AGENT, root=story).stdout == run_cli("revisions", "--agent", AGENT, root=story).stdout


# --- the CLI: revisions -----------------------------------------------------------------------

WINDOW = {
    "anyOf": [
        {"type": "null"},
        {
            "type": "object",
            "required": ["session", "events", "first", "last", "metrics", "channels", "findings"],
            "properties": {
                "session": {"type": "string"},
                "events": {"type": "integer", "minimum": 1},
                "metrics": {"type": "object", "additionalProperties": {
                    "type": "object", "required": ["share", "counts"],
                    "properties": {"share": {"type": ["number", "null"]}, "counts": {"type": "string", "pattern": r"^\d+/\d+$"}},
                }},
                "channels": {"type": "object", "additionalProperties": {"type": "integer", "minimum": 1}},
                "findings": {"type": "object", "additionalProperties": {"type": "integer", "minimum": 1}},
            },
        },
    ]
}
ID = {"type": "string", "pattern": r"^e[1-9][0-9]*$"}
SCHEMA = {
    "type": "object",
    "required": ["agent", "branch", "head", "signatures_checked", "targets"],
    "additionalProperties": False,
    "properties": {
        "agent": {"type": "string"},
        "branch": {"type": "string"},
        "head": {"type": "string", "pattern": "^[0-9a-f]{40}$"},
        "signatures_checked": {"type": "boolean"},
        "targets": {"type": "array", "items": {
            "type": "object", "required": ["target", "in_force", "versions"], "additionalProperties": False,
            "properties": {
                "target": {"type": "string"},
                "in_force": ID,
                "versions": {"type": "array", "minItems": 1, "items": {
                    "type": "object",
                    "required": ["version", "id", "time", "session", "summary", "target", "made_by", "governance", "basis",
                                 "commit", "in_force", "relied_on_by", "approval", "approvals", "impact"],
                    "additionalProperties": False,
                    "properties": {
                        "version": {"type": "integer", "minimum": 1},
                        "id": ID,
                        "time": {"type": "string", "pattern": r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$"},
                        "session": {"type": "string", "minLength": 1},
                        "summary": {"type": "string", "minLength": 1},
                        "target": {"type": "string", "minLength": 1},
                        "made_by": {"enum": ["agent", "user"]},
                        "governance": {"enum": ["approved", "bounded", "none"]},
                        "basis": {"type": "array", "items": ID},
                        "commit": {"type": "string", "pattern": "^[0-9a-f]{40}$"},
                        "in_force": {"type": "boolean"},
                        "relied_on_by": {"type": "array", "items": ID},
                        "approval": {"enum": ["proven", "claimed", "none"]},
                        "approvals": {"type": "array", "items": {
                            "type": "object", "required": ["event", "by", "status", "how"],
                            "properties": {"event": ID, "status": {"enum": ["proven", "claimed"]}},
                        }},
                        "impact": {
                            "type": "object", "required": ["before", "after", "introduced", "resolved", "acts"],
                            "properties": {"before": WINDOW, "after": WINDOW, "acts": {"type": "array", "items": ID}},
                        },
                    },
                }},
            },
        }},
    },
}


def test_revisions_json_validates_and_filters_by_target(story):
    r = run_cli("revisions", "--agent", AGENT, "--format", "json", root=story)
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    jsonschema.validate(data, SCHEMA)
    assert [t["target"] for t in data["targets"]] == ["reminder rule", "tone"]
    assert data["head"] == head(story) and data["signatures_checked"] is False
    r = run_cli("revisions", "--agent", AGENT, "--format", "json", "--target", "REMINDER rule", root=story)
    one = json.loads(r.stdout)
    jsonschema.validate(one, SCHEMA)
    assert [v["id"] for v in one["targets"][0]["versions"]] == ["e5", "e8", "e12"]
    assert one["targets"][0]["versions"][0]["impact"]["introduced"] == ["HALO-A1", "HALO-R3", "HALO-R6", "HALO-S2"]
    r = run_cli("revisions", "--agent", AGENT, "--target", "nope", root=story)
    assert r.returncode == 1 and "no revision of target 'nope'" in r.stderr and "reminder rule; tone" in r.stderr


def test_revisions_markdown_timeline(story):
    r = run_cli("revisions", "--agent", AGENT, "--target", "tone", root=story)
    assert r.returncode == 0, r.stderr
    assert "## tone" in r.stdout and "## reminder rule" not in r.stdout
    assert "### v1 e6 (in force)" in r.stdout
    assert "| findings HALO-A1 | 0 | 1 |" in r.stdout  # the full before/after table
    r = run_cli("revisions", "--agent", AGENT, root=story)
    assert r.stdout.index("### v1 e5") < r.stdout.index("### v2 e8") < r.stdout.index("### v3 e12 (in force)")


# --- approvals: authored by the user, signed, checked by git ----------------------------------


def _git_env(home: Path) -> dict:
    return {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(home)}


def verify_commit(root, rev: str, allowed: Path | None):
    cfg = ["-c", "gpg.format=ssh"] + (["-c", f"gpg.ssh.allowedSignersFile={allowed}"] if allowed else [])
    return subprocess.run(["git", "--git-dir", str(root / f"{AGENT}.git"), *cfg, "verify-commit", "-v", rev],
                          capture_output=True, text=True, env=_git_env(root))


def test_signed_approval_is_the_users_commit_and_git_verify_commit_accepts_it(story, keys):
    r = approve(story, "e5", "--by", "Alice Doe", "--email", "alice@example.com", "--sign", "ssh", "--key", str(keys["alice"]),
                "--note", "checked with the user")
    assert r.returncode == 0, r.stderr
    reply = json.loads(r.stdout)
    assert reply["id"] == "e13" and reply["session"] == "review" and reply["signed"] == "ssh"
    assert reply["note"] == "Logged e13 (Mechanism, revise). Channels: R→R."
    repo = story / f"{AGENT}.git"
    assert reply["commit"] == head(story)
    # one commit, one file, authored and committed by the user
    assert git(repo, "show", "--format=%an <%ae>|%cn <%ce>", "--name-only", "main").stdout.split("\n")[:3] == [
        "Alice Doe <alice@example.com>|Alice Doe <alice@example.com>", "", "events/00/00/e13.yaml"]
    assert git(repo, "log", "-1", "--format=%B", "main").stdout == "e13 revise: approved e5: checked with the user\n\nHalo-Approval: e5\n\n"
    assert git(repo, "log", "-1", "--format=%G?", "main").stdout.strip() in {"N", "E", "U", "B"}  # no signer file: unproven
    ok = verify_commit(story, "main", keys["allowed"])
    assert ok.returncode == 0, ok.stderr
    assert 'Good "git" signature for alice@example.com with ED25519 key SHA256:' in ok.stderr
    without = verify_commit(story, "main", None)
    assert without.returncode != 0 and "allowedSignersFile needs to be configured" in without.stderr
    shown = subprocess.run(["git", "--git-dir", str(repo), "-c", f"gpg.ssh.allowedSignersFile={keys['allowed']}", "log",
                            "--show-signature", "-1", "main"], capture_output=True, text=True, env=_git_env(story)).stdout
    assert 'Good "git" signature for alice@example.com' in shown and "Author: Alice Doe <alice@example.com>" in shown
    assert git(repo, "fsck", "--strict").returncode == 0
    with Halo(story) as h:
        e13 = h.events(AGENT)[-1]
    assert (e13.kind, e13.uses, e13.fields["target"], e13.fields["made_by"], e13.fields["governance"]) == (
        "revise", ("e5",), "reminder rule", "user", "approved")


def test_verify_allowed_signers_passes_then_fails_on_rewrite_and_on_unknown_key(story, keys, tmp_path):
    assert approve(story, "e5", "--by", "Alice", "--email", "alice@example.com", "--sign", "ssh", "--key", str(keys["alice"])).returncode == 0
    ok = run_cli("verify", "--agent", AGENT, "--allowed-signers", str(keys["allowed"]), root=story)
    assert ok.returncode == 0, ok.stderr
    assert "ok: 13 events" in ok.stdout and "ok: 1 signed commit(s), each signed by an allowed signer" in ok.stdout
    # rewrite the approval commit with plain git: same tree and signature, another approver's name
    repo = story / f"{AGENT}.git"
    good = head(story)
    raw = git(repo, "cat-file", "commit", good).stdout.replace("Alice <alice@example.com>", "Alicia <alice@example.com>")
    forged = subprocess.run(["git", "--git-dir", str(repo), "hash-object", "-t", "commit", "-w", "--stdin"], input=raw,
                            capture_output=True, text=True, check=True).stdout.strip()
    git(repo, "update-ref", "refs/heads/main", forged, good)
    assert run_cli("verify", "--agent", AGENT, root=story).returncode == 0  # structurally an approval: only the signature tells
    bad = run_cli("verify", "--agent", AGENT, "--allowed-signers", str(keys["allowed"]), root=story)
    assert bad.returncode == 1 and f"commit {forged[:12]} (e13" in bad.stderr and "bad-signature" in bad.stderr
    assert verify_commit(story, forged, keys["allowed"]).returncode != 0
    with Halo(story) as h:
        assert h.audit(AGENT, allowed_signers=str(keys["allowed"])).targets[0].versions[0].approval == "claimed"
    # back to the good commit, then an approval signed by a key the file does not list
    git(repo, "update-ref", "refs/heads/main", good, forged)
    assert approve(story, "e8", "--by", "Mallory", "--email", "m@example.com", "--sign", "ssh", "--key", str(keys["mallory"])).returncode == 0
    unknown = run_cli("verify", "--agent", AGENT, "--allowed-signers", str(keys["allowed"]), root=story)
    assert unknown.returncode == 1 and "unknown-signer" in unknown.stderr and "e14" in unknown.stderr
    assert verify_commit(story, "main", keys["allowed"]).returncode != 0
    missing = run_cli("verify", "--agent", AGENT, "--allowed-signers", str(tmp_path / "none"), root=story)
    assert missing.returncode == 2 and "is not a file" in missing.stderr


def test_verify_exception_for_user_authors_is_exact(story):
    """Only a commit shaped like approve's (user approval of a revise, trailer, user as author
    and committer) may be authored by someone other than the agent."""
    repo = story / f"{AGENT}.git"
    assert approve(story, "e8", "--by", "Bob", "--email", "bob@example.com").returncode == 0  # unsigned
    assert run_cli("verify", "--agent", AGENT, root=story).returncode == 0
    good = head(story)
    raw = git(repo, "cat-file", "commit", good).stdout

    def rewritten(text: str) -> subprocess.CompletedProcess:
        sha = subprocess.run(["git", "--git-dir", str(repo), "hash-object", "-t", "commit", "-w", "--stdin"], input=text,
                             capture_output=True, text=True, check=True).stdout.strip()
        git(repo, "update-ref", "refs/heads/main", sha)
        return run_cli("verify", "--agent", AGENT, root=story)

    r = rewritten(raw.replace("\n\nHalo-Approval: e8\n", "\n"))  # user author without the trailer
    assert r.returncode == 1 and "author or committer is not the agent" in r.stderr
    r = rewritten(raw.replace("committer Bob <bob@example.com>", "committer a <a@halo>"))
    assert r.returncode == 1 and "author and committer differ" in r.stderr
    r = rewritten(raw.replace("Halo-Approval: e8", "Halo-Approval: e5"))
    assert r.returncode == 1 and "does not match the approval event" in r.stderr
    # an agent's own commit cannot be passed off as the user's: author changed, trailer added
    parent = git(repo, "rev-parse", f"{good}~1").stdout.strip()
    git(repo, "update-ref", "refs/heads/main", parent)
    agent_raw = git(repo, "cat-file", "commit", parent).stdout
    r = rewritten(agent_raw.replace("a <a@halo>", "Bob <bob@example.com>") + "\nHalo-Approval: e11\n")
    assert r.returncode == 1 and "only an approval written by 'halo-git approve'" in r.stderr


def test_approve_refusals_commit_nothing(story, tmp_path):
    before = head(story)
    for args, code, needle in (
        (["e4", "--by", "A", "--email", "a@x"], 2, "e4 is an observe event; approve names a revise event"),
        (["e99", "--by", "A", "--email", "a@x"], 1, "has no event e99"),
        (["E5", "--by", "A", "--email", "a@x"], 2, "invalid event id"),
        (["e5", "--by", "A", "--email", "a@x", "--sign", "ssh", "--key", str(tmp_path / "nokey")], 2, "is not a file"),
        (["e5", "--by", "A <evil>", "--email", "a@x"], 2, "pass --by NAME --email ADDR"),
        (["e5", "--by", "A", "--email", "a@x", "--note", "token ghp_" + "x" * 36], 2, "secrets"),
    ):
        r = approve(story, *args)
        assert r.returncode == code, (args, r.stderr)
        assert needle in r.stderr, (args, r.stderr)
    env = {**os.environ, "HOME": str(tmp_path), "GIT_CONFIG_NOSYSTEM": "1", "XDG_CONFIG_HOME": str(tmp_path)}
    r = subprocess.run([__import__("sys").executable, "-m", "halo_git.cli", "approve", "--agent", AGENT, "e5", "--root", str(story)],
                       capture_output=True, text=True, env=env)
    assert r.returncode == 2 and "no approver identity" in r.stderr
    assert head(story) == before
    assert approve(story, "e5", "--by", "A", "--email", "a@x").returncode == 0
    r = approve(story, "e13", "--by", "A", "--email", "a@x")
    assert r.returncode == 2 and "is itself an approval" in r.stderr


# --- report, policy, site -------------------------------------------------------------------


def test_report_tells_proven_from_claimed(story, keys):
    assert approve(story, "e5", "--by", "Alice", "--email", "alice@example.com", "--sign", "ssh", "--key", str(keys["alice"])).returncode == 0
    assert approve(story, "e8", "--by", "Bob", "--email", "bob@example.com").returncode == 0
    env = {**os.environ, "HALO_ALLOWED_SIGNERS": str(keys["allowed"])}
    report = subprocess.run([__import__("sys").executable, "-m", "halo_git.cli", "report", "--agent", AGENT, "--root", str(story)],
                            capture_output=True, text=True, env=env, check=True).stdout
    mechanism = report[report.index("## Mechanism"):report.index("## Behavioral-authority paths")]
    assert "checked against the allowed signers" in mechanism
    assert "- e5 “reminder rule” v1/3: approval **proven** by Alice &lt;alice@example.com&gt; (e13); impact s1 → s3:" in mechanism
    assert "- e8 “reminder rule” v2/3: approval **claimed** (governance=approved in the revision's own event, logged by the agent; " \
           "approval commit authored by the user, unsigned); impact s2 → s4:" in mechanism
    assert "- e6 “tone” v1/1, in force: approval **claimed**" in mechanism
    assert "Approvals logged with halo-git approve (authored by the user, not the agent): e13, e14." in mechanism
    # without an allowed-signers file nothing is proven, and the report says why
    plain = run_cli("report", "--agent", AGENT, root=story).stdout
    assert "approval **proven**" not in plain and "approval **claimed** (approval commit signed, but no allowed signers were given" in plain and "no allowed-signers file given, so none is proven" in plain
    # approval events are the user's act: they do not shift the agent's sessions
    with Halo(story) as h:
        assert h.audit(AGENT).impacts["e12"].after is None


def test_check_require_signed_approvals(story, keys):
    env = {**os.environ, "HALO_ALLOWED_SIGNERS": str(keys["allowed"])}

    def check(*extra):
        return subprocess.run([__import__("sys").executable, "-m", "halo_git.cli", "check", "--agent", AGENT, "--root", str(story), *extra],
                              capture_output=True, text=True, env=env)

    base = check()
    assert "HALO-R4" not in base.stdout
    r = check("--require-signed-approvals")
    assert r.returncode == 1
    r4 = [line for line in r.stdout.splitlines() if "HALO-R4" in line]
    assert len(r4) == 1 and r4[0].startswith("::error title=HALO-R4 unproven-approval (high)::e8:")  # e8: the agent's own claim
    assert approve(story, "e8", "--by", "Alice", "--email", "alice@example.com", "--sign", "ssh", "--key", str(keys["alice"])).returncode == 0
    assert "HALO-R4" not in check("--require-signed-approvals").stdout  # now proven by a signature
    assert approve(story, "e5", "--by", "Bob", "--email", "bob@example.com").returncode == 0
    r4 = [line for line in check("--require-signed-approvals").stdout.splitlines() if "HALO-R4" in line]
    assert len(r4) == 1 and "::e5, e14:" in r4[0] and "unsigned" in r4[0]  # an unsigned approval of a self-revision


def test_site_revisions_page_with_proven_approval(story, keys, tmp_path):
    assert approve(story, "e5", "--by", "Alice <>", "--email", "alice@example.com").returncode == 2
    assert approve(story, "e5", "--by", "Alice & *Co*", "--email", "alice@example.com", "--sign", "ssh", "--key", str(keys["alice"])).returncode == 0
    (story / "allowed_signers").write_text(keys["allowed"].read_text())
    out = tmp_path / "site"
    build_site(story, out)  # strict: every link and anchor resolves
    page = parse(out / "agents/a/revisions.html")
    text = page.all_text
    assert "Alice & *Co* <alice@example.com>" in text  # escaped, shown literally
    html_text = (out / "agents/a/revisions.html").read_text()
    assert "<Co>" not in html_text and "<em>Co</em>" not in html_text
    assert {"target-1", "target-2", "rev-e5", "rev-e8", "rev-e12", "rev-e6"} <= page.ids
    links = {v for t, _, v in page.links if t == "a"}
    assert {"trace/s2/index.html#e5", "trace/s3/index.html#e7", "trace/review/index.html#e13", "#target-2"} <= links
    v1 = html_text[html_text.index('id="rev-e5"'):html_text.index('id="rev-e8"')]
    assert "halo-approval-proven" in v1 and "allowed signer alice@example.com" in v1
    assert "Before: session s1" in v1 and "After: session s3" in v1 and "findings HALO-A1" in v1
    v2 = html_text[html_text.index('id="rev-e8"'):html_text.index('id="rev-e12"')]
    assert "halo-approval-claimed" in v2 and "halo-approval-proven" not in v2
    diagnosis = parse(out / "agents/a/diagnosis.html").all_text
    assert "approval proven by Alice & *Co* <alice@example.com> (e13)" in diagnosis


# --- GPG: signed with gpg, checked by git verify-commit and by gpgv against a keyring ---------


@pytest.fixture
def gpg(tmp_path):
    """A GnuPG home made here with two keys (no passphrase); only carol's is exported as allowed."""
    home = tmp_path / "gnupg"
    home.mkdir(mode=0o700)
    env = {**os.environ, "GNUPGHOME": str(home)}
    for uid in ("Carol <carol@example.com>", "Eve <eve@example.com>"):
        subprocess.run(["gpg", "--batch", "--passphrase", "", "--quick-gen-key", uid, "ed25519", "sign", "never"],
                       check=True, capture_output=True, env=env)
    ring = tmp_path / "allowed.gpg"
    ring.write_bytes(subprocess.run(["gpg", "--export", "carol@example.com"], check=True, capture_output=True, env=env).stdout)
    yield {"env": env, "home": home, "ring": ring}
    subprocess.run(["gpgconf", "--kill", "gpg-agent"], env=env, capture_output=True)  # the agent this fixture's gpg started


def cli_env(env, *args, root):
    import sys

    return subprocess.run([sys.executable, "-m", "halo_git.cli", *args, "--root", str(root)], capture_output=True, text=True, env=env)


def test_gpg_signed_approval_verifies_with_git_and_gpgv(story, gpg, tmp_path):
    env = gpg["env"]
    r = cli_env(env, "approve", "--agent", AGENT, "e8", "--by", "Carol", "--email", "carol@example.com", "--sign", "gpg",
                "--key", "carol@example.com", root=story)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["signed"] == "gpg"
    repo = story / f"{AGENT}.git"
    assert "gpgsig -----BEGIN PGP SIGNATURE-----" in git(repo, "cat-file", "commit", "main").stdout
    ok = subprocess.run(["git", "--git-dir", str(repo), "verify-commit", "main"], capture_output=True, text=True, env=env)
    assert ok.returncode == 0 and 'Good signature from "Carol <carol@example.com>"' in ok.stderr
    empty = tmp_path / "empty-gnupg"
    empty.mkdir(mode=0o700)
    without = subprocess.run(["git", "--git-dir", str(repo), "verify-commit", "main"], capture_output=True, text=True,
                             env={**env, "GNUPGHOME": str(empty)})
    assert without.returncode != 0
    subprocess.run(["gpgconf", "--kill", "gpg-agent"], env={**env, "GNUPGHOME": str(empty)}, capture_output=True)
    passed = run_cli("verify", "--agent", AGENT, "--gpg-keyring", str(gpg["ring"]), root=story)
    assert passed.returncode == 0 and "ok: 1 signed commit(s)" in passed.stdout, passed.stderr
    with Halo(story) as h:
        v = h.audit(AGENT, gpg_keyring=str(gpg["ring"])).targets[0].versions[1]
        assert v.approval == "proven" and "GPG key" in v.approvals[-1].how
        assert h.audit(AGENT).targets[0].versions[1].approval == "claimed"  # no keyring: unchecked
    # an SSH allowed-signers file alone cannot prove a GPG signature: verify says so and fails
    only_ssh = tmp_path / "allowed_signers"
    only_ssh.write_text("")
    r = run_cli("verify", "--agent", AGENT, "--allowed-signers", str(only_ssh), root=story)
    assert r.returncode == 1 and "unchecked" in r.stderr
    # rewritten after signing: bad; signed by a key outside the keyring: unknown
    good = head(story)
    raw = git(repo, "cat-file", "commit", good).stdout.replace("Carol <carol@example.com>", "Carla <carol@example.com>")
    forged = subprocess.run(["git", "--git-dir", str(repo), "hash-object", "-t", "commit", "-w", "--stdin"], input=raw,
                            capture_output=True, text=True, check=True).stdout.strip()
    git(repo, "update-ref", "refs/heads/main", forged, good)
    bad = run_cli("verify", "--agent", AGENT, "--gpg-keyring", str(gpg["ring"]), root=story)
    assert bad.returncode == 1 and "bad-signature" in bad.stderr
    git(repo, "update-ref", "refs/heads/main", good, forged)
    r = cli_env(env, "approve", "--agent", AGENT, "e5", "--by", "Eve", "--email", "eve@example.com", "--sign", "gpg",
                "--key", "eve@example.com", root=story)
    assert r.returncode == 0, r.stderr
    unknown = run_cli("verify", "--agent", AGENT, "--gpg-keyring", str(gpg["ring"]), root=story)
    assert unknown.returncode == 1 and "unknown-signer" in unknown.stderr and "e14" in unknown.stderr
    r = cli_env(env, "approve", "--agent", AGENT, "e5", "--by", "A", "--email", "a@x", "--sign", "gpg",
                "--key", "nobody@nowhere.invalid", root=story)
    assert r.returncode == 2 and "gpg could not sign with key 'nobody@nowhere.invalid'" in r.stderr


def test_window_slices_measure_every_session_as_the_whole_branch_does():
    """On a long synthetic trace, each session measured on its slice equals its
    measures in ``diagnose`` over the whole branch (so the impact is the session report's)."""
    from bench.bench_report import synthetic_events
    from halo_git.diagnosis import diagnose

    events = synthetic_events(2000, session_size=40)
    a = rv.audit(events, [""] * len(events), agent="bench", branch="main", head="f" * 40)
    windows = {w.session: w for i in a.impacts.values() for w in (i.before, i.after) if w is not None}
    assert len(windows) > 30
    # rules that look one step around an event measure exactly as the session report does; the others
    # (HALO-A1's severity, A4, M1, M4 beside M5, M5-M7, R3, R5, S1, S2) look further than the slice reaches
    local = {"HALO-A2", "HALO-A3", "HALO-M2", "HALO-M3", "HALO-R1", "HALO-R2"}
    for session, w in windows.items():
        whole = rv.window_of(diagnose(events, agent="bench", branch="main", head="f" * 40, session=session), session)
        assert (w.events, w.first, w.last, w.metrics, w.channels) == (whole.events, whole.first, whole.last,
                                                                     whole.metrics, whole.channels), session
        assert [x for x in w.findings if x[0] in local] == [x for x in whole.findings if x[0] in local], session
    # the report measures only the revisions it lists
    report_audit = rv.from_diagnosis(diagnose(events, agent="bench", branch="main", head="f" * 40), limit=5)
    assert len(report_audit.impacts) == 5
    lines = rv.mechanism_lines(report_audit, str, limit=5)
    assert sum(1 for line in lines if line.startswith("- e")) == 5
    assert any(line.startswith(f"- and {len(report_audit.versions()) - 5} more revisions: halo-git revisions") for line in lines)


def test_check_policy_follows_the_session_scope(story):
    r = run_cli("check", "--agent", AGENT, "--require-signed-approvals", "--session", "s3", root=story)
    assert sum("HALO-R4" in line for line in r.stdout.splitlines()) == 1  # e8 is in s3
    r = run_cli("check", "--agent", AGENT, "--require-signed-approvals", "--session", "s2", "--fail-on", "low", root=story)
    assert "HALO-R4" not in r.stdout  # e5 claims no approval; e6 is the user's own change


def test_a_signed_approval_survives_push_and_clone(story, keys, tmp_path):
    assert approve(story, "e5", "--by", "Alice", "--email", "alice@example.com", "--sign", "ssh", "--key", str(keys["alice"])).returncode == 0
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True, env=_git_env(tmp_path))
    assert run_cli("push", "--agent", AGENT, str(remote), root=story).returncode == 0
    other = tmp_path / "other"
    assert run_cli("clone", str(remote), "--agent", AGENT, root=other).returncode == 0
    r = run_cli("verify", "--agent", AGENT, "--allowed-signers", str(keys["allowed"]), root=other)
    assert r.returncode == 0 and "ok: 1 signed commit(s)" in r.stdout, r.stderr
    assert verify_commit(other, "main", keys["allowed"]).returncode == 0


def test_approve_takes_identity_and_key_from_git_config(story, keys, tmp_path):
    import sys

    home = tmp_path / "home"
    home.mkdir()
    (home / ".gitconfig").write_text(f"[user]\n\tname = Alice Config\n\temail = alice@example.com\n\tsigningkey = {keys['alice']}\n")
    env = {**os.environ, "HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1", "XDG_CONFIG_HOME": str(home / ".config")}
    r = subprocess.run([sys.executable, "-m", "halo_git.cli", "approve", "--agent", AGENT, "e5", "--sign", "ssh", "--root", str(story)],
                       capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["author"] == "Alice Config <alice@example.com>"
    assert verify_commit(story, "main", keys["allowed"]).returncode == 0


def test_an_approval_the_agent_logged_is_listed_as_claimed_not_as_a_version(story):
    with Halo(story) as h:
        h.log(AGENT, "revise", "the user approved the tone rule", uses=["e6"], session="s4", target="tone", made_by="user", governance="approved")
        a = h.audit(AGENT)
        assert "HALO-R3" not in {f.rule for f in h.diagnosis(AGENT, session="s4").findings if "e13" in f.ids}
    tone = a.target("tone")
    assert [v.id for v in tone.versions] == ["e6"]  # not a second version
    assert [(x.event, x.status) for x in tone.versions[0].approvals] == [("e6", "claimed"), ("e13", "claimed")]
    assert "the agent logged" in tone.versions[0].approvals[1].how
    assert a.approval_events == frozenset()  # none written by halo-git approve


def test_an_allowed_signer_cannot_prove_an_approval_in_another_persons_name(story, keys, tmp_path):
    """Both keys are allowed signers, each for their own e-mail: mallory's key on a commit
    that names alice as the approver proves nothing (git verify-commit alone would accept it)."""
    allowed = tmp_path / "both_signers"
    allowed.write_text(keys["allowed"].read_text() + f'm@example.com namespaces="git" {(keys["mallory"].parent / "mallory.pub").read_text().strip()}\n')
    assert approve(story, "e5", "--by", "Alice Boss", "--email", "alice@example.com", "--sign", "ssh", "--key", str(keys["mallory"])).returncode == 0
    assert verify_commit(story, "main", allowed).returncode == 0  # git: a good signature by an allowed key
    bad = run_cli("verify", "--agent", AGENT, "--allowed-signers", str(allowed), root=story)
    assert bad.returncode == 1 and "signed with the key of m@example.com, but the commit names alice@example.com" in bad.stderr
    with Halo(story) as h:
        v1 = h.audit(AGENT, allowed_signers=str(allowed)).targets[0].versions[0]
    assert v1.approval == "claimed"
    shown = run_cli("revisions", "--agent", AGENT, "--allowed-signers", str(allowed), root=story).stdout
    assert "**proven**" not in shown and "the key is not the approver's own" in shown


def test_impact_credits_only_sessions_that_rest_on_the_revision():
    """A session after the revision that never uses it says nothing about it: findings that
    appear or go away there are not credited to the revision."""
    from halo_git.model import check_call, resolve

    steps = [
        ("s1", "observe", "user asked for a reminder", [], {}),
        ("s1", "act", "set the reminder, confirmation pending", ["e1"], {"trigger": "request", "form": "execution"}),
        ("s2", "observe", "user missed a reminder", [], {}),
        ("s2", "revise", "remind an hour earlier", ["e3"], {"target": "reminder rule", "made_by": "agent", "governance": "none"}),
        ("s3", "observe", "user asked for the weather", [], {}),
        ("s3", "act", "told the weather", ["e5"], {"trigger": "request", "form": "communication"}),
        ("s3", "outcome", "user said thanks", [], {"about": "e6"}),
    ]
    events = []
    for n, (session, kind, summary, uses, fields) in enumerate(steps, 1):
        draft = check_call(kind, {"summary": summary, "uses": uses, **fields})
        events.append(resolve(draft, n, AGENT, session, f"2026-11-{n + 1:02d}T09:00:00Z", lambda k: events[k - 1].kind))
    a = rv.audit(events, [f"{i:040x}" for i in range(1, len(events) + 1)], agent=AGENT, branch="main", head=None)
    i4 = a.impacts["e4"]
    assert (i4.before.session, i4.after.session) == ("s1", "s3")
    assert "HALO-A2" in dict(i4.before.findings) and "HALO-A2" not in dict(i4.after.findings)
    assert i4.resolved == () and i4.introduced == ()  # s3 never used e4: nothing is credited to it


def test_the_agent_cannot_clear_its_own_ungoverned_revision(story, keys):
    """HALO-R1 on e5 (an ungoverned self-revision) stays high by default whatever approval the agent
    can write itself: one it logs as the user's, an unsigned approve, one signed by a key no allowed
    signer holds. Only an approval an allowed signer signed settles it (info)."""
    env = {**os.environ, "HALO_ALLOWED_SIGNERS": str(keys["allowed"])}

    def r1():
        r = subprocess.run([__import__("sys").executable, "-m", "halo_git.cli", "check", "--agent", AGENT, "--root", str(story),
                            "--fail-on", "high", "--format", "json"], capture_output=True, text=True, env=env)
        assert r.returncode in (0, 1), r.stderr
        return [f for f in json.loads(r.stdout)["findings"] if f["rule"] == "HALO-R1" and f["ids"][0] == "e5"]

    [before] = r1()
    assert before["severity"] == "high"
    # the agent logs "the user approved it" itself, as it could through its own MCP session
    logged = run_cli("log", "revise", "--agent", AGENT, "--summary", "the user approved reminding an hour earlier",
                     "--uses", "e5", "--target", "reminder rule", "--made-by", "user", "--governance", "approved", root=story)
    assert logged.returncode == 0, logged.stderr
    [claimed] = r1()
    assert claimed["severity"] == "high" and "claims the user approved it afterwards, but nothing proves it" in claimed["message"]
    approval = json.loads(logged.stdout)["id"]
    assert approve(story, "e5", "--by", "Bob", "--email", "bob@example.com").returncode == 0  # unsigned
    assert [f["severity"] for f in r1()] == ["high"]
    assert approve(story, "e5", "--by", "Mallory", "--email", "m@example.com", "--sign", "ssh",
                   "--key", str(keys["mallory"])).returncode == 0  # a key no allowed signer holds
    assert [f["severity"] for f in r1()] == ["high"]
    assert approve(story, "e5", "--by", "Alice", "--email", "alice@example.com", "--sign", "ssh",
                   "--key", str(keys["alice"])).returncode == 0
    [settled] = r1()
    assert settled["severity"] == "info" and "signed by an allowed signer" in settled["message"] and approval


def test_the_diagnosis_is_kept_by_head_and_a_gate_option_does_not_change_the_kept_one(story):
    """Halo keeps the last diagnoses by head commit (the report, the findings resource and the self-review prompt
    share one): the same head gives the same object, an append gives a new one, and `check
    --require-signed-approvals` adds its HALO-R4 to a copy, so a plain check afterwards does not see it."""
    with Halo(story) as h:
        first = h.diagnosis(AGENT)
        assert h.diagnosis(AGENT) is first
        strict = h.check(AGENT, require_signed_approvals=True)
        assert any(i.finding.rule == "HALO-R4" for i in strict.items)
        assert not any(i.finding.rule == "HALO-R4" for i in h.check(AGENT).items)
        assert not any(f.rule == "HALO-R4" for f in h.diagnosis(AGENT).findings)
        h.log(AGENT, "observe", summary="one more look", session="s9")
        after = h.diagnosis(AGENT)
        assert after is not first and after.head != first.head and len(after.events) == len(first.events) + 1
