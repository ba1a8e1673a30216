#!/usr/bin/env bash
# The MySQL 8 server the tests run from a Maven Central artifact (test/support/local-mysql.ts) links
# against a few system libraries that a slim Debian lacks. Usage: ensure-mysql-libs.sh <path to mysqld>.
# Installs the Debian packages of the missing ones when this machine can (root with apt-get);
# otherwise names them and exits 1.
set -u
mysqld="${1:?usage: ensure-mysql-libs.sh <path to mysqld>}"
missing=$(ldd "$mysqld" 2>/dev/null | awk '/=> not found/ { print $1 }')
[ -z "$missing" ] && exit 0

packages=()
for lib in $missing; do
  case "$lib" in
    libaio.so.1) packages+=(libaio1) ;;
    libnuma.so.1) packages+=(libnuma1) ;;
    libncurses.so.6 | libtinfo.so.6) packages+=(libncurses6) ;;
    *) echo "mysql: $mysqld needs $lib, which no known Debian package provides here" >&2; exit 1 ;;
  esac
done

if [ "$(id -u)" != "0" ] || ! command -v apt-get >/dev/null; then
  echo "mysql: $mysqld needs $(echo $missing): install the packages ${packages[*]} (apt-get install ${packages[*]})" >&2
  exit 1
fi
echo "mysql: installing ${packages[*]} for $mysqld" >&2
log=/tmp/ensure-mysql-libs.log
if apt-get install -y -q --no-install-recommends "${packages[@]}" >"$log" 2>&1 ||
  { apt-get update -q >>"$log" 2>&1 && apt-get install -y -q --no-install-recommends "${packages[@]}" >>"$log" 2>&1; }; then
  exit 0
fi
echo "mysql: apt-get install ${packages[*]} failed (see $log)" >&2
exit 1
