#!/usr/bin/env bash
# The browser test drives Debian's Chromium (playwright-core downloads no browser here).
# Installs it when missing and this machine can (root with apt-get); otherwise says so, and the
# browser test reports itself as not runnable rather than passing.
set -u
for candidate in "${CHROMIUM_PATH:-}" /usr/bin/chromium /usr/bin/chromium-browser; do
  [ -n "$candidate" ] && [ -x "$candidate" ] && { echo "chromium: $candidate"; exit 0; }
done
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null; then
  echo "chromium: installing Debian's chromium for the browser test"
  (apt-get install -y -q --no-install-recommends chromium >/tmp/ensure-chromium.log 2>&1 ||
    { apt-get update -q >/tmp/ensure-chromium.log 2>&1 && apt-get install -y -q --no-install-recommends chromium >>/tmp/ensure-chromium.log 2>&1; }) &&
    { echo "chromium: installed"; exit 0; }
  echo "chromium: apt-get install failed (see /tmp/ensure-chromium.log)"
else
  echo "chromium: not found, and this user cannot install it; set CHROMIUM_PATH to a Chromium binary"
fi
exit 0
