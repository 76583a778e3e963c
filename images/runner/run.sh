#!/bin/sh
# The runner image's entrypoint (images/runner/job.yaml runs it as a Job): runs the
# compiled suites against the cluster this pod runs in, through its service account
# (E2E_IN_CLUSTER=1), as `make e2e` runs them against a cluster of yours (KUBECONFIG):
# the Disruptive specs are left out unless ALLOW_DISRUPTIVE=1. Then writes the report
# beside the suites' JSON and JUnit reports in $E2E_ARTIFACTS, and stays up until the
# collector (images/scripts/runner-job.sh) has copied them out, since `kubectl cp`
# needs a running container. Exits with the suites' status.
set -u
root=/opt/podlifecycle
out=${E2E_ARTIFACTS:-/results}
labels=${LABELS:-!Slow}
[ "${ALLOW_DISRUPTIVE:-}" = 1 ] || labels="($labels) && !Disruptive"
suites=$(cat "$root/suites.txt")
export E2E_IN_CLUSTER=1 E2E_ARTIFACTS="$out"
mkdir -p "$out"
cd "$root" || exit 1

set -- --keep-going --timeout=80m --poll-progress-after=120s --no-color --procs="${PROCS:-4}" \
  --label-filter="$labels" --output-dir="$out" --json-report=e2e.json --junit-report=e2e-junit.xml
[ -z "${FOCUS:-}" ] || set -- "$@" --focus="$FOCUS"
status=0
# shellcheck disable=SC2046 # one word per suite binary
ginkgo "$@" $(for s in $suites; do echo "suites/$s/${s##*/}.test"; done) || status=$?
report -artifacts "$out" -json e2e.json -suites "$suites" || { echo "the report could not be written"; [ "$status" != 0 ] || status=1; }
echo "$status" >"$out/exit-status"
echo "podlifecycle-runner: done, exit status $status; artifacts in $out"

# Until the collector marks the artifacts copied, or COLLECT_WAIT_SECONDS have passed
# (the Job then ends anyway; its artifacts go with the pod).
waited=0
while [ ! -e "$out/collected" ] && [ "$waited" -lt "${COLLECT_WAIT_SECONDS:-3600}" ]; do
  sleep 2; waited=$((waited + 2))
done
exit "$status"
