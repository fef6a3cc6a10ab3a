#!/usr/bin/env bash
# Install halo-git with its test dependencies into .venv, make sure the system
# Chromium exists for the browser tests, then run the whole suite.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e '.[test]'
# Harbor's ATIF models (pure pydantic) validate the ATIF export; the package itself
# needs Python >= 3.12 and a large dependency tree, so only its wheel is fetched and
# tests/test_atif.py imports the models from it. Without it that test skips, saying why.
ls .cache/wheels/harbor-0.25.0-*.whl >/dev/null 2>&1 \
  || .venv/bin/python -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 -d .cache/wheels harbor==0.25.0 \
  || echo "warning: could not fetch the harbor wheel; the ATIF model test will skip" >&2
if ! command -v chromium >/dev/null 2>&1; then
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
fi
command -v git >/dev/null 2>&1 || { echo "the tests need the git binary" >&2; exit 1; }
exec .venv/bin/python -m pytest "$@"
