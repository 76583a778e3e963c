#!/usr/bin/env bash
# Tests of the image build's error messages, with the commands they depend on stubbed:
# no Docker and not root; privileged containers impossible even with the workaround; a
# dockerd that exits or hangs; a failing build step; missing prerequisites. Run by
# `make test`; needs neither Docker nor network.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
CACHE_DIR=$(mktemp -d); export CACHE_DIR
trap 'rm -rf "$CACHE_DIR"' EXIT
. scripts/steps.sh
. scripts/docker.sh
. scripts/prereqs.sh

failures=0 passed=0
expect() { # NAME EXPECTED_RC OUTPUT_FILE NEEDLE...
  local name=$1 want_rc=$2 got_rc=$3 out=$4; shift 4
  local ok=true n
  [ "$got_rc" = "$want_rc" ] || ok=false
  for n in "$@"; do grep -qF -- "$n" "$out" || ok=false; done
  if $ok; then passed=$((passed + 1)); echo "ok   $name"
  else failures=$((failures + 1)); echo "FAIL $name (exit $got_rc, want $want_rc); output:"; sed 's/^/     /' "$out"; fi
}

out=$(mktemp)
# Stand-ins first on PATH: the host's apt-get and dockerd never run here (a test that
# expects a call stubs it as a function, or replaces the stand-in).
fakebin="$CACHE_DIR/fakebin"; mkdir -p "$fakebin"
for c in apt-get dockerd; do printf '#!/bin/sh\necho "%s must not run"\n' "$c" >"$fakebin/$c"; chmod +x "$fakebin/$c"; done
PATH="$fakebin:$PATH"

# 1. No Docker installed, not root: say what to install, do not try to install it.
(
  have_docker() { return 1; }; is_root() { return 1; }
  CI=true ensure_docker
) >"$out" 2>&1
expect "no docker, not root" 1 $? "$out" "error: Docker is not installed" "apt-get install docker.io" "PODLIFECYCLE_START_DOCKER=1"
grep -q "apt-get must not run" "$out" && { failures=$((failures + 1)); echo "FAIL no docker, not root: ran apt-get"; }

# 2. A daemon that is not running, not root: say how to start one.
(
  have_docker() { return 0; }; docker_answers() { return 1; }; is_root() { return 1; }
  ensure_docker
) >"$out" 2>&1
expect "docker not answering, not root" 1 $? "$out" "no Docker daemon answers" "PODLIFECYCLE_START_DOCKER=1"

# 3. Privileged containers impossible even after restarting dockerd with the shim.
(
  have_docker() { return 0; }; is_root() { return 0; }
  started=0
  docker_answers() { [ "$started" = 1 ]; }
  start_dockerd() { started=1; echo "started dockerd ${1:-}"; }
  stop_our_dockerd() { :; }
  ensure_probe_image() { :; }
  privileged_probe() { echo 'docker: Error response from daemon: unable to apply caps: operation not permitted.' >"$CACHE_DIR/logs/privileged-probe.log"; return 1; }
  CI=true ensure_docker
) >"$out" 2>&1
expect "privileged impossible even with the workaround" 1 $? "$out" \
  "started dockerd with-shim" "privileged containers cannot run here, even with the capability workaround" "unable to apply caps"

# 4. A failing build step names itself and its log, and leaves no stamp behind; under
#    set -e too (build.sh's), which must not end the run before the report.
(
  set -e
  run_step kubernetes-v9.9.9 key1 true -- sh -c 'echo "compile error in cmd/kubelet"; exit 2'
) >"$out" 2>&1
expect "failing component build" 1 $? "$out" "kubernetes-v9.9.9" "FAILED" "exit 2" "log: $CACHE_DIR/logs/kubernetes-v9.9.9.log" "compile error in cmd/kubelet"
[ -e "$STAMP_DIR/kubernetes-v9.9.9" ] && { failures=$((failures + 1)); echo "FAIL failing component build: left a stamp"; }

# 5. A step whose inputs are unchanged and whose output exists is skipped.
(
  run_step cached-step key2 true -- echo built && run_step cached-step key2 true -- echo built
) >"$out" 2>&1
expect "unchanged step is cached" 0 $? "$out" "built in" "cached"

# 6. Missing host prerequisites, not root: name every missing package in one apt-get
#    line, install nothing.
(
  is_root() { return 1; }
  check_go() { :; }
  HOST_PREREQS=("debootstrap | false | x" "jq | true | x" "libseccomp-dev | false | x")
  CI=true ensure_prereqs
) >"$out" 2>&1
expect "missing prerequisites, not root" 1 $? "$out" "error: missing host prerequisites: debootstrap libseccomp-dev" \
  "apt-get update && apt-get install -y debootstrap libseccomp-dev" "PODLIFECYCLE_START_DOCKER=1"
grep -q "apt-get must not run" "$out" && { failures=$((failures + 1)); echo "FAIL missing prerequisites, not root: ran apt-get"; }

# 7. As root under CI: one apt-get update and one install of exactly the missing ones.
(
  is_root() { return 0; }
  check_go() { :; }
  apt-get() { echo "apt-get $*"; if [ "$1" = install ]; then touch "$CACHE_DIR/libseccomp-installed"; fi; }
  HOST_PREREQS=("jq | true | x" "libseccomp-dev | [ -f $CACHE_DIR/libseccomp-installed ] | x")
  CI=true ensure_prereqs && cat "$CACHE_DIR/logs/apt-prereqs.log"
) >"$out" 2>&1
expect "missing prerequisite installed under CI" 0 $? "$out" "installing libseccomp-dev" "apt-get update" \
  "apt-get install -y --no-install-recommends libseccomp-dev"

# 8. debootstrap's mirror is the host apt's source for the suite, not a written-in address.
(
  apt-get() { printf '%s\n' "http://mirror.example.internal/debian/ bookworm deb" "http://mirror.example.internal/debian-security/ bookworm-security deb"; }
  echo "mirror=$(debian_mirror bookworm)"
  apt-get() { :; }
  debian_mirror trixie
) >"$out" 2>&1
expect "debootstrap mirror from apt" 1 $? "$out" "mirror=http://mirror.example.internal/debian" "no source for Debian trixie"

# 9. Another kubelet: the node image it selects, and the bad inputs it refuses.
(
  . scripts/kubelet.sh
  KUBERNETES_VERSION=v1.37.2
  printf 'kubelet' >"$CACHE_DIR/kubelet"
  echo "stock=$(selected_node_image)"
  echo "release=$(KUBELET_VERSION=v1.36.3 selected_node_image)"
  echo "own=$(KUBELET=$CACHE_DIR/kubelet selected_node_image)"
  KUBELET=$CACHE_DIR/no-such-kubelet selected_node_image
  KUBELET_VERSION=1.36 selected_node_image
  KUBELET=$CACHE_DIR/kubelet KUBELET_VERSION=v1.36.3 selected_node_image
) >"$out" 2>&1
expect "kubelet variants named, bad input refused" 1 $? "$out" "stock=podlifecycle/node:v1.37.2" \
  "release=podlifecycle/node:v1.37.2-kubelet-v1.36.3" "own=podlifecycle/node:v1.37.2-kubelet-sha256-$(printf kubelet | sha256sum | cut -c1-12)" \
  "error: KUBELET=$CACHE_DIR/no-such-kubelet: no such file" "error: KUBELET_VERSION=1.36: want a release such as v1.36.3" \
  "error: set KUBELET (a binary) or KUBELET_VERSION (a release), not both"

# 10. make test's own prerequisites (shellcheck), not root: the line to run, no apt-get.
(
  is_root() { return 1; }
  TEST_PREREQS=("shellcheck | false | x")
  ensure_test_prereqs
) >"$out" 2>&1
expect "test prerequisite missing, not root" 1 $? "$out" "error: make test needs what is not installed here: shellcheck" \
  "apt-get install -y --no-install-recommends shellcheck" "run make test as root"
grep -q "apt-get must not run" "$out" && { failures=$((failures + 1)); echo "FAIL test prerequisite missing, not root: ran apt-get"; }

# 11. As root (CI=true or not): installed, with the image build's apt-get mechanism.
(
  is_root() { return 0; }
  apt-get() { echo "apt-get $*"; if [ "$1" = install ]; then touch "$CACHE_DIR/shellcheck-installed"; fi; }
  TEST_PREREQS=("shellcheck | [ -f $CACHE_DIR/shellcheck-installed ] | x")
  ensure_test_prereqs && cat "$CACHE_DIR/logs/apt-test-prereqs.log"
) >"$out" 2>&1
expect "test prerequisite installed as root" 0 $? "$out" "installing shellcheck" "apt-get update" \
  "apt-get install -y --no-install-recommends shellcheck"

# 12. A dockerd this build starts that exits before answering: its status and its log.
printf '#!/bin/sh\necho "failed to start daemon: pid file found, ensure docker is not running" >&2\nexit 1\n' >"$fakebin/dockerd"
(
  docker_answers() { return 1; }
  start_dockerd
) >"$out" 2>&1
expect "dockerd exits" 1 $? "$out" "error: dockerd exited (status 1) before answering" \
  "dockerd log: $CACHE_DIR/logs/dockerd.log" "pid file found, ensure docker is not running"

# 13. One that never answers: given up on after DOCKERD_WAIT_SECONDS, naming its log.
printf '#!/bin/sh\necho "waiting for containerd"\nexec sleep 30\n' >"$fakebin/dockerd"
(
  docker_answers() { return 1; }
  DOCKERD_WAIT_SECONDS=1 start_dockerd
) >"$out" 2>&1
expect "dockerd never answers" 1 $? "$out" "error: dockerd (pid $(cat "$CACHE_DIR/dockerd.pid")) did not answer within 1s" \
  "dockerd log: $CACHE_DIR/logs/dockerd.log" "waiting for containerd" "kill $(cat "$CACHE_DIR/dockerd.pid")"
kill "$(cat "$CACHE_DIR/dockerd.pid")" 2>/dev/null || true   # the stand-in's sleep, if still there

echo "$passed passed, $failures failed"
[ "$failures" = 0 ]
