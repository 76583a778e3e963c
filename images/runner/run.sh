#!/bin/sh
# The runner image's entrypoint. It runs the compiled suites against the cluster this
# pod runs in, through its service account: `podlifecycle incluster` speaks the
# conformance-image contract that hydrophone and sonobuoy drive (E2E_FOCUS, E2E_SKIP,
# E2E_EXTRA_GINKGO_ARGS, E2E_DRYRUN, E2E_VERBOSITY; e2e.log, junit_01.xml, done and
# exit-status in /tmp/results), and takes the runner Job's LABELS, FOCUS and PROCS
# (images/runner/job.yaml); the Disruptive specs stay out unless ALLOW_DISRUPTIVE=1.
# Exits with the run's status (0 green, 1 a spec failed, 2 no run). In the Job
# (PODLIFECYCLE_COLLECT=1) it first stays up until the collector
# (images/scripts/runner-job.sh) has copied the results out, since `kubectl cp` needs a
# running container; hydrophone copies them from a container of its own.
set -u
cd /opt/podlifecycle || exit 2
podlifecycle incluster
status=$?
out=${E2E_ARTIFACTS:-/tmp/results}
if [ "${PODLIFECYCLE_COLLECT:-}" = 1 ]; then
  # Until the collector marks the artifacts copied, or COLLECT_WAIT_SECONDS have
  # passed (the Job then ends anyway; its artifacts go with the pod).
  waited=0
  while [ ! -e "$out/collected" ] && [ "$waited" -lt "${COLLECT_WAIT_SECONDS:-3600}" ]; do
    sleep 2; waited=$((waited + 2))
  done
fi
exit "$status"
