# shellcheck shell=bash
# Host prerequisites of the offline build, declared once. Each line names the Debian
# package that provides a prerequisite and the check that proves it is there. They are
# checked before the first long step; the missing ones are installed together (one
# `apt-get update`, one `apt-get install`) when this build may manage the host (root and
# CI=true, or PODLIFECYCLE_START_DOCKER=1), otherwise the run stops with the exact
# `apt-get install` line to run. The README's "Prerequisites" section lists the same.
#
# A check is a command and its arguments, split on blanks and run as written (no
# quotes, no expansion); one that needs more is a function here or in docker.sh.
# package        | check                                           | why
HOST_PREREQS=(
  "docker.io      |have_docker                                     |kind's nodes are Docker containers"
  "debootstrap    |command -v debootstrap                          |Debian root filesystems of the node and test images"
  "debian-archive-keyring|[ -f /usr/share/keyrings/debian-archive-keyring.gpg ]|debootstrap verifies the archive with it"
  "gcc            |command -v gcc                                  |the pause binary, runc (cgo), the privileged probe"
  "libc6-dev      |have_static_libc                                |static linking of pause and runc"
  "pkg-config     |command -v pkg-config                           |runc's build finds libseccomp through it"
  "libseccomp-dev |pkg-config --exists libseccomp                  |runc with seccomp (kubeadm's pods ask for RuntimeDefault)"
  "jq             |command -v jq                                   |reading go mod and runc output"
  "procps         |command -v sysctl                               |raising inotify limits for multi-node clusters"
)
# What `make test` needs besides Go (scripts/lint.sh). Installed whenever it runs as
# root, as CI does: a lint tool, where the list above waits for CI=true or
# PODLIFECYCLE_START_DOCKER=1 because it brings a Docker daemon.
TEST_PREREQS=(
  "shellcheck     |command -v shellcheck                           |linting every shell script of the build"
)
# What `make report-screenshots` needs (scripts/report-screenshots.sh): a browser that
# renders report.html headless and reports its console, and the fonts the page names. Installed when root, as for
# make test; nothing else in the build uses it.
# shellcheck disable=SC2034 # read by scripts/report-screenshots.sh, which sources this file
SCREENSHOT_PREREQS=(
  "chromium       |command -v chromium                             |rendering report.html headless, its screenshots"
  "fonts-liberation2|test -f /usr/share/fonts/truetype/liberation2/LiberationSans-Regular.ttf|the report's font (Arial metrics, as the charts are laid out)"
  "fonts-noto-cjk |test -f /usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc|the Korean and Chinese quotes of the pages"
)
GO_MIN_MINOR=26 # Go 1.26: the module's go directive; not from apt (Debian's is older)

have_static_libc() { [ -f "$(gcc -print-file-name=libc.a 2>/dev/null)" ]; }

prereq_field() { # LINE N: field N of a prerequisite line, trimmed
  local f; f=$(cut -d'|' -f"$2" <<<"$1"); f=${f#"${f%%[![:space:]]*}"}; echo "${f%"${f##*[![:space:]]}"}"
}

# prereq_met LINE: whether the check of LINE succeeds.
prereq_met() {
  local check; read -ra check <<<"$(prereq_field "$1" 2)"
  "${check[@]}" >/dev/null 2>&1
}

# missing_prereqs LINE...: the packages of the lines whose check fails, one a line.
missing_prereqs() {
  local line
  for line in "$@"; do
    prereq_met "$line" || prereq_field "$line" 1
  done
}

# install_prereqs LOG LINE...: installs the packages of the lines whose check fails
# (one `apt-get update`, one `apt-get install`, their output in LOG), checks again.
install_prereqs() {
  local log=$1 missing; shift
  mapfile -t missing < <(missing_prereqs "$@")
  echo "  installing ${missing[*]} (log: $log)"
  { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"; } >"$log" 2>&1 ||
    { echo "error: apt-get install ${missing[*]} failed; log: $log" >&2; tail -n 5 "$log" >&2; return 1; }
  mapfile -t missing < <(missing_prereqs "$@")
  [ "${#missing[@]}" = 0 ] && return 0
  echo "error: still missing after apt-get install: ${missing[*]}" >&2
  return 1
}

check_go() {
  local v minor
  v=$(go env GOVERSION 2>/dev/null) || { echo "error: go is not on PATH; install Go 1.$GO_MIN_MINOR or later (https://go.dev/dl), then run again" >&2; return 1; }
  minor=${v#go1.}; minor=${minor%%.*}; minor=${minor%%[!0-9]*}
  [ "${minor:-0}" -ge "$GO_MIN_MINOR" ] && return 0
  echo "error: $v is too old; this build needs Go 1.$GO_MIN_MINOR or later" >&2
  return 1
}

# ensure_prereqs: installs or names every missing prerequisite; returns non-zero when
# something is still missing.
ensure_prereqs() {
  check_go || return 1
  local missing; mapfile -t missing < <(missing_prereqs "${HOST_PREREQS[@]}")
  [ "${#missing[@]}" = 0 ] && return 0
  if ! may_manage_docker; then
    cat >&2 <<MSG
error: missing host prerequisites: ${missing[*]}
  Install them, then run again:
    apt-get update && apt-get install -y ${missing[*]}
  (or run as root with PODLIFECYCLE_START_DOCKER=1, CI=true implies it, to let this build install them)
MSG
    return 1
  fi
  install_prereqs "$CACHE_DIR/logs/apt-prereqs.log" "${HOST_PREREQS[@]}"
}

# ensure_root_prereqs WHAT LOG LINE...: the prerequisites of a make target other than
# the image build (WHAT names it), installed when root, otherwise named with the line
# to run.
ensure_root_prereqs() {
  local what=$1 log=$2 missing; shift 2
  mapfile -t missing < <(missing_prereqs "$@")
  [ "${#missing[@]}" = 0 ] && return 0
  if ! is_root; then
    cat >&2 <<MSG
error: $what needs what is not installed here: ${missing[*]}
  Install it (Debian's packages), then run again:
    sudo apt-get update && sudo apt-get install -y --no-install-recommends ${missing[*]}
  (or run $what as root, as CI does, and it installs that itself)
MSG
    return 1
  fi
  install_prereqs "$log" "$@"
}

# ensure_test_prereqs: make test's (TEST_PREREQS).
ensure_test_prereqs() {
  ensure_root_prereqs "make test" "$CACHE_DIR/logs/apt-test-prereqs.log" "${TEST_PREREQS[@]}"
}

# debian_mirror SUITE: the Debian archive the host's own apt uses for SUITE (a local or
# corporate mirror works as it does for apt), from apt's index targets.
debian_mirror() {
  local suite=$1 uri
  # apt-get fills in the $(FIELD) placeholders of its format itself.
  uri=$(apt-get indextargets --format "\$(REPO_URI) \$(RELEASE) \$(TARGET_OF)" 2>/dev/null |
    awk -v s="$suite" '$2 == s && $3 == "deb" { print $1; exit }')
  [ -n "$uri" ] || {
    echo "error: the host's apt configuration has no source for Debian $suite; add one (e.g. to /etc/apt/sources.list.d/) or set DEBIAN_MIRROR" >&2
    return 1
  }
  echo "${uri%/}"
}
