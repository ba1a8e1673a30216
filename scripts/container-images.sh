#!/usr/bin/env bash
# Makes sure the container engine has every image the tests, the testcontainers example and
# docker-compose.yml use, then builds the service's own image (access-control:local) from the
# real Dockerfile. An image already present is kept; a missing one is pulled; when no registry
# answers, a local stand-in is built from tools/images/<name> (Debian bookworm from Debian's
# mirror by debootstrap, Node.js and the CA bundle of this machine, Debian's MariaDB and JRE,
# the Apache Kafka and MySQL jars from Maven Central). A stand-in carries the label
# access-control.stand-in and is rebuilt when its recipe changes.
#   scripts/container-images.sh            everything
#   scripts/container-images.sh app        only the service's image
#   scripts/container-images.sh one DIR IMAGE…   one stand-in
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
engine=${CONTAINER_CLI:-$(command -v podman || command -v docker || true)}
[ -n "$engine" ] || { echo "images: neither podman nor docker is installed (scripts/container-engine.sh installs podman)"; exit 1; }
engine=$(basename "$engine")
work=$(mktemp -d /var/tmp/access-control-images.XXXXXX)
trap 'rm -rf "$work"' EXIT
log() { echo "images: $*"; }

# The image runs on Node 24 LTS (the Dockerfile's NODE_IMAGE); its stand-in takes that node from
# scripts/ensure-node.sh (the machine's when it is a 24, else the official binary from the npm registry).
NODE_VERSION_MAJOR=24
BASE=localhost/access-control-stand-in/debian:bookworm
NODE_IMAGE=${NODE_IMAGE:-docker.io/library/node:${NODE_VERSION_MAJOR}-bookworm-slim}
APP_IMAGE=${ACCESS_CONTROL_IMAGE:-localhost/access-control:local}

exists() { $engine image inspect "$1" >/dev/null 2>&1; }
recipe_of() { $engine image inspect --format '{{ index .Config.Labels "access-control.recipe" }}' "$1" 2>/dev/null || true; }
hash_of() { (cd "$root" && cat "$@" | sha256sum | cut -c1-16); }

# $1: image, $2: recipe hash. True when the image is there and, if it is a stand-in, current.
current() {
  exists "$1" || return 1
  local have; have=$(recipe_of "$1")
  [ -z "$have" ] || [ "$have" = "<no value>" ] || [ "$have" = "$2" ]
}

try_pull() {
  [ "${IMAGES_PULL:-auto}" = "never" ] && return 1
  timeout 120 $engine pull -q "$1" >/dev/null 2>&1
}

base_image() {
  local recipe; recipe=$(hash_of scripts/container-images.sh)
  current "$BASE" "$recipe" && return 0
  command -v debootstrap >/dev/null || { log "debootstrap is needed to build the base image (apt-get install debootstrap)"; exit 1; }
  log "building $BASE with debootstrap (Debian bookworm, minbase)"
  debootstrap --variant=minbase bookworm "$work/rootfs" "${DEBIAN_MIRROR:-http://deb.debian.org/debian}" >"$work/debootstrap.log" 2>&1 ||
    { tail -20 "$work/debootstrap.log"; log "debootstrap failed"; exit 1; }
  rm -rf "$work/rootfs/var/cache/apt/archives"/*.deb "$work/rootfs/var/lib/apt/lists"/*
  tar -C "$work/rootfs" -c . | $engine import \
    --change 'CMD ["/bin/bash"]' --change "LABEL access-control.recipe=$recipe" --change 'LABEL access-control.stand-in=debian' \
    - "$BASE" >/dev/null
  rm -rf "$work/rootfs"
}

# $1: directory under tools/images, $2: recipe hash, $3…: tags. The context is prepared by the caller in $work/$1.
build_stand_in() {
  local dir=$1 recipe=$2; shift 2
  local tags=(); for t in "$@"; do tags+=(-t "$t"); done
  log "building the stand-in for $* (tools/images/$dir)"
  cp -r "tools/images/$dir/." "$work/$dir/"
  $engine build -q --build-arg BASE_IMAGE="$BASE" --build-arg NODE_IMAGE="$NODE_IMAGE" \
    --label "access-control.recipe=$recipe" --label "access-control.stand-in=$dir" \
    "${tags[@]}" "$work/$dir" >/dev/null
}

# $1: directory, $2…: images it stands in for. Pulls first; builds when that fails.
ensure() {
  local dir=$1; shift
  local recipe; recipe=$(hash_of scripts/container-images.sh $(find "tools/images/$dir" -type f | sort))
  local missing=()
  for image in "$@"; do current "$image" "$recipe" || missing+=("$image"); done
  [ "${#missing[@]}" -eq 0 ] && return 0
  local still=()
  for image in "${missing[@]}"; do try_pull "$image" && log "pulled $image" || still+=("$image"); done
  [ "${#still[@]}" -eq 0 ] && return 0
  base_image
  mkdir -p "$work/$dir"
  "prepare_$dir" "$work/$dir"
  build_stand_in "$dir" "$recipe" "${still[@]}"
}

prepare_node() {
  local root; root=$(bash scripts/ensure-node.sh --root "$NODE_VERSION_MAJOR")
  cp "$root/bin/node" "$1/node"
  cp -r "$(dirname "$(readlink -f "$(command -v npm)")")/.." "$1/npm"
  cp "${NODE_EXTRA_CA_CERTS:-/etc/ssl/certs/ca-certificates.crt}" "$1/ca-certificates.crt"
}
prepare_mariadb() { :; }
prepare_mailpit() { ensure node "$NODE_IMAGE"; }
prepare_kafka() {
  mvn -q -f tools/images/kafka/pom.xml dependency:copy-dependencies -DoutputDirectory="$1/libs" >"$work/mvn.log" 2>&1 ||
    { tail -20 "$work/mvn.log"; log "fetching the Kafka jars from Maven Central failed"; exit 1; }
}
prepare_mysql() {
  bash tools/images/mysql/fetch-server.sh "$1/server"
}

app_image() {
  ensure node "$NODE_IMAGE"
  log "building $APP_IMAGE from the Dockerfile (NODE_IMAGE=$NODE_IMAGE)"
  local started; started=$(date +%s)
  $engine build -q --build-arg NODE_IMAGE="$NODE_IMAGE" -t "$APP_IMAGE" -f Dockerfile . >/dev/null
  log "$APP_IMAGE built in $(( $(date +%s) - started )) s, $($engine image inspect --format '{{.Size}}' "$APP_IMAGE" | awk '{printf "%.0f MB", $1/1e6}')"
}

case "${1:-all}" in
  app) app_image ;;
  stand-ins)
    ensure node "$NODE_IMAGE"
    ensure mariadb docker.io/library/mariadb:10.11
    ensure kafka docker.io/confluentinc/cp-kafka:7.9.2 docker.io/apache/kafka:3.9.1
    ensure mailpit docker.io/axllent/mailpit:v1.27
    ensure mysql docker.io/library/mysql:8.4
    ;;
  one) shift; ensure "$@" ;;
  all)
    "$0" stand-ins
    app_image
    ;;
  *) echo "usage: $0 [all|stand-ins|app]"; exit 64 ;;
esac
