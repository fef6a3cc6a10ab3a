#!/usr/bin/env bash
# Install halo-git with its test dependencies into .venv, make sure the system
# Chromium exists for the browser tests, then run the whole suite.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e '.[test]'
if ! command -v chromium >/dev/null 2>&1; then
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
fi
command -v git >/dev/null 2>&1 || { echo "the tests need the git binary" >&2; exit 1; }
# The MCP Inspector CLI, a third-party MCP client for tests/test_inspector.py,
# installed project-locally into .ci-tools/ (ignored by git; about 15 s, 110 MB).
INSPECTOR_VERSION=2.12.0
if [ ! -x .ci-tools/node_modules/.bin/mcp-inspector ] \
   || ! grep -q "\"version\": \"$INSPECTOR_VERSION\"" .ci-tools/node_modules/@modelcontextprotocol/inspector/package.json 2>/dev/null; then
  if ! command -v npm >/dev/null 2>&1; then
    SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq nodejs npm >/dev/null
  fi
  mkdir -p .ci-tools
  npm install --prefix .ci-tools --no-audit --no-fund --loglevel=error "@modelcontextprotocol/inspector@$INSPECTOR_VERSION"
fi
exec .venv/bin/python -m pytest "$@"
