#!/bin/sh
# One image, one process per container: api (default), mailer, migrate, or cli <args>.
# `exec` makes node PID 1, which handles SIGTERM itself (graceful shutdown in main.ts).
set -e
command="${1:-api}"
[ "$#" -gt 0 ] && shift
case "$command" in
  api) exec node /app/dist/src/interfaces/http/main.js "$@" ;;
  mailer) exec node /app/dist/src/interfaces/mailer/main.js "$@" ;;
  migrate) exec node /app/dist/src/interfaces/cli/migrate.js "$@" ;;
  cli) exec node /app/dist/src/interfaces/cli/main.js "$@" ;;
  *)
    echo "usage: docker-entrypoint.sh api|mailer|migrate|cli [args…] (got \"$command\")" >&2
    exit 64
    ;;
esac
