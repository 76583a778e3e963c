# shellcheck shell=bash
# Node images with another kubelet: the stock node image of $KUBERNETES_VERSION with
# /usr/bin/kubelet replaced, everything else (kubeadm, containerd, the preloaded
# images) unchanged. One mechanism, two uses:
#   KUBELET=/path/to/kubelet   a kubelet of your own; tag ...-kubelet-sha256-<digest>
#   KUBELET_VERSION=v1.36.3    a release's kubelet, built from the Go module proxy
# and the nodes of kind configs that name such an image (the declared-features
# suite's older worker: podlifecycle/node:v1.37.2-kubelet-v1.36.3).
#
# Sourced by build.sh; run directly, it prints the node image `make e2e` should use
# (the Makefile exports it as NODE_IMAGE): the variant when KUBELET or
# KUBELET_VERSION is set, the stock node image otherwise.

stock_node_image() { echo "podlifecycle/node:$KUBERNETES_VERSION"; }

# kubelet_digest FILE: the short sha256 that names a custom kubelet's node image.
kubelet_digest() { sha256sum "$1" | cut -c1-12; }

# selected_node_image: the node image for KUBELET / KUBELET_VERSION (not both).
selected_node_image() {
  if [ -n "${KUBELET:-}" ] && [ -n "${KUBELET_VERSION:-}" ]; then
    echo "error: set KUBELET (a binary) or KUBELET_VERSION (a release), not both" >&2; return 1
  fi
  if [ -n "${KUBELET:-}" ]; then
    [ -f "$KUBELET" ] || { echo "error: KUBELET=$KUBELET: no such file" >&2; return 1; }
    echo "$(stock_node_image)-kubelet-sha256-$(kubelet_digest "$KUBELET")"
  elif [ -n "${KUBELET_VERSION:-}" ]; then
    [[ $KUBELET_VERSION =~ ^v[0-9]+\.[0-9]+\.[0-9]+$ ]] ||
      { echo "error: KUBELET_VERSION=$KUBELET_VERSION: want a release such as v1.36.3" >&2; return 1; }
    echo "$(stock_node_image)-kubelet-$KUBELET_VERSION"
  else
    stock_node_image
  fi
}

# kind_config_kubelet_images DIR: the kubelet variants kind configs in DIR name,
# moved onto $KUBERNETES_VERSION as the kind provider moves them in a version matrix
# (KindConfig.RebaseKubeletImages); a variant whose kubelet is that version's own is
# the stock node image, built already.
kind_config_kubelet_images() {
  grep -hoE 'podlifecycle/node:v[0-9]+\.[0-9]+\.[0-9]+-kubelet-v[0-9]+\.[0-9]+\.[0-9]+' "$1"/*.yaml 2>/dev/null |
    sed -E "s|^podlifecycle/node:v[0-9.]+-kubelet-|$(stock_node_image)-kubelet-|" |
    grep -vxF "$(stock_node_image)-kubelet-$KUBERNETES_VERSION" | sort -u
}

# build_kubelet_release VERSION: only cmd/kubelet of k8s.io/kubernetes@VERSION, into
# $BIN_DIR/kubelet-VERSION/ (the release's own replaces of its staging modules).
kubelet_release_dir() { echo "$BIN_DIR/kubelet-$1"; }
build_kubelet_release() {
  build_kubernetes_cmds "$1" "$CACHE_DIR/src/kubelet-$1" "$(kubelet_release_dir "$1")" kubelet
}

# kubelet_node_image TAG KEY KUBELET_BINARY: the stock node image with that kubelet,
# labelled with its version and sha256 (the report names both per node). The kubelet
# must run in the node's userland (Debian $DEBIAN_SUITE, glibc): checked here, so a
# binary for another architecture or libc fails the build, not a node's boot.
kubelet_node_image() {
  local tag=$1 key=$2 bin=$3 ctx version sum; ctx=$(mktemp -d)
  cp "$bin" "$ctx/kubelet" && chmod 0755 "$ctx/kubelet"
  sum=$(sha256sum "$bin" | cut -d' ' -f1)
  version=$(docker run --rm -v "$ctx/kubelet:/kubelet:ro" --entrypoint /kubelet "$(stock_node_image)" --version 2>&1)
  local rc=$?
  if [ $rc != 0 ] || [[ $version != Kubernetes\ v* ]]; then
    echo "$bin does not run as a kubelet in the node image (kubelet --version: $version)"; rm -rf "$ctx"; return 1
  fi
  version=${version#Kubernetes }
  {
    echo "FROM $(stock_node_image)"
    echo "COPY kubelet /usr/bin/kubelet"
    echo "LABEL podlifecycle.kubelet.version=$version podlifecycle.kubelet.sha256=$sum"
  } >"$ctx/Dockerfile"
  legacy_build "$tag" "$key" "$ctx"; rc=$?; rm -rf "$ctx"; return $rc
}

# kubelet_variant_step TAG: builds the variant node image TAG, and the release kubelet
# it needs first; KUBELET names the binary of a ...-kubelet-sha256-* tag.
kubelet_variant_step() {
  local tag=$1 what=${1##*-kubelet-} bin
  case "$what" in
    sha256-*) bin=$KUBELET ;;
    "$KUBERNETES_VERSION") bin="$(component_dir kubernetes)/kubelet" ;;
    v*)
      bin="$(kubelet_release_dir "$what")/kubelet"
      run_step "kubelet-$what" "$(inputs_key "$what" scripts/kubelet.sh scripts/components.sh scripts/gomodule.sh)" "[ -x '$bin' ]" -- \
        build_kubelet_release "$what" || return 1 ;;
    *) echo "error: cannot tell which kubelet node image $tag wants" >&2; return 1 ;;
  esac
  local base_id; base_id=$(docker image inspect --format '{{.Id}}' "$(stock_node_image)") || return 1
  # $bin reaches build_kubelet_variant through bash's dynamic scope.
  build_kubelet_variant() { kubelet_node_image "$1" "$2" "$bin"; }
  image_step "node-${tag##*:}" "$tag" "$(inputs_key "$base_id" "$bin" scripts/kubelet.sh)" build_kubelet_variant
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -eu
  cd "$(dirname "$0")/.."
  # shellcheck source=../versions.env
  . ./versions.env
  selected_node_image
fi
