#!/usr/bin/env bash
# System packages the test suite drives from outside Node: Debian's chromium (the HTML report is loaded and
# screenshotted in a real browser), xmllint (the JUnit output is validated against an XSD), tmux (the TUI is
# driven as a user would) and script (a pseudo-terminal for analyze's progress). Idempotent: installs only what is
# missing, so a warm machine costs one `command -v` each.
# Reaches only the Debian archive; playwright-core is an npm devDependency and is told to use this chromium, so no
# browser download ever happens.
set -euo pipefail

need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v xmllint >/dev/null 2>&1 || need+=(libxml2-utils)
command -v tmux >/dev/null 2>&1 || need+=(tmux)
# script(1) gives analyze a terminal on stderr (progress is shown only there).
command -v script >/dev/null 2>&1 || need+=(bsdutils)

if [ "${#need[@]}" -eq 0 ]; then
  exit 0
fi

SUDO=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO=(sudo -n)
  else
    echo "install-test-deps: need root (or sudo) to install: ${need[*]}" >&2
    exit 1
  fi
fi

echo "install-test-deps: installing ${need[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
# A failed update (one mirror briefly unreachable) must not stop an install the cached lists can still satisfy.
"${SUDO[@]}" apt-get update -qq >/dev/null 2>&1 || echo "install-test-deps: apt-get update failed; trying the cached package lists" >&2
"${SUDO[@]}" apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
# chromium without recommends has no fonts at all: text in screenshots would be boxes.
if ! fc-list 2>/dev/null | grep -q .; then
  "${SUDO[@]}" apt-get install -y -qq --no-install-recommends fonts-dejavu-core >/dev/null
fi
