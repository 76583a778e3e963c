#!/bin/sh
# The runner image's entrypoint (images/runner/job.yaml runs it as a Job): runs the
# compiled suites against the cluster this pod runs in, through its service account
# (inCluster in the run's record), as `make e2e` runs them against a cluster of yours (KUBECONFIG),
# with the LABELS, FOCUS and PROCS of its env (images/scripts/runner-job.sh sets them):
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
mkdir -p "$out"
cd "$root" || exit 1
# The run's record (framework/config: run.json), which is all the suites read of the
# run: in this cluster, through the pod's service account; artifacts in $out.
json() { printf '"%s"' "$(printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g')"; }
now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
allow=false; [ "${ALLOW_DISRUPTIVE:-}" = 1 ] && allow=true
printf '{"id":"runner-%s","started":"%s","suitesStarted":"%s","inCluster":true,"dir":%s,"config":{"labels":%s,"focus":%s,"procs":%s,"allowDisruptive":%s,"artifacts":%s}}\n' \
  "$(date +%s)" "$now" "$now" "$(json "$out")" "$(json "${LABELS:-!Slow}")" "$(json "${FOCUS:-}")" "${PROCS:-4}" "$allow" "$(json "$out")" >"$out/run.json"
export PODLIFECYCLE_RUN="$out/run.json"

set -- --keep-going --timeout=80m --poll-progress-after=120s --no-color --procs="${PROCS:-4}" \
  --label-filter="$labels" --output-dir="$out" --json-report=e2e.json --junit-report=e2e-junit.xml
[ -z "${FOCUS:-}" ] || set -- "$@" --focus="$FOCUS"
echo "podlifecycle-runner: suites $suites: --label-filter=$labels${FOCUS:+ --focus=$FOCUS} --procs=${PROCS:-4}"
status=0
# shellcheck disable=SC2046 # one word per suite binary
ginkgo "$@" $(for s in $suites; do echo "suites/$s/${s##*/}.test"; done) || status=$?
podlifecycle report -artifacts "$out" -json e2e.json -suites "$suites" || { echo "the report could not be written"; [ "$status" != 0 ] || status=1; }
echo "$status" >"$out/exit-status"
echo "podlifecycle-runner: done, exit status $status; artifacts in $out"

# Until the collector marks the artifacts copied, or COLLECT_WAIT_SECONDS have passed
# (the Job then ends anyway; its artifacts go with the pod).
waited=0
while [ ! -e "$out/collected" ] && [ "$waited" -lt "${COLLECT_WAIT_SECONDS:-3600}" ]; do
  sleep 2; waited=$((waited + 2))
done
exit "$status"
