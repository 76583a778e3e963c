#!/usr/bin/env bash
# make runner-image: the suites, compiled, in an image that runs them inside the
# cluster under test (images/runner/job.yaml), offline as every other image: the Go
# module proxy's sources, the busybox image images/build.sh makes (sh and tar: the
# entrypoint, and `kubectl cp` to copy the artifacts out).
#
#   images/scripts/runner.sh "cluster lifecycle ..."   the suites, in run order
#
# Layout in the image, under /opt/podlifecycle: go.mod (the suites find the
# repository root by it), suites/<dir>/<name>.test (Ginkgo runs a compiled suite in
# its directory, as from a checkout), images/versions.env (the report's software
# facts), suites.txt; ginkgo, podlifecycle and the entrypoint in /usr/local/bin; it runs as
# nobody (65534), since nothing it does needs root. The suites
# are built with -trimpath, so their code locations name files by module path, which
# the report reads relative to the repository as it does a checkout's.
set -euo pipefail
IMAGES_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
REPO_DIR=$(dirname "$IMAGES_DIR")
cd "$IMAGES_DIR"
# shellcheck source=../versions.env
. ./versions.env
. scripts/steps.sh
. scripts/dockerimg.sh

RUNNER_IMAGE=podlifecycle/runner:1
BASE=busybox:1.28
suites=${1:?usage: runner.sh \"SUITE...\"}
image_key "$BASE" >/dev/null || { echo "error: $BASE is not in Docker: build it first with \`make images\` (unset KUBECONFIG)" >&2; exit 1; }

build_runner() {
  local tag=$1 key=$2 ctx s; ctx=$(mktemp -d "$CACHE_DIR/runner.XXXXXX")
  (
    set -e
    cd "$REPO_DIR"
    mkdir -p "$ctx/opt/podlifecycle/images" "$ctx/usr/local/bin" "$ctx/tmp/bin"
    read -ra dirs <<<"$suites"
    CGO_ENABLED=0 go tool ginkgo build --trimpath --ldflags='-s -w' -o "$ctx/tmp/bin/" "${dirs[@]/#/./suites/}"
    for s in "${dirs[@]}"; do
      mkdir -p "$ctx/opt/podlifecycle/suites/$s"
      mv "$ctx/tmp/bin/${s##*/}.test" "$ctx/opt/podlifecycle/suites/$s/"
    done
    # The run's record names the suite's commit, which the image has no git to ask.
    local commit dirty=false
    commit=$(git rev-parse HEAD 2>/dev/null || true)
    [ -z "$(git status --porcelain --untracked-files=no 2>/dev/null)" ] || dirty=true
    CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o "$ctx/usr/local/bin/" github.com/onsi/ginkgo/v2/ginkgo
    CGO_ENABLED=0 go build -trimpath -ldflags="-s -w -X main.buildCommit=$commit -X main.buildDirty=$dirty" -o "$ctx/usr/local/bin/" ./cmd/podlifecycle
    install -m 0755 images/runner/run.sh "$ctx/usr/local/bin/podlifecycle-runner"
    echo "module github.com/podlifecycle/conformance" >"$ctx/opt/podlifecycle/go.mod"
    cp images/versions.env "$ctx/opt/podlifecycle/images/"
    echo "$suites" >"$ctx/opt/podlifecycle/suites.txt"
    rm -rf "$ctx/tmp"
    printf 'FROM %s\nCOPY opt /opt\nCOPY usr /usr\nENV PATH=/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\nUSER 65534:65534\nENTRYPOINT ["/usr/local/bin/podlifecycle-runner"]\n' "$BASE" >"$ctx/Dockerfile"
  ) && legacy_build "$tag" "$key" "$ctx"
  local rc=$?; rm -rf "$ctx"; return $rc
}

mapfile -t sources < <(cd "$REPO_DIR" && find go.mod go.sum cmd framework suites images/runner images/versions.env images/scripts/runner.sh images/scripts/dockerimg.sh -type f -not -path '*/testdata/*' | sort)
key=$(cd "$REPO_DIR" && inputs_key "${sources[@]}" "$suites" "$(image_key "$BASE")")
echo "== Runner image $RUNNER_IMAGE"
run_step runner-image "$key" "image_current '$RUNNER_IMAGE' '$key'" -- build_runner "$RUNNER_IMAGE" "$key"
echo "$RUNNER_IMAGE: $(docker image inspect --format '{{.Size}}' "$RUNNER_IMAGE" | awk '{printf "%d MB", $1 / 1e6}')"
