# shellcheck shell=bash
# Helpers that build upstream Go programs from the module proxy. Each component gets
# a generated wrapper module (require + `tool` lines) in the cache, so upstream
# binaries build with `go build` exactly as pinned, and the suite's own go.mod never
# depends on them.

# wrapper_module DIR MODULE@VERSION TOOL_PACKAGE...
# Creates DIR/go.mod requiring MODULE@VERSION with every TOOL_PACKAGE as a tool.
# Replaces can be appended to DIR/go.mod.extra before calling.
wrapper_module() {
  local dir=$1 modver=$2; shift 2
  mkdir -p "$dir"
  (
    cd "$dir" || exit 1
    rm -f go.mod go.sum
    go mod init "podlifecycle.local/build/$(basename "$dir")" >/dev/null 2>&1 || exit 1
    go mod edit -go=1.26 -require="$modver"
    [ -f go.mod.extra ] && cat go.mod.extra >> go.mod
    local t
    for t in "$@"; do go mod edit -tool="$t"; done
    go mod tidy
  )
}

# kubernetes_replaces VERSION: one `replace` per staging module, as k8s.io/kubernetes
# requires them at v0.0.0 and resolves them through its own vendor/ directory.
kubernetes_replaces() {
  local version=$1 gomod staging
  staging="v0.${version#v1.}"
  gomod=$(go mod download -json "k8s.io/kubernetes@$version" | jq -r .GoMod) || return 1
  [ -f "$gomod" ] || { echo "cannot read go.mod of k8s.io/kubernetes@$version" >&2; return 1; }
  grep -E '^\s*k8s\.io/[a-z0-9-]+ v0\.0\.0(\s|$)' "$gomod" | awk -v s="$staging" '{print "replace " $1 " => " $1 " " s}' | sort -u
}

# kubernetes_ldflags VERSION: the version stamps kubeadm and `kubectl version` read.
kubernetes_ldflags() {
  local version=$1 major minor
  major=${version#v}; major=${major%%.*}
  minor=${version#v*.}; minor=${minor%%.*}
  local pkg flags="-s -w"
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    flags+=" -X $pkg.gitVersion=$version -X $pkg.gitMajor=$major -X $pkg.gitMinor=$minor"
    flags+=" -X $pkg.gitTreeState=clean -X $pkg.gitCommit=0000000000000000000000000000000000000000"
    flags+=" -X $pkg.buildDate=1970-01-01T00:00:00Z"
  done
  echo "$flags"
}
