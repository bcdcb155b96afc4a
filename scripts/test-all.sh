#!/usr/bin/env bash
# Every test, from a fresh machine: Python venv + memlens with dev extras, Neovim for the editor test, pytest
# (engine, parsers, CLI, language server, real editors, benchmarks' smoke tests), then the VS Code client
# (typecheck, unit tests, .vsix, end-to-end test in a real VS Code).
#
#   bash scripts/test-all.sh                 everything
#   MEMLENS_SKIP_CLIENT=1 bash scripts/test-all.sh   Python side only
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
VENV="${MEMLENS_VENV:-$ROOT/.venv}"

if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install --quiet --upgrade pip
"$VENV/bin/python" -m pip install --quiet -e ".[dev]"

# Neovim (0.7 from Debian) is the real editor the language-server tests drive; install it when we may.
if ! command -v nvim >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq neovim >/dev/null) \
    || echo "warning: could not install neovim; its test will be skipped" >&2
fi

"$VENV/bin/ruff" check server tests bench
"$VENV/bin/mypy"
"$VENV/bin/mypy" bench

if [ "${MEMLENS_SKIP_CLIENT:-0}" != 1 ]; then
  MEMLENS_PYTHON="$VENV/bin/python" bash scripts/client-ci.sh
fi

# pytest last: its closing line is the run's verdict
"$VENV/bin/python" -m pytest -q -p no:cacheprovider
