#!/usr/bin/env bash
# The OAuth client test (test/e2e/oauth-clients.e2e.test.ts) builds a go-oidc verifier with Debian's Go and
# Debian's go-oidc (GOPATH mode under /usr/share/gocode: no Go module proxy is needed or used).
# Installs them when missing and this machine can (root with apt-get); otherwise says so, and that test
# fails saying what to install rather than passing.
set -u
PACKAGES="golang-go golang-github-coreos-go-oidc-dev"
if command -v go >/dev/null && [ -d /usr/share/gocode/src/github.com/coreos/go-oidc ]; then
  echo "go-oidc: $(go version | cut -d' ' -f3), /usr/share/gocode/src/github.com/coreos/go-oidc"
  exit 0
fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null; then
  echo "go-oidc: installing Debian's $PACKAGES for the OAuth client test"
  # shellcheck disable=SC2086
  (DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $PACKAGES >/tmp/ensure-go-oidc.log 2>&1 ||
    { apt-get update -q >/tmp/ensure-go-oidc.log 2>&1 &&
      DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $PACKAGES >>/tmp/ensure-go-oidc.log 2>&1; }) &&
    { echo "go-oidc: installed"; exit 0; }
  echo "go-oidc: apt-get install failed (see /tmp/ensure-go-oidc.log)"
else
  echo "go-oidc: not found, and this user cannot install it: apt-get install $PACKAGES"
fi
exit 0
