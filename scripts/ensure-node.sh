#!/usr/bin/env bash
# A supported Node.js for the project's own commands: the LTS lines 22 and 24 (package.json's
# engines). The machine's node when it is one of them; otherwise the official binary of the pinned
# Node 24 release, which the npm registry serves as the package node-<os>-<arch> (the same bytes as
# nodejs.org's tarball, checked by npm against the registry's integrity hash), unpacked under
# .cache/node once and reused.
#   scripts/ensure-node.sh ENV_FILE   writes ENV_FILE, to be sourced: PATH with that node first, the
#                                     machine's own too (through symlinks in .cache/node/machine/bin),
#                                     so a shell whose node is another still runs the one the
#                                     dependencies were installed with; and node-gyp's own nodedir
#                                     setting (npm_package_config_node_gyp_nodedir, which npm does not
#                                     read: npm 11 warns "Unknown config" on a nodedir of its own) when
#                                     that node's headers lie beside it, so native addons built from
#                                     source use them, not a download nor a ~/.npmrc nodedir of another node
#   scripts/ensure-node.sh --root 24  prints a directory holding bin/node of that major (the image's
#                                     stand-in base takes its node from there)
set -euo pipefail
cd "$(dirname "$0")/.."

SUPPORTED_MAJORS="22 24"
# The release fetched when the machine has no supported node; bump with the LTS line.
PINNED_24=${NODE_PINNED_24:-24.21.0}
PINNED_22=${NODE_PINNED_22:-22.23.3}
# Where fetched builds and the machine node's symlinks are kept (a test points it elsewhere).
NODE_CACHE=${NODE_CACHE_DIR:-$PWD/.cache/node}

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
  dir="$NODE_CACHE/$pkg-$version"
  if [ ! -x "$dir/bin/node" ]; then
    command -v npm >/dev/null || { log "npm is needed to fetch Node $version; install Node.js 22 or 24 (https://nodejs.org)"; exit 1; }
    log "this machine's node ($(node -v 2>/dev/null || echo none)) is not a supported LTS (22, 24); fetching Node $version ($pkg from the npm registry)"
    mkdir -p "$NODE_CACHE"
    tmp=$(mktemp -d "$NODE_CACHE/.fetch.XXXXXX")
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

# $1: a node's root (holding bin/node). Prints the line that gives node-gyp that node's headers,
# when they lie there (include/node of the same version: an official build's, Debian's libnode-dev).
headers_line() {
  local root=$1 h version
  h="$root/include/node/node_version.h"
  [ -f "$h" ] || return 0
  version=$(awk '/#define NODE_(MAJOR|MINOR|PATCH)_VERSION /{printf "%s%s", sep, $3; sep="."}' "$h")
  [ "v$version" = "$("$root/bin/node" -v 2>/dev/null)" ] || return 0
  echo "export npm_package_config_node_gyp_nodedir=\"$root\""
}

# $1: the machine's node. Prints a directory whose node, npm and npx are that node's, as symlinks:
# on PATH first, it names that node and shadows nothing else of its directory (/usr/bin, say).
machine_bin() {
  local node=$1 dir bin tool target
  dir=$(dirname "$node")
  bin="$NODE_CACHE/machine/bin"
  mkdir -p "$bin"
  for tool in node npm npx corepack; do
    target="$dir/$tool"
    [ "$tool" = node ] && target=$(readlink -f "$node")
    [ -e "$target" ] || continue
    # Replaced in one rename: a make running beside this one never sees it missing.
    ln -sfn "$target" "$bin/.$tool.$$" && mv -f "$bin/.$tool.$$" "$bin/$tool"
  done
  echo "$bin"
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
    # Written whole, then renamed: a shell sourcing it meanwhile reads the old one or the new one.
    if [ -n "$machine" ] && [[ " $SUPPORTED_MAJORS " == *" $(major_of "$machine") "* ]]; then
      bin=$(machine_bin "$machine")
      {
        echo "# the node on PATH ($("$machine" -v), $(readlink -f "$machine")) is a supported LTS: first on PATH,"
        echo "# so that a shell whose node is another runs the one the dependencies were installed with"
        echo "export PATH=\"$bin:\$PATH\""
        headers_line "$(dirname "$(dirname "$(readlink -f "$machine")")")"
      } > "$env_file.tmp.$$"
    else
      root=$(fetch 24)
      {
        echo "# Node $("$root/bin/node" -v), fetched by scripts/ensure-node.sh (the machine's is $(node -v 2>/dev/null || echo none))"
        echo "export PATH=\"$root/bin:\$PATH\""
        headers_line "$root"
      } > "$env_file.tmp.$$"
    fi
    mv -f "$env_file.tmp.$$" "$env_file"
    ;;
esac
