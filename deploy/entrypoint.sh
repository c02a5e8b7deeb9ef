#!/bin/sh
# The image's entrypoint: runs one part of svc, named by the first argument.
# Kubernetes sets it with `args: [payments]`; `docker run IMAGE migrate` applies migrations.
# `exec` replaces the shell with node, so node itself receives SIGTERM and drains before exiting.
set -eu

# The app folder is the one above this script (/app in the image; the repo root in a checkout).
APP_DIR=$(CDPATH= cd -- "$(dirname -- "$0")/.." && pwd)
cd "$APP_DIR"

usage() {
  echo "usage: entrypoint.sh gateway|payments|routing-risk|ledger|payouts|webhooks|migrate [part...]|svc <command...>" >&2
}

if [ "$#" -eq 0 ]; then
  usage
  exit 64
fi

part=$1
shift

case "$part" in
  gateway)
    exec node --enable-source-maps dist/gateway/main.js "$@" ;;
  payments|routing-risk|ledger|payouts|webhooks)
    exec node --enable-source-maps "dist/services/$part/main.js" "$@" ;;
  migrate)
    # No argument: every part's schema; otherwise only the named parts.
    exec node --enable-source-maps dist/all-in-one/migrate.js "$@" ;;
  svc)
    # The management CLI run inside a gateway pod, e.g.
    # `kubectl exec deploy/svc-gateway -- /app/deploy/entrypoint.sh svc merchant create --name Acme`:
    # it talks to the gateway beside it with the pod's own operator token.
    export SVC_URL="${SVC_URL:-http://127.0.0.1:${PORT:-8080}}"
    export SVC_OPERATOR_TOKEN="${SVC_OPERATOR_TOKEN:-${OPERATOR_TOKEN:-}}"
    exec node bin/svc.js "$@" ;;
  *)
    echo "entrypoint.sh: unknown part \"$part\"" >&2
    usage
    exit 64 ;;
esac
