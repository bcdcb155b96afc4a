#!/usr/bin/env bash
# CI for the VS Code client: npm ci, typecheck, unit tests, bundle, package the .vsix, end-to-end test in a real
# VS Code (code-server 4.100.3 in headless Chromium, against the real memlens language server).
#
#   scripts/client-ci.sh              everything
#   MEMLENS_SKIP_E2E=1 scripts/client-ci.sh   without the end-to-end test
#
# The e2e runs the language server with ${MEMLENS_PYTHON:-python3} (memlens must be importable there) and writes
# test-artifacts/vscode-*.png (one per surface), selftest.json and logs. It installs Debian packages (chromium, ripgrep,
# libkrb5-dev, pkg-config, fonts-noto-color-emoji) when missing, and code-server into client/test/e2e/.code-server
# (cached between runs; override with MEMLENS_CODE_SERVER_DIR).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export npm_config_fund=false npm_config_audit=false npm_config_update_notifier=false

declare -a SUMMARY=()
step() {
  local name="$1"
  shift
  printf '\n=== %s\n' "$name"
  local start=$SECONDS
  if "$@"; then
    SUMMARY+=("$(printf '%-28s %4ss  ok' "$name" $((SECONDS - start)))")
  else
    local rc=$?
    SUMMARY+=("$(printf '%-28s %4ss  FAILED (%s)' "$name" $((SECONDS - start)) "$rc")")
    report
    exit "$rc"
  fi
}
report() {
  printf '\n=== client CI summary\n'
  printf '%s\n' "${SUMMARY[@]}"
}

step "npm ci" npm ci --no-progress
step "typecheck (tsc)" npm run -s typecheck
step "unit tests (node --test)" npm run -s test:unit
step "bundle + package .vsix" env MEMLENS_PYTHON="${MEMLENS_PYTHON:-python3}" npm run -s package
# the install command the extension offers (memlens is not on PyPI): the wheel in the .vsix must install and import
check_wheel() {
  local tmp
  tmp="$(mktemp -d)"
  unzip -q -o out/memlens.vsix 'extension/out/server/*.whl' -d "$tmp" &&
    "${MEMLENS_PYTHON:-python3}" -m pip install --quiet --disable-pip-version-check --no-deps --target "$tmp/site" "$tmp"/extension/out/server/memlens-*.whl &&
    (cd "$tmp" && PYTHONPATH="$tmp/site" "${MEMLENS_PYTHON:-python3}" -c 'import memlens, sys; assert memlens.__file__.startswith(sys.argv[1]), memlens.__file__; print("wheel imports from", memlens.__file__)' "$tmp/site") &&
    (cd "$tmp" && PYTHONPATH="$tmp/site" "${MEMLENS_PYTHON:-python3}" -m memlens --help >/dev/null)
  local rc=$?
  rm -rf "$tmp"
  return $rc
}
step "bundled wheel installs" check_wheel
step "e2e harness bundle" npm run -s bundle:e2e
if [ "${MEMLENS_SKIP_E2E:-0}" = 1 ]; then
  echo "MEMLENS_SKIP_E2E=1: skipping the end-to-end test"
else
  step "e2e: install code-server" bash client/test/e2e/install-code-server.sh
  step "e2e: VS Code + server" env MEMLENS_PYTHON="${MEMLENS_PYTHON:-python3}" node client/test/e2e/run.mjs
fi
report
