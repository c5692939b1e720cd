#!/usr/bin/env bash
# System packages the test suite drives from outside Node: Debian's chromium (the HTML report is loaded and
# screenshotted in a real browser), xmllint (the JUnit output is validated against an XSD), tmux (the TUI is
# driven as a user would), prometheus with promtool (a synthetic incident is backfilled and queried; the tests start
# their own server on 127.0.0.1 with their own config and storage — the package's service is never used), GNU
# time, script, xz and bzip2 for the hostile inputs, systemd's journalctl and systemd-journal-remote (binary journals
# are written by systemd's own tools and read back by journalctl; no service is started), kubectl
# (kubernetes-client: `kubectl get --raw` against the loopback API server stand-in), and jq and zstd (exports). Idempotent: installs only
# what is missing, so a warm machine costs one `command -v` each.
# Reaches only the Debian archive; playwright-core is an npm devDependency and is told to use this chromium, so no
# browser download ever happens.
set -euo pipefail

need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v xmllint >/dev/null 2>&1 || need+=(libxml2-utils)
command -v tmux >/dev/null 2>&1 || need+=(tmux)
{ command -v prometheus >/dev/null 2>&1 && command -v promtool >/dev/null 2>&1; } || need+=(prometheus)
# The hostile-input suite (npm run test:hostile): peak RSS from GNU time, a terminal from script, xz and bzip2 inputs.
[ -x /usr/bin/time ] || need+=(time)
command -v script >/dev/null 2>&1 || need+=(bsdutils)
command -v xz >/dev/null 2>&1 || need+=(xz-utils)
command -v bzip2 >/dev/null 2>&1 || need+=(bzip2)
# Binary journals (test/input/journal.test.ts): journalctl --file reads them, systemd-journal-remote writes them.
command -v journalctl >/dev/null 2>&1 || need+=(systemd)
[ -x /usr/lib/systemd/systemd-journal-remote ] || need+=(systemd-journal-remote)
# A real kubectl against the loopback API server stand-in (test/cluster.test.ts): its shapes are what kubectl reads.
# Debian's kubernetes-client; any kubectl already on PATH does.
command -v kubectl >/dev/null 2>&1 || need+=(kubernetes-client)
# Cloud exports (test/checks.test.ts, test/input/exports.test.ts): the count checks of a JSON export run jq; .zst
# exports are written and read with zstd (plegscope decodes zstd with the zstd tool, as xz and bzip2).
command -v jq >/dev/null 2>&1 || need+=(jq)
command -v zstd >/dev/null 2>&1 || need+=(zstd)

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
# Installing prometheus or systemd-journal-remote must not start Debian's services (0.0.0.0:9090, the journal-remote
# socket on 19532): where no policy says so already, a temporary policy-rc.d denies service starts for this install
# (exit 101, the documented "action forbidden").
policy_added=""
if [ ! -e /usr/sbin/policy-rc.d ] && [[ " ${need[*]} " == *" prometheus "* || " ${need[*]} " == *" systemd-journal-remote "* ]]; then
  printf '#!/bin/sh\nexit 101\n' | "${SUDO[@]}" tee /usr/sbin/policy-rc.d >/dev/null && "${SUDO[@]}" chmod +x /usr/sbin/policy-rc.d && policy_added=1
fi
trap '[ -n "$policy_added" ] && "${SUDO[@]}" rm -f /usr/sbin/policy-rc.d' EXIT
# A failed update (one mirror briefly unreachable) must not stop an install the cached lists can still satisfy.
"${SUDO[@]}" apt-get update -qq >/dev/null 2>&1 || echo "install-test-deps: apt-get update failed; trying the cached package lists" >&2
"${SUDO[@]}" apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
# chromium without recommends has no fonts at all: text in screenshots would be boxes.
if ! fc-list 2>/dev/null | grep -q .; then
  "${SUDO[@]}" apt-get install -y -qq --no-install-recommends fonts-dejavu-core >/dev/null
fi
