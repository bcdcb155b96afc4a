#!/usr/bin/env bash
# Installs what the end-to-end test needs: Debian's headless Chromium (+ ripgrep, build deps of code-server's native
# modules, an emoji font for readable screenshots) and code-server 4.100.3 (VS Code 1.100.3; the last code-server release that runs on Node 20) from npm,
# into a cached folder (default client/test/e2e/.code-server). Idempotent: a completed install is reused.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CODE_SERVER_VERSION="${CODE_SERVER_VERSION:-4.100.3}"
DEST="${MEMLENS_CODE_SERVER_DIR:-$HERE/.code-server}"
STAMP="$DEST/.installed-$CODE_SERVER_VERSION"

log() { printf '[install-code-server] %s\n' "$*" >&2; }

need_apt=()
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
command -v rg >/dev/null 2>&1 || need_apt+=(ripgrep)
command -v pkg-config >/dev/null 2>&1 || need_apt+=(pkg-config)
dpkg -s libkrb5-dev >/dev/null 2>&1 || need_apt+=(libkrb5-dev)
# code-server's native modules compile with node-gyp: a C/C++ toolchain and make
{ command -v make >/dev/null 2>&1 && command -v g++ >/dev/null 2>&1; } || need_apt+=(build-essential)
# not needed to pass, but without it the transcript headings' emoji are boxes in the screenshot
dpkg -s fonts-noto-color-emoji >/dev/null 2>&1 || need_apt+=(fonts-noto-color-emoji)
if ((${#need_apt[@]})); then
  log "apt-get install ${need_apt[*]}"
  SUDO=""
  if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
fi

if [ -f "$STAMP" ] && [ -x "$DEST/node_modules/.bin/code-server" ]; then
  log "code-server $CODE_SERVER_VERSION already installed in $DEST"
  exit 0
fi

log "installing code-server $CODE_SERVER_VERSION into $DEST (a few minutes)"
rm -rf "$DEST"
mkdir -p "$DEST"
cd "$DEST"
export npm_config_unsafe_perm=true npm_config_yes=true npm_config_fund=false npm_config_audit=false \
  npm_config_update_notifier=false npm_config_loglevel=warn
echo '{"name":"memlens-e2e-code-server","private":true}' > package.json
npm pack --silent "code-server@$CODE_SERVER_VERSION" >/dev/null
npm install --ignore-scripts "./code-server-$CODE_SERVER_VERSION.tgz"
rm -f "./code-server-$CODE_SERVER_VERSION.tgz"
npm rebuild argon2
cd node_modules/code-server/lib/vscode
npm install --omit=dev --ignore-scripts
mkdir -p node_modules/@vscode/ripgrep/bin
ln -sf "$(command -v rg)" node_modules/@vscode/ripgrep/bin/rg
npm rebuild --foreground-scripts
(cd extensions && npm install --omit=dev)
cd ../..
npm_config_user_agent=npm/11 sh ./postinstall.sh
touch "$STAMP"
log "done: code-server $(node -p "require('$DEST/node_modules/code-server/package.json').version")"
