#!/usr/bin/env bash
# Offline build of everything the kind clusters need: the node image of Kubernetes
# $KUBERNETES_VERSION, the control-plane images kubeadm asks for, and the images the
# docs' example pods name. Sources: the Go module proxy and Debian's packages only.
# Every step is skipped when its inputs are unchanged (see scripts/steps.sh).
#
#   images/build.sh            build what is missing
#   KUBERNETES_VERSION=v1.36.3 images/build.sh
#   KUBELET=/path/to/kubelet images/build.sh     also a node image with that kubelet
#   KUBELET_VERSION=v1.36.3 images/build.sh      also one with that release's kubelet
#   TEST_IMAGES_ONLY=1 images/build.sh           only the images the specs' pods run, and
#                                                their tarball: no Kubernetes, no node image
#                                                (for a cluster of your own, make test-images)
set -euo pipefail

IMAGES_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$IMAGES_DIR" || exit 1
# shellcheck source=versions.env
. ./versions.env
. scripts/steps.sh
. scripts/gomodule.sh
. scripts/components.sh
. scripts/rootfs.sh
. scripts/dockerimg.sh
. scripts/docker.sh
. scripts/prereqs.sh
. scripts/kubelet.sh

BIN_DIR="$CACHE_DIR/bin"
# The stock node image; NODE_IMAGE (what the suites use) is never built over it.
NODE_IMAGE=$(stock_node_image)
SELECTED_NODE_IMAGE=$(selected_node_image) || exit 1
OWN_TAG=1   # tag of the suite's own images; bump when their interface changes
t_start=$(now_ms)

fail() { echo "error: $*" >&2; exit 1; }
section() { echo "== $*"; }

only_test_images() { [ "${TEST_IMAGES_ONLY:-}" = 1 ]; }

section "Host prerequisites"
ensure_prereqs || exit 1
only_test_images || KIND_DIR=$(GOFLAGS=-mod=mod go mod download -json "sigs.k8s.io/kind@$KIND_VERSION" | jq -r .Dir) ||
  fail "cannot get kind $KIND_VERSION's sources (its node image files) from the Go module proxy; try: GOFLAGS=-mod=mod go mod download -json sigs.k8s.io/kind@$KIND_VERSION"

section "Docker"
ensure_docker || exit 1
ensure_inotify || exit 1

section "Binaries (Go module proxy; cache $CACHE_DIR)"
scripts_key=$(inputs_key versions.env scripts/gomodule.sh scripts/components.sh)
components=(kubernetes etcd coredns containerd runc crictl cni_plugins)
only_test_images && components=()
for c in "${components[@]}"; do
  out=$(component_dir "$c")
  run_step "$(basename "$out")" "$scripts_key" "[ -n \"\$(ls -A '$out' 2>/dev/null)\" ]" -- "build_$c" || exit 1
done

build_pause() {
  local src; src=$(GOFLAGS=-mod=mod go mod download -json "k8s.io/kubernetes@$KUBERNETES_VERSION" | jq -r .Dir)/build/pause/linux/pause.c
  mkdir -p "$BIN_DIR/pause"
  gcc -Os -Wall -Werror -static -DVERSION="v$PAUSE_TAG" -o "$BIN_DIR/pause/pause" "$src"
}
build_own() {
  mkdir -p "$BIN_DIR/own"
  (cd "$IMAGES_DIR" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$BIN_DIR/own/" ./cmd/...)
}
mapfile -t own_sources < <(find cmd internal -type f | sort)
own_key=$(inputs_key go.mod go.sum "${own_sources[@]}")
run_step own-programs "$own_key" "[ -x '$BIN_DIR/own/podroutes' ]" -- build_own || exit 1

if ! only_test_images; then
# The image names kubeadm will ask containerd for, from the kubeadm just built.
mapfile -t KUBEADM_IMAGES < <("$(component_dir kubernetes)/kubeadm" config images list --kubernetes-version "$KUBERNETES_VERSION" 2>/dev/null)
[ "${#KUBEADM_IMAGES[@]}" -ge 6 ] || fail "kubeadm config images list printed no images; try: $(component_dir kubernetes)/kubeadm config images list --kubernetes-version $KUBERNETES_VERSION"
image_named() { local i; for i in "${KUBEADM_IMAGES[@]}"; do [[ $i == */$1:* ]] && { echo "$i"; return; }; done; fail "kubeadm lists no $1 image"; }
PAUSE_IMAGE=$(image_named pause); PAUSE_TAG=${PAUSE_IMAGE##*:}
run_step "pause-$PAUSE_TAG" "$(inputs_key "$KUBERNETES_VERSION" "$PAUSE_TAG")" "[ -x '$BIN_DIR/pause/pause' ]" -- build_pause || exit 1
fi

section "Debian root filesystems (debootstrap $DEBIAN_SUITE)"
ROOTFS_NODE="$CACHE_DIR/rootfs/node-$(inputs_key "$DEBIAN_SUITE" "$NODE_PACKAGES").tar"
ROOTFS_TEST="$CACHE_DIR/rootfs/testbase-$(inputs_key "$DEBIAN_SUITE" "$TESTBASE_PACKAGES").tar"
mkdir -p "$CACHE_DIR/rootfs"
only_test_images || run_step rootfs-node "$(basename "$ROOTFS_NODE")" "[ -f '$ROOTFS_NODE' ]" -- debootstrap_tar "$NODE_PACKAGES" "$ROOTFS_NODE" || exit 1
run_step rootfs-testbase "$(basename "$ROOTFS_TEST")" "[ -f '$ROOTFS_TEST' ]" -- debootstrap_tar "$TESTBASE_PACKAGES" "$ROOTFS_TEST" || exit 1

# image_step NAME TAG KEY FUNCTION [ARG...]: builds TAG with `FUNCTION TAG KEY ARG...`
# unless the image's label matches KEY.
image_step() {
  local name=$1 tag=$2 key=$3 fn=$4; shift 4
  run_step "image-$name" "$key" "image_current '$tag' '$key'" -- "$fn" "$tag" "$key" "$@"
}

if ! only_test_images; then
section "Component images (kubeadm's list)"
BASE_IMAGE=podlifecycle/debian-base:$DEBIAN_SUITE
base_key=$(inputs_key "$ROOTFS_NODE")
build_base() { import_rootfs "$1" "$2" "$ROOTFS_NODE" 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'; }
image_step debian-base "$BASE_IMAGE" "$base_key" build_base || exit 1

# component_image TAG KEY BINARY NAME: the image of one binary kubeadm runs.
component_image() {
  local tag=$1 key=$2 bin=$3 entry=$4 ctx; ctx=$(mktemp -d)
  cp "$bin" "$ctx/"
  local from="$BASE_IMAGE" dest=/usr/local/bin/
  if [ "$entry" = pause ]; then from=scratch; dest=/; fi
  {
    echo "FROM $from"
    echo "COPY $(basename "$bin") $dest"
    [ "$from" = scratch ] || echo 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'
    case "$entry" in
      pause) echo 'ENTRYPOINT ["/pause"]' ;;
      coredns) echo 'ENTRYPOINT ["/usr/local/bin/coredns"]' ;;
    esac
  } >"$ctx/Dockerfile"
  legacy_build "$tag" "$key" "$ctx"; local rc=$?; rm -rf "$ctx"; return $rc
}
for ref in "${KUBEADM_IMAGES[@]}"; do
  name=${ref##*/}; name=${name%%:*}
  case "$name" in
    pause) bin="$BIN_DIR/pause/pause" ;;
    etcd) bin="$(component_dir etcd)/etcd" ;;
    coredns) bin="$(component_dir coredns)/coredns" ;;
    kube-*) bin="$(component_dir kubernetes)/$name" ;;
    *) fail "kubeadm lists an image this build does not know how to make: $ref" ;;
  esac
  key=$(inputs_key "$base_key" "$bin" "$name" scripts/dockerimg.sh)
  image_step "$name-${ref##*:}" "$ref" "$key" component_image "$bin" "$name" || exit 1
done
fi

section "Test images (the docs' example pods, and the suite's own)"
TEST_IMAGES=()
busybox_image() {
  local ctx; ctx=$(mktemp -d)
  tar -xf "$ROOTFS_TEST" -C "$ctx" ./bin/busybox 2>/dev/null || tar -xf "$ROOTFS_TEST" -C "$ctx" ./usr/bin/busybox
  find "$ctx" -name busybox -type f -exec mv {} "$ctx/busybox" \;
  # The layout of the upstream busybox image: applets in /bin, a world-writable /tmp,
  # root and nobody in /etc/passwd.
  printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/home:/bin/false\n' >"$ctx/passwd"
  printf 'root:x:0:\nnobody:x:65534:\n' >"$ctx/group"
  cat >"$ctx/Dockerfile" <<'DOCKERFILE'
FROM scratch
COPY busybox /bin/busybox
COPY passwd group /etc/
RUN ["/bin/busybox", "sh", "-c", "/bin/busybox --install -s /bin && mkdir -p /tmp /var /home /root /usr && chmod 1777 /tmp"]
ENV PATH=/usr/sbin:/usr/bin:/sbin:/bin
CMD ["sh"]
DOCKERFILE
  legacy_build "$1" "$2" "$ctx"; local rc=$?; rm -rf "$ctx"; return $rc
}
for ref in busybox:1.28 registry.k8s.io/busybox:1.27.2; do
  image_step "${ref//[\/:]/-}" "$ref" "$(inputs_key "$ROOTFS_TEST" busybox-v2)" busybox_image || exit 1
  TEST_IMAGES+=("$ref")
done
# nginx:1.14.2 from Debian's nginx-light, started as the upstream image starts it (its
# STOPSIGNAL was SIGTERM, the default).
nginx_image() {
  import_rootfs "$1" "$2" "$ROOTFS_TEST" 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    'EXPOSE 80' 'CMD ["nginx", "-g", "daemon off;"]'
}
# TM-6: a busybox whose image names SIGUSR1 as its STOPSIGNAL, so a stop that sends
# the image's signal instead of TERM is seen by the trap that fires.
stopsignal_image() {
  local ctx; ctx=$(mktemp -d)
  printf 'FROM busybox:1.28\nSTOPSIGNAL SIGUSR1\n' >"$ctx/Dockerfile"
  legacy_build "$1" "$2" "$ctx"; local rc=$?; rm -rf "$ctx"; return $rc
}
image_step busybox-stopsignal-usr1 "podlifecycle/busybox-stopsignal-usr1:$OWN_TAG" \
  "$(inputs_key "$(image_key busybox:1.28)" stopsignal-usr1-v1)" stopsignal_image || exit 1
TEST_IMAGES+=("podlifecycle/busybox-stopsignal-usr1:$OWN_TAG")
image_step nginx "nginx:1.14.2" "$(inputs_key "$ROOTFS_TEST" nginx-v1)" nginx_image || exit 1
TEST_IMAGES+=("nginx:1.14.2")
# own_image TAG KEY BINARY DEST [FROM]: one of the suite's Go programs in an image.
own_image() {
  local tag=$1 key=$2 bin=$3 dest=$4 from=${5:-scratch} ctx; ctx=$(mktemp -d)
  cp "$BIN_DIR/own/$bin" "$ctx/$bin"
  printf 'FROM %s\nCOPY %s %s\nENTRYPOINT ["%s"]\n' "$from" "$bin" "$dest" "$dest" >"$ctx/Dockerfile"
  legacy_build "$tag" "$key" "$ctx"; local rc=$?; rm -rf "$ctx"; return $rc
}
own_step() { # NAME TAG BINARY DEST [FROM]
  local name=$1 tag=$2 bin=$3 dest=$4 from=${5:-scratch}
  image_step "$name" "$tag" "$(inputs_key "$BIN_DIR/own/$bin" "$dest" "$from" "$(image_key "$from")")" \
    own_image "$bin" "$dest" "$from" || exit 1
  TEST_IMAGES+=("$tag")
}
own_step fluent-bit fluent/fluent-bit:1.8 logger /fluent-bit/bin/fluent-bit
own_step liveness k8s.gcr.io/liveness liveness /server
own_step probeserver "podlifecycle/probeserver:$OWN_TAG" probeserver /probeserver busybox:1.28
own_step draplugin "podlifecycle/draplugin:$OWN_TAG" draplugin /draplugin
own_step podroutes "podlifecycle/podroutes:$OWN_TAG" podroutes /podroutes
# podroutes is the cluster's network, not a test image, but is preloaded the same way.

if ! only_test_images; then
section "Node image $NODE_IMAGE"
. scripts/node.sh
preload=("${KUBEADM_IMAGES[@]}" "${TEST_IMAGES[@]}")
preload_ids=$(for i in "${preload[@]}"; do echo "$i $(docker image inspect --format '{{.Id}}' "$i")"; done)
mapfile -t node_files < <(find node -type f | sort)
mapfile -t node_binaries < <(for c in kubernetes containerd runc crictl cni_plugins; do find "$(component_dir $c)" -type f; done | sort)
node_key=$(inputs_key "$ROOTFS_NODE" "$preload_ids" scripts/node.sh "${node_files[@]}" "${node_binaries[@]}" \
  "$KIND_VERSION" "$KUBERNETES_VERSION")
build_node() { build_node_image "$1" "$2" "${preload[@]}"; }
image_step "node-$KUBERNETES_VERSION" "$NODE_IMAGE" "$node_key" build_node || exit 1

# Node images with another kubelet: the one KUBELET or KUBELET_VERSION selects, and
# those the kind configs name for single nodes.
mapfile -t KUBELET_VARIANTS < <({ [ "$SELECTED_NODE_IMAGE" = "$NODE_IMAGE" ] || echo "$SELECTED_NODE_IMAGE"
  kind_config_kubelet_images "$IMAGES_DIR/../kind-configs"; } | sort -u)
if [ ${#KUBELET_VARIANTS[@]} -gt 0 ]; then
  section "Node images with another kubelet"
  for tag in "${KUBELET_VARIANTS[@]}"; do kubelet_variant_step "$tag" || exit 1; done
fi
fi

# The images the specs' pods run, for a cluster of your own (KUBECONFIG=… make e2e):
# the list, and one tarball to load into every node's runtime.
section "Test images for a cluster of your own"
mapfile -t POD_IMAGES < <(printf '%s\n' "${TEST_IMAGES[@]}" | grep -v podroutes)
printf '%s\n' "${POD_IMAGES[@]}" >"$CACHE_DIR/test-images.txt"
pod_image_ids=$(for i in "${POD_IMAGES[@]}"; do docker image inspect --format '{{.Id}}' "$i"; done)
run_step test-images-tar "$(inputs_key "$pod_image_ids")" "[ -f '$CACHE_DIR/test-images.tar' ]" -- \
  docker save -o "$CACHE_DIR/test-images.tar" "${POD_IMAGES[@]}" || exit 1
echo "  ${POD_IMAGES[*]}"
echo "  in $CACHE_DIR/test-images.tar; on each node of your cluster: ctr -n k8s.io images import test-images.tar"

if only_test_images; then
  echo "== test images ready in $(( ($(now_ms) - t_start) / 1000 ))s (logs: $LOG_DIR)"
else
  echo "== images ready in $(( ($(now_ms) - t_start) / 1000 ))s: node image $SELECTED_NODE_IMAGE (logs: $LOG_DIR)"
fi
