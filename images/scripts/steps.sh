# shellcheck shell=bash
# Step runner for the offline build: every step has a key (a hash of its inputs), a
# log file and a timing line. A step whose key matches the stamp of its last success
# is skipped; a failed step names itself and its log.

: "${CACHE_DIR:=${XDG_CACHE_HOME:-$HOME/.cache}/podlifecycle}"
LOG_DIR="$CACHE_DIR/logs"
STAMP_DIR="$CACHE_DIR/stamps"
mkdir -p "$LOG_DIR" "$STAMP_DIR"

# inputs_key ARG...: a short hash of strings and of the content of any files named.
inputs_key() {
  local a
  for a in "$@"; do
    if [ -f "$a" ]; then sha256sum "$a"; else printf '%s\n' "$a"; fi
  done | sha256sum | cut -c1-16
}

now_ms() { date +%s%3N; }

# run_step NAME KEY CHECK_CMD -- CMD...
# CHECK_CMD (a string, eval'd) must succeed for a cached step to count as done, so a
# deleted binary or image is rebuilt even when the stamp is there. (A string rather
# than a command and its arguments because scripts/kubelet.sh passes one, and that
# file's text is part of the key of the release kubelet's build.)
# CMD runs with errexit off, as the build functions are written: they return their
# own failures, and run_step reports them (name, exit status, log) under set -e too.
run_step() {
  local name=$1 key=$2 check=$3; shift 3
  if [ "$1" = "--" ]; then shift; fi
  local stamp="$STAMP_DIR/$name" log="$LOG_DIR/$name.log" t0 rc=0
  if [ "$(cat "$stamp" 2>/dev/null)" = "$key" ] && eval "$check" >/dev/null 2>&1; then
    printf '  %-28s cached\n' "$name"
    return 0
  fi
  t0=$(now_ms)
  printf '  %-28s ...' "$name"
  rm -f "$stamp"
  "$@" >"$log" 2>&1 || rc=$?
  if [ "$rc" = 0 ]; then
    echo "$key" >"$stamp"
    printf '\r  %-28s built in %ss\n' "$name" "$(( ($(now_ms) - t0) / 1000 ))"
    return 0
  fi
  printf '\r  %-28s FAILED after %ss (exit %s)\n' "$name" "$(( ($(now_ms) - t0) / 1000 ))" "$rc" >&2
  echo "    log: $log (last lines below)" >&2
  tail -n 15 "$log" | sed 's/^/    | /' >&2
  return 1
}
