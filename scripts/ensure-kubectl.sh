#!/usr/bin/env bash
# test/integration/deploy renders deploy/overlays/example with `kubectl kustomize` (offline).
# Installs kubectl when missing and this machine can (root with apt-get: the `kubectl` package where a
# repository offers it, Debian's `kubernetes-client` otherwise); otherwise says so, and that test
# reports itself skipped rather than passing.
set -u
command -v kubectl >/dev/null && { echo "kubectl: $(command -v kubectl)"; exit 0; }
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null; then
  echo "kubectl: installing it for the manifest test"
  install() { apt-get install -y -q --no-install-recommends "$1" >>/tmp/ensure-kubectl.log 2>&1; }
  (install kubectl || install kubernetes-client ||
    { apt-get update -q >>/tmp/ensure-kubectl.log 2>&1 && { install kubectl || install kubernetes-client; }; }) &&
    { echo "kubectl: installed"; exit 0; }
  echo "kubectl: apt-get install failed (see /tmp/ensure-kubectl.log)"
else
  echo "kubectl: not found, and this user cannot install it"
fi
exit 0
