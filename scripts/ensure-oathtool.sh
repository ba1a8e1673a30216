#!/usr/bin/env bash
# The second-factor tests (#24) take their TOTP codes from Debian's oathtool, an implementation independent of
# the library the service uses. Installs it when missing and this machine can (root with apt-get); otherwise
# says so, and those tests fail saying what to install rather than passing.
set -u
if command -v oathtool >/dev/null; then
  echo "oathtool: $(oathtool --version | head -n1)"
  exit 0
fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null; then
  echo "oathtool: installing Debian's oathtool for the second-factor tests"
  (DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends oathtool >/tmp/ensure-oathtool.log 2>&1 ||
    { apt-get update -q >/tmp/ensure-oathtool.log 2>&1 &&
      DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends oathtool >>/tmp/ensure-oathtool.log 2>&1; }) &&
    { echo "oathtool: installed"; exit 0; }
  echo "oathtool: apt-get install failed (see /tmp/ensure-oathtool.log)"
else
  echo "oathtool: not found, and this user cannot install it: apt-get install oathtool"
fi
exit 0
