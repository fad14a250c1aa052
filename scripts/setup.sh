#!/usr/bin/env bash
# Installs what numdecode needs on a fresh Debian 12 machine (run as root), and nothing that is
# already there: compilers and test libraries from Debian, then the npm dev dependencies.
# Safe to run again: a second run only checks.
set -euo pipefail
cd "$(dirname "$0")/.."
export DEBIAN_FRONTEND=noninteractive

log() { printf '[setup] %s\n' "$*"; }

# Debian packages and why:
#   cmake g++ make        native build (GoogleTest tests, sanitizers, benchmarks)
#   clang                 libFuzzer targets
#   emscripten            the WebAssembly build (3.1.6 in bookworm; pulls clang-14, lld-14, binaryen, node-acorn)
#   libgtest-dev          native tests;  libbenchmark-dev: native benchmarks
#   nlohmann-json3-dev    native tests read the corpus manifests
#   libssl-dev            native tests check SHA-256 of large expected outputs
#   chromium              headless browser tests of the demo page
PACKAGES=(cmake g++ make clang emscripten libgtest-dev libbenchmark-dev nlohmann-json3-dev libssl-dev chromium)
# Node.js: the machine's own (>= 18) is used when present; otherwise Debian's.
if ! command -v node >/dev/null 2>&1; then PACKAGES+=(nodejs); fi
if ! command -v npm >/dev/null 2>&1; then PACKAGES+=(npm); fi

missing=()
for pkg in "${PACKAGES[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
  [ "$status" = installed ] || missing+=("$pkg")
done

apt_retry() {
  local try
  for try in 1 2 3; do
    if "$@"; then return 0; fi
    log "'$*' failed (try $try of 3)"
    sleep $((try * 5))
  done
  return 1
}

if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "[setup] missing Debian packages: ${missing[*]}; run this script as root" >&2
    exit 1
  fi
  log "installing: ${missing[*]}"
  apt_retry apt-get -o DPkg::Lock::Timeout=300 update -qq
  apt_retry apt-get -o DPkg::Lock::Timeout=300 install -y -qq --no-install-recommends "${missing[@]}"
else
  log "Debian packages: all present"
fi

node_major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$node_major" -lt 18 ]; then
  echo "[setup] Node.js $(node --version) is too old: numdecode needs 18 or newer" >&2
  exit 1
fi

# npm dependencies: (re)install when node_modules does not match package.json + package-lock.json.
# `npm install`, not `npm ci`: the registry mirror here lacks some platform-specific optional
# packages (e.g. unrs-resolver's darwin bindings), so the lock file cannot list them and
# `npm ci` rejects it as out of sync. `npm install` still installs the locked versions.
stamp=node_modules/.numdecode-setup-stamp
lock_digest() { cat package.json package-lock.json 2>/dev/null | sha256sum | cut -d' ' -f1; }
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$(lock_digest)" ]; then
  log "node_modules: up to date"
else
  log "npm install"
  npm install --no-audit --no-fund
  lock_digest >"$stamp"
fi
log "done: node $(node --version), $(cmake --version | head -n1), emcc $(NODE_PATH=/usr/share/nodejs emcc --version | head -n1 | grep -o "[0-9]*\.[0-9]*\.[0-9]*" | head -n1)"
