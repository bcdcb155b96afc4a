#!/usr/bin/env bash
# Every test, from a fresh machine: Python venv + memlens with dev extras, Neovim for the editor test, lint and
# types, the VS Code client (typecheck, unit tests, .vsix, end-to-end test in a real VS Code), then pytest (engine,
# parsers, CLI, language server, MCP server, real editors, benchmarks' smoke tests).
#
#   bash scripts/test-all.sh                          everything
#   MEMLENS_SKIP_CLIENT=1 bash scripts/test-all.sh    Python side only
#   MEMLENS_SKIP_E2E=1 bash scripts/test-all.sh       without the real-VS-Code test
#
# System packages it needs, installed with apt-get when running as root (else named, and the tests that need them
# skip): python3-venv (the venv), neovim (the editor test), ripgrep (a benchmark's peer); the client's e2e step installs chromium, ripgrep,
# pkg-config, libkrb5-dev and a C toolchain (build-essential) for code-server's native modules, and code-server
# itself from npm. A failing client never hides the Python results: both are reported, and the exit status is
# non-zero if either failed. pytest runs last, so its closing line is the run's verdict for Python.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
VENV="${MEMLENS_VENV:-$ROOT/.venv}"

apt_install() {
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null) \
      || echo "warning: could not install $*" >&2
  else
    echo "warning: please install the Debian packages: $*" >&2
  fi
}

if ! python3 -c "import ensurepip" >/dev/null 2>&1; then
  apt_install python3-venv
fi
if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install --quiet --upgrade pip
"$VENV/bin/python" -m pip install --quiet -e ".[dev]"

# Neovim (0.7 from Debian) is the real editor the language-server tests drive; ripgrep is a peer the benchmarks'
# smoke test times (bench/peers.py).
if ! command -v nvim >/dev/null 2>&1; then
  apt_install neovim
fi
if ! command -v rg >/dev/null 2>&1; then
  apt_install ripgrep
fi

"$VENV/bin/ruff" check server tests bench
"$VENV/bin/ruff" format --check server tests bench
"$VENV/bin/mypy"
"$VENV/bin/mypy" bench

client_status=0
if [ "${MEMLENS_SKIP_CLIENT:-0}" != 1 ]; then
  MEMLENS_PYTHON="$VENV/bin/python" bash scripts/client-ci.sh || client_status=$?
  if [ "$client_status" != 0 ]; then
    echo "client CI FAILED (exit $client_status); the Python tests run anyway" >&2
  fi
fi

# pytest last: its closing line is the run's verdict. `-m ""`: every test, the slow ones too (a plain `pytest` is
# the developers' fast loop, see CONTRIBUTING.md)
python_status=0
"$VENV/bin/python" -m pytest -q -p no:cacheprovider -m "" || python_status=$?
if [ "$client_status" != 0 ]; then
  echo "client CI failed with exit status $client_status (see '=== client CI summary' above)" >&2
  exit "$client_status"
fi
exit "$python_status"
