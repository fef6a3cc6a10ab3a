#!/usr/bin/env bash
# Install halo-git with its test dependencies into .venv, make sure the system
# Chromium (browser tests) and faketime (clock-skew test) exist, then run the whole suite.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e '.[test]'
# chromium for the browser tests, faketime for the clock-skew test
MISSING=""
command -v chromium >/dev/null 2>&1 || MISSING="$MISSING chromium"
command -v faketime >/dev/null 2>&1 || MISSING="$MISSING faketime"
if [ -n "$MISSING" ]; then
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $MISSING >/dev/null
fi
command -v git >/dev/null 2>&1 || { echo "the tests need the git binary" >&2; exit 1; }
exec .venv/bin/python -m pytest "$@"
