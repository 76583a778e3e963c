#!/usr/bin/env bash
# Builds the kubelet of one mutant: the v1.37.2 kubelet with one patch of
# images/mutants/ applied, with the same go build and version stamps as the stock
# one (scripts/components.sh), so that only the patch tells them apart.
#
#   images/mutants.sh images/mutants/12-crashloop-initial-11s.patch OUT_FILE
#   images/mutants.sh --stock OUT_FILE      the stock kubelet, built the same way
#
# The patched tree is a git checkout of the k8s.io/kubernetes module in the cache
# ($CACHE_DIR/src/mutants/kubernetes), reset before each patch; the wrapper module
# replaces k8s.io/kubernetes with it. The Go build cache keeps every package the patch
# does not touch: after the first mutant, one builds in a minute or less; a kubelet
# once built comes from $CACHE_DIR/bin/mutants.
set -euo pipefail

[ $# = 2 ] || { echo "usage: $0 PATCH|--stock OUT_FILE" >&2; exit 2; }
patch=$1 out=$2
[ "$patch" = --stock ] || [ -f "$patch" ] || { echo "error: no patch $patch" >&2; exit 2; }
[ "$patch" = --stock ] || patch=$(realpath "$patch")
out=$(realpath -m "$out")

IMAGES_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$IMAGES_DIR" || exit 1
# shellcheck source=versions.env
. ./versions.env
. scripts/steps.sh
. scripts/gomodule.sh
. scripts/components.sh

# A kubelet already built from the same patch, versions, build scripts and Go is
# reused: the key is what the binary is made from (this script only runs the steps),
# so an edited patch builds again.
key=$( { if [ "$patch" = --stock ]; then echo stock; else cat "$patch"; fi
         cat versions.env scripts/components.sh scripts/gomodule.sh; go version; } |
       sha256sum | cut -c1-16)
cached="$CACHE_DIR/bin/mutants/$key"
from_cache() {
  [ -x "$cached" ] || return 0
  mkdir -p "$(dirname "$out")" && cp "$cached" "$out"
  echo "kubelet from cache ($cached)"
  exit 0
}
from_cache

src="$CACHE_DIR/src/mutants/kubernetes"
wrapper="$CACHE_DIR/src/mutants/build"
# One patched tree: one build at a time, whoever else builds a mutant.
mkdir -p "$CACHE_DIR/src/mutants"
exec 9>"$CACHE_DIR/src/mutants/.lock"
flock 9
from_cache # built by whoever held the lock
if ! git -C "$src" rev-parse --verify -q HEAD >/dev/null 2>&1; then
  module=$(GOFLAGS=-mod=mod go mod download -json "k8s.io/kubernetes@$KUBERNETES_VERSION" | jq -r .Dir)
  [ -d "$module" ] || { echo "error: cannot get k8s.io/kubernetes@$KUBERNETES_VERSION from the Go module proxy" >&2; exit 1; }
  rm -rf "$src"; mkdir -p "$(dirname "$src")"
  cp -r "$module" "$src" && chmod -R u+w "$src"
  git -C "$src" init -q && git -C "$src" add -A &&
    git -C "$src" -c user.email=mutants@podlifecycle.local -c user.name=mutants commit -qm "k8s.io/kubernetes@$KUBERNETES_VERSION"
fi
git -C "$src" checkout -q -- . && git -C "$src" clean -fdq
if [ "$patch" != --stock ]; then
  git -C "$src" apply "$patch" || { echo "error: $patch does not apply to k8s.io/kubernetes@$KUBERNETES_VERSION" >&2; exit 1; }
fi
if [ ! -f "$wrapper/go.mod" ] || ! grep -q "=> $src" "$wrapper/go.mod"; then
  mkdir -p "$wrapper"
  { kubernetes_replaces "$KUBERNETES_VERSION"; echo "replace k8s.io/kubernetes => $src"; } >"$wrapper/go.mod.extra"
  wrapper_module "$wrapper" "k8s.io/kubernetes@$KUBERNETES_VERSION" k8s.io/kubernetes/cmd/kubelet
fi
mkdir -p "$(dirname "$out")"
status=0
(cd "$wrapper" && "${GOBUILD[@]}" -ldflags "$(kubernetes_ldflags "$KUBERNETES_VERSION")" -o "$out" k8s.io/kubernetes/cmd/kubelet) || status=$?
git -C "$src" checkout -q -- . && git -C "$src" clean -fdq
if [ $status = 0 ]; then mkdir -p "$(dirname "$cached")" && cp "$out" "$cached.tmp" && mv "$cached.tmp" "$cached"; fi
exit $status
