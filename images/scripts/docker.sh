# shellcheck shell=bash
# Making sure a Docker daemon that can run privileged containers answers. On a fresh
# CI machine (root and CI=true, or PODLIFECYCLE_START_DOCKER=1) it installs Debian's
# docker.io and starts dockerd itself; a user's running Docker is never changed.

DOCKER_LOG="$CACHE_DIR/logs/dockerd.log"
# How long a dockerd this build starts (or stops) may take before the build gives up.
DOCKERD_WAIT_SECONDS=${DOCKERD_WAIT_SECONDS:-60}
SHIM_SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")/../docker" && pwd)/runc-without-sys-resource"
PROBE_IMAGE=podlifecycle/privileged-probe:1

is_root() { [ "$(id -u)" = 0 ]; }
# A daemon that answers, or dockerd installed so this build can start one (a docker CLI
# alone, as some images ship, is not enough).
have_docker() { command -v dockerd >/dev/null 2>&1 || docker_answers; }

may_manage_docker() {
  is_root && { [ "${CI:-}" = true ] || [ "${PODLIFECYCLE_START_DOCKER:-}" = 1 ]; }
}

# A daemon that hangs is one that does not answer: `docker info` gets 10 s.
docker_answers() { timeout 10 docker info >/dev/null 2>&1; }

# A one-file image holding a static `true`, so the probe needs no registry.
ensure_probe_image() {
  docker image inspect "$PROBE_IMAGE" >/dev/null 2>&1 && return 0
  local d; d=$(mktemp -d)
  printf 'int main(void){return 0;}\n' >"$d/true.c"
  gcc -static -O2 -o "$d/true" "$d/true.c" || { rm -rf "$d"; return 1; }
  tar -C "$d" -c true | docker import -c 'ENTRYPOINT ["/true"]' - "$PROBE_IMAGE" >/dev/null
  local rc=$?; rm -rf "$d"; return $rc
}

privileged_probe() { docker run --rm --privileged "$PROBE_IMAGE" >"$CACHE_DIR/logs/privileged-probe.log" 2>&1; }

start_dockerd() {
  local runtime_args=()
  if [ "${1:-}" = with-shim ]; then
    install -m 0755 "$SHIM_SRC" /usr/local/libexec/podlifecycle/runc-without-sys-resource 2>/dev/null ||
      { mkdir -p /usr/local/libexec/podlifecycle && install -m 0755 "$SHIM_SRC" /usr/local/libexec/podlifecycle/runc-without-sys-resource; }
    runtime_args=(--add-runtime "podlifecycle-runc=/usr/local/libexec/podlifecycle/runc-without-sys-resource"
                  --default-runtime podlifecycle-runc)
  fi
  nohup dockerd "${runtime_args[@]}" >"$DOCKER_LOG" 2>&1 &
  local pid=$!
  echo "$pid" >"$CACHE_DIR/dockerd.pid"
  wait_for_dockerd "$pid"
}

# wait_for_dockerd PID: returns once the dockerd just started as PID answers; fails,
# naming its log, when it exits first or has not answered within DOCKERD_WAIT_SECONDS.
wait_for_dockerd() {
  local pid=$1 deadline=$((SECONDS + DOCKERD_WAIT_SECONDS)) rc
  while ! docker_answers; do
    if ! kill -0 "$pid" 2>/dev/null; then
      rc=0; wait "$pid" 2>/dev/null || rc=$?
      dockerd_error "dockerd exited (status $rc) before answering." \
        "The reason is in its log (last lines below). Fix what it names (e.g. stop another dockerd" \
        "that holds /var/run/docker.sock or /var/lib/docker), then run again."
      return 1
    fi
    if [ "$SECONDS" -ge "$deadline" ]; then
      dockerd_error "dockerd (pid $pid) did not answer within ${DOCKERD_WAIT_SECONDS}s." \
        "It is still running: read its log (last lines below) for what it waits on, stop it" \
        "(kill $pid), fix that and run again; DOCKERD_WAIT_SECONDS=120 waits longer."
      return 1
    fi
    sleep 0.5
  done
}

# dockerd_error LINE...: an error about the dockerd this build manages, with its log.
dockerd_error() {
  {
    echo "error: $1"; shift
    printf '  %s\n' "$@"
    echo "  dockerd log: $DOCKER_LOG"
    tail -n 10 "$DOCKER_LOG" 2>/dev/null | sed 's/^/    | /'
  } >&2
}

# stop_our_dockerd: stops the dockerd this build started, waiting for it to exit for
# at most DOCKERD_WAIT_SECONDS.
stop_our_dockerd() {
  local pid deadline=$((SECONDS + DOCKERD_WAIT_SECONDS))
  pid=$(cat "$CACHE_DIR/dockerd.pid" 2>/dev/null) || return 0
  kill "$pid" 2>/dev/null || true   # already gone: nothing to stop
  while kill -0 "$pid" 2>/dev/null; do
    if [ "$SECONDS" -ge "$deadline" ]; then
      dockerd_error "dockerd (pid $pid) did not stop within ${DOCKERD_WAIT_SECONDS}s of SIGTERM." \
        "Read its log (last lines below), stop it (kill -9 $pid) and run again."
      return 1
    fi
    sleep 0.2
  done
}

ensure_docker() {
  # docker.io is one of the host prerequisites (scripts/prereqs.sh), installed there
  # when this build may manage the host.
  have_docker || {
    cat >&2 <<MSG
error: Docker is not installed.
  kind needs a Docker daemon that can run privileged containers. Install one
  (Debian: 'apt-get install docker.io', then start dockerd), or run as root with
  PODLIFECYCLE_START_DOCKER=1 to let this build install and start Debian's docker.io.
MSG
    return 1
  }
  local started_here=false
  if ! docker_answers; then
    if may_manage_docker; then
      echo "  starting dockerd (log: $DOCKER_LOG)"
      start_dockerd || return 1
      started_here=true
    else
      cat >&2 <<MSG
error: no Docker daemon answers ('docker info' failed).
  Start dockerd (e.g. 'systemctl start docker' or 'dockerd &'), or run as root with
  PODLIFECYCLE_START_DOCKER=1 (CI=true implies it) to let this build start one.
MSG
      return 1
    fi
  fi
  ensure_probe_image || { echo "error: cannot build the privileged-probe image" >&2; return 1; }
  privileged_probe && return 0
  if ! $started_here && ! grep -q podlifecycle-runc <(docker info --format '{{json .Runtimes}}' 2>/dev/null); then
    cat >&2 <<MSG
error: this Docker cannot run privileged containers, which kind needs for its nodes:
$(sed 's/^/    /' "$CACHE_DIR/logs/privileged-probe.log")
  If the message is "unable to apply caps", the host lacks CAP_SYS_RESOURCE; run dockerd
  with the runtime $SHIM_SRC as its default runtime
  (dockerd --add-runtime nosysres=<that file> --default-runtime nosysres), or let this
  build manage its own dockerd: stop yours and run as root with PODLIFECYCLE_START_DOCKER=1.
MSG
    return 1
  fi
  if grep -q "unable to apply caps" "$CACHE_DIR/logs/privileged-probe.log"; then
    echo "  privileged containers fail here (no CAP_SYS_RESOURCE); restarting dockerd with a runc front that drops it"
    stop_our_dockerd || return 1
    start_dockerd with-shim || return 1
    privileged_probe && return 0
  fi
  cat >&2 <<MSG
error: privileged containers cannot run here, even with the capability workaround:
$(sed 's/^/    /' "$CACHE_DIR/logs/privileged-probe.log")
  kind cannot create nodes on this machine. dockerd log: $DOCKER_LOG
MSG
  return 1
}

# kind nodes each run a kubelet and systemd, which take inotify instances; the suite's
# clusters have up to nine nodes at once, and a host's default of 128 instances per
# user runs out, leaving kubelets that fail with "inotify_init: too many open files".
INOTIFY_INSTANCES_NEEDED=1024
INOTIFY_WATCHES_NEEDED=524288
ensure_inotify() {
  local instances watches
  instances=$(cat /proc/sys/fs/inotify/max_user_instances 2>/dev/null || echo 0)
  watches=$(cat /proc/sys/fs/inotify/max_user_watches 2>/dev/null || echo 0)
  [ "$instances" -ge "$INOTIFY_INSTANCES_NEEDED" ] && [ "$watches" -ge "$INOTIFY_WATCHES_NEEDED" ] && return 0
  if may_manage_docker; then
    echo "  raising inotify limits for kind nodes (max_user_instances $instances -> $INOTIFY_INSTANCES_NEEDED)"
    sysctl -qw fs.inotify.max_user_instances=$((instances > INOTIFY_INSTANCES_NEEDED ? instances : INOTIFY_INSTANCES_NEEDED)) \
               fs.inotify.max_user_watches=$((watches > INOTIFY_WATCHES_NEEDED ? watches : INOTIFY_WATCHES_NEEDED)) && return 0
    echo "error: could not raise the inotify limits (sysctl failed)" >&2
    return 1
  fi
  cat >&2 <<MSG
warning: fs.inotify.max_user_instances is $instances and max_user_watches $watches; kind
  clusters of several nodes need more, or their kubelets fail with "too many open files".
  Raise them: sysctl -w fs.inotify.max_user_instances=$INOTIFY_INSTANCES_NEEDED fs.inotify.max_user_watches=$INOTIFY_WATCHES_NEEDED
MSG
}
