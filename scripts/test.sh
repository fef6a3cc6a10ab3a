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
if ! command -v ssh-keygen >/dev/null 2>&1 || ! command -v gpg >/dev/null 2>&1 || ! command -v gpgv >/dev/null 2>&1; then
  # signed approvals: the tests make SSH and GPG keys and check signatures with ssh-keygen, gpgv and git
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq openssh-client gnupg gpgv >/dev/null
fi
command -v git >/dev/null 2>&1 || { echo "the tests need the git binary" >&2; exit 1; }
exec .venv/bin/python -m pytest "$@"
