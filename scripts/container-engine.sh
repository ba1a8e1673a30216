#!/usr/bin/env bash
# Finds a container engine whose Docker-compatible API answers, or provisions one: Debian's
# podman with runc, its API served on a socket of its own (`podman system service`).
# Writes the settings testcontainers needs to $1 (default .cache/container-engine.env) as
# `export NAME=value` lines, and says on stdout where the engine is; exits 1 with what is
# missing when none can be had. `CONTAINER_ENGINE=none` skips it (the env file is emptied).
set -u
cd "$(dirname "$0")/.."
out="${1:-.cache/container-engine.env}"
mkdir -p "$(dirname "$out")"
: >"$out"
PODMAN_SOCKET="${PODMAN_SOCKET:-/run/podman/podman.sock}"

if [ "${CONTAINER_ENGINE:-auto}" = "none" ]; then
  echo "container engine: skipped (CONTAINER_ENGINE=none)"
  exit 0
fi

answers() { # $1: a unix socket path
  [ -S "$1" ] && curl -s -m 3 --unix-socket "$1" http://engine/_ping 2>/dev/null | grep -q OK
}

use() { # $1: socket path, $2: what it is
  {
    echo "export DOCKER_HOST=unix://$1"
    # Ryuk (the reaper) is an image from a registry; the tests stop what they start themselves.
    echo "export TESTCONTAINERS_RYUK_DISABLED=true"
  } >>"$out"
  echo "container engine: $2 at unix://$1"
  exit 0
}

# A podman service whose working directory is gone (started by an earlier run from a checkout that was
# deleted since) still answers its socket but starts no container: conmon says "Failed to get working
# directory" and the API "(HTTP code 500) server error - write child: broken pipe". Every such service is
# stopped before any socket is asked (DOCKER_HOST may name its socket too); ours is started again below, from /.
for pid in $(pgrep -f "podman system service" 2>/dev/null); do
  case "$(readlink "/proc/$pid/cwd" 2>/dev/null)" in
    *" (deleted)")
      echo "container engine: a podman service (pid $pid) lost its working directory; stopping it"
      kill "$pid" 2>/dev/null
      for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      ;;
  esac
done
[ -S "$PODMAN_SOCKET" ] && ! answers "$PODMAN_SOCKET" && rm -f "$PODMAN_SOCKET"

if [ -n "${DOCKER_HOST:-}" ]; then
  case "$DOCKER_HOST" in
    unix://*) answers "${DOCKER_HOST#unix://}" && use "${DOCKER_HOST#unix://}" "DOCKER_HOST" ;;
    *) echo "export DOCKER_HOST=$DOCKER_HOST" >>"$out"; echo "container engine: DOCKER_HOST=$DOCKER_HOST (not checked)"; exit 0 ;;
  esac
  echo "container engine: DOCKER_HOST=$DOCKER_HOST does not answer; looking for another"
fi
answers /var/run/docker.sock && use /var/run/docker.sock "the Docker engine"

answers "$PODMAN_SOCKET" && use "$PODMAN_SOCKET" "podman (already serving)"

need_install=()
for tool in podman runc debootstrap podman-compose curl; do command -v "$tool" >/dev/null || need_install+=("$tool"); done
if [ "${#need_install[@]}" -gt 0 ]; then
  if [ "$(id -u)" != "0" ] || ! command -v apt-get >/dev/null; then
    echo "container engine: none answers (no DOCKER_HOST, no /var/run/docker.sock) and ${need_install[*]} cannot be installed by this user;"
    echo "  start Docker or Podman (podman system service) and set DOCKER_HOST, or run as root on Debian"
    exit 1
  fi
  echo "container engine: installing ${need_install[*]} from Debian"
  log=/tmp/container-engine-apt.log
  # podman-compose pulls in python3; the networking pieces come with podman (netavark, aardvark-dns).
  packages=(podman runc debootstrap podman-compose curl)
  if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${packages[@]}" >"$log" 2>&1; then
    apt-get update -q >>"$log" 2>&1
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${packages[@]}" >>"$log" 2>&1 ||
      { echo "container engine: apt-get install ${packages[*]} failed (see $log)"; exit 1; }
  fi
fi

# runc, not crun: crun fails on this cgroups v1 hybrid host. The ulimits stay within the sandbox's
# own hard limits (open files 20000), or runc refuses to start any container.
conf=/etc/containers/containers.conf
if [ ! -e "$conf" ] || grep -q 'written by access-control' "$conf"; then
  nofile=$(ulimit -Hn); [ "$nofile" = unlimited ] && nofile=1048576; [ "$nofile" -gt 20000 ] && nofile=20000
  nproc=$(ulimit -Hu); [ "$nproc" = unlimited ] && nproc=4096; [ "$nproc" -gt 4096 ] && nproc=4096
  mkdir -p /etc/containers
  cat >"$conf" <<EOF
# written by access-control's scripts/container-engine.sh
[containers]
default_ulimits = ["nofile=$nofile:$nofile", "nproc=$nproc:$nproc"]
pids_limit = 2048
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
EOF
fi

mkdir -p "$(dirname "$PODMAN_SOCKET")"
# From /: the service outlives this run, and conmon needs the directory it was started in to exist.
(cd / && setsid nohup podman system service --time=0 "unix://$PODMAN_SOCKET" >/tmp/podman-service.log 2>&1 </dev/null &)
for _ in $(seq 1 50); do
  answers "$PODMAN_SOCKET" && use "$PODMAN_SOCKET" "podman $(podman --version | awk '{print $3}') (started)"
  sleep 0.2
done
echo "container engine: podman system service did not answer on $PODMAN_SOCKET (see /tmp/podman-service.log)"
exit 1
