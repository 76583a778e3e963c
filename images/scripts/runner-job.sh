#!/usr/bin/env bash
# make runner-job: runs the suites inside the cluster KUBECONFIG names, as the Job of
# images/runner/job.yaml, and copies its artifacts (e2e.json, junit_01.xml, e2e.log,
# report.html, report.md, the timelines) to OUT; then deletes the Job, its namespace
# and its cluster-wide RBAC again, also when interrupted. Exits with the suites'
# status.
#
#   KUBECONFIG=... images/scripts/runner-job.sh OUT
#   RUNNER_IMAGE=registry.example/podlifecycle/runner:1 ...   an image your nodes pull
#   LABELS='PL-1||RS-6' FOCUS=... PROCS=2 ...   as make e2e takes them (make runner-job
#                                               passes its own): the Job's env
#
# On a kind cluster of this machine (its nodes' providerIDs say kind://docker/<name>/)
# the image podlifecycle/runner:1 (make runner-image) is loaded into its nodes; any
# other cluster pulls RUNNER_IMAGE from a registry: push the image there first.
set -euo pipefail
REPO_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$REPO_DIR"
out=${1:?usage: runner-job.sh OUT}

# yaml_quote NAME VALUE: VALUE as a YAML double-quoted scalar, whatever it holds (a
# label filter's ! & | ( ), a focus regexp's \ and "); a control character (a newline)
# is refused, since neither a label filter nor a focus has one.
yaml_quote() {
  local v=$2
  if [[ $v == *[[:cntrl:]]* ]]; then
    echo "error: $1 holds a control character (a newline, a tab): not passed to the runner Job" >&2
    return 1
  fi
  v=${v//\\/\\\\}
  v=${v//\"/\\\"}
  printf '"%s"' "$v"
}

# The suites' selection, as make e2e takes it (an empty LABELS is !Slow, an empty PROCS
# 4); the Job's entrypoint (images/runner/run.sh) adds && !Disruptive.
labels=${LABELS:-!Slow} focus=${FOCUS:-} procs=${PROCS:-4}
[[ $procs =~ ^[1-9][0-9]*$ ]] || { echo "error: PROCS=$procs: want a positive integer, the number of Ginkgo processes (PROCS=1 runs one spec at a time)" >&2; exit 1; }
image=${RUNNER_IMAGE:-podlifecycle/runner:1}
q_labels=$(yaml_quote LABELS "$labels")
q_focus=$(yaml_quote FOCUS "$focus")
q_procs=$(yaml_quote PROCS "$procs")
q_image=$(yaml_quote RUNNER_IMAGE "$image")

# images/runner/job.yaml with the image and, on each line marked "# runner-job.sh:
# NAME", NAME's value in place of the default there.
manifest='' marked=()
while IFS= read -r line || [ -n "$line" ]; do
  if [[ $line =~ ^([[:space:]]*)value:.*'# runner-job.sh: '([A-Z]+)[[:space:]]*$ ]]; then
    name=${BASH_REMATCH[2]}
    case $name in
      LABELS) value=$q_labels ;;
      FOCUS) value=$q_focus ;;
      PROCS) value=$q_procs ;;
      *) echo "error: images/runner/job.yaml marks $name, which runner-job.sh does not set" >&2; exit 1 ;;
    esac
    line="${BASH_REMATCH[1]}value: $value  # runner-job.sh: $name"
    marked+=("$name")
  elif [[ $line =~ ^([[:space:]]*)image:\ podlifecycle/runner:1[[:space:]]*$ ]]; then
    line="${BASH_REMATCH[1]}image: $q_image"
    marked+=(image)
  fi
  manifest+=$line$'\n'
done <images/runner/job.yaml
[ "$(printf '%s\n' "${marked[@]}" | LC_ALL=C sort | tr '\n' ' ')" = "FOCUS LABELS PROCS image " ] || {
  echo "error: images/runner/job.yaml has not exactly one image: podlifecycle/runner:1 and one value line marked \"# runner-job.sh: NAME\" for each of LABELS, FOCUS and PROCS (found: ${marked[*]})" >&2; exit 1; }

: "${KUBECONFIG:?KUBECONFIG must name the cluster to run the suites in}"
# shellcheck source=../versions.env
. images/versions.env
ns=podlifecycle-runner job=podlifecycle-runner
# How long the suites may take before the collector gives up (make e2e's own bound
# is 80 minutes).
: "${RUNNER_TIMEOUT:=90m}"

kubectl=kubectl
command -v kubectl >/dev/null || kubectl="${XDG_CACHE_HOME:-$HOME/.cache}/podlifecycle/bin/kubernetes-$KUBERNETES_VERSION/kubectl"
[ -x "$(command -v "$kubectl")" ] || { echo "error: no kubectl on PATH, nor $kubectl (make images builds it)" >&2; exit 1; }
k() { "$kubectl" "$@"; }
k get --raw /readyz >/dev/null || { echo "error: the cluster of KUBECONFIG=$KUBECONFIG does not answer (kubectl get --raw /readyz)" >&2; exit 1; }

if [ -z "${RUNNER_IMAGE:-}" ]; then
  provider=$(k get nodes -o jsonpath='{.items[0].spec.providerID}')
  [[ $provider == kind://docker/*/* ]] || {
    echo "error: the cluster's nodes are not kind nodes of this machine (providerID $provider): push $image to a registry they pull from and set RUNNER_IMAGE to its name there" >&2; exit 1; }
  cluster=${provider#kind://docker/}; cluster=${cluster%%/*}
  docker image inspect "$image" >/dev/null 2>&1 || { echo "error: $image is not in Docker: make runner-image builds it" >&2; exit 1; }
  echo "loading $image into the nodes of kind cluster $cluster"
  go tool kind load docker-image "$image" --name "$cluster"
fi

# shellcheck disable=SC2317 # run by the trap
cleanup() { k delete --ignore-not-found --wait=true -f - <<<"$manifest" >/dev/null || echo "warning: could not delete the runner's objects: kubectl delete -f images/runner/job.yaml" >&2; }
trap cleanup EXIT
k delete --ignore-not-found --wait=true -n "$ns" job "$job" >/dev/null 2>&1 || true
echo "runner: --label-filter=$labels${focus:+ --focus=$focus} --procs=$procs (the Disruptive specs left out)"
k apply -f - <<<"$manifest"

echo "waiting for the runner pod to start"
k wait -n "$ns" --for=condition=Ready pod -l job-name="$job" --timeout=5m >/dev/null
pod=$(k get -n "$ns" pods -l job-name="$job" -o jsonpath='{.items[0].metadata.name}')
# The suites' output as they run, until podlifecycle incluster's "done" line (the container
# then waits to be collected, so the log stream does not end by itself).
coproc LOGS { exec timeout "$RUNNER_TIMEOUT" "$kubectl" logs -n "$ns" -f "$pod"; }
while IFS= read -r line <&"${LOGS[0]}"; do
  printf '%s\n' "$line"
  [[ $line != "podlifecycle incluster: done"* ]] || break
done
kill "$LOGS_PID" 2>/dev/null || true
k exec -n "$ns" "$pod" -- test -e /results/exit-status || { echo "error: the runner did not finish within $RUNNER_TIMEOUT (pod $ns/$pod)" >&2; exit 1; }

rm -rf "$out"; mkdir -p "$(dirname "$out")"
k cp -n "$ns" "$pod:/results" "$out" >/dev/null
k exec -n "$ns" "$pod" -- touch /results/collected
status=$(cat "$out/exit-status")
echo "runner: exit status $status; artifacts in $out (report: $out/report.html)"
exit "$status"
