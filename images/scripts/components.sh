# shellcheck shell=bash
# Builds of the upstream binaries the node image needs, each from the Go module proxy
# into $BIN_DIR/<component>/. Sourced by build.sh after versions.env, steps.sh and
# gomodule.sh.

export CGO_ENABLED=0 GOFLAGS=-mod=mod
GOBUILD=(go build -trimpath)

# component_dir NAME: where NAME's binaries go; the version is part of the path so
# several Kubernetes versions can sit side by side.
component_dir() {
  case $1 in
    kubernetes) echo "$BIN_DIR/kubernetes-$KUBERNETES_VERSION" ;;
    etcd) echo "$BIN_DIR/etcd-$ETCD_VERSION" ;;
    coredns) echo "$BIN_DIR/coredns-$COREDNS_VERSION" ;;
    containerd) echo "$BIN_DIR/containerd-$CONTAINERD_VERSION" ;;
    runc) echo "$BIN_DIR/runc-$RUNC_VERSION" ;;
    crictl) echo "$BIN_DIR/crictl-$CRICTL_VERSION" ;;
    cni_plugins) echo "$BIN_DIR/cni-plugins-$CNI_PLUGINS_VERSION" ;;
    *) echo "unknown component $1" >&2; return 1 ;;
  esac
}

build_kubernetes() {
  build_kubernetes_cmds "$KUBERNETES_VERSION" "$CACHE_DIR/src/kubernetes-$KUBERNETES_VERSION" "$(component_dir kubernetes)" \
    kubelet kubeadm kubectl kube-apiserver kube-controller-manager kube-scheduler kube-proxy
}

# build_kubernetes_cmds VERSION SRC_DIR OUT_DIR CMD...: the commands k8s.io/kubernetes/cmd/CMD
# of release VERSION, through a wrapper module in SRC_DIR, into OUT_DIR.
build_kubernetes_cmds() {
  local version=$1 dir=$2 out=$3; shift 3
  local pkgs=("${@/#/k8s.io/kubernetes/cmd/}")
  mkdir -p "$dir" "$out"
  kubernetes_replaces "$version" >"$dir/go.mod.extra" || return 1
  wrapper_module "$dir" "k8s.io/kubernetes@$version" "${pkgs[@]}" || return 1
  (cd "$dir" && "${GOBUILD[@]}" -ldflags "$(kubernetes_ldflags "$version")" -o "$out/" "${pkgs[@]}")
}

# etcd's own main package sits in a module with relative replaces, so build the
# server's entry point from a two-line main instead.
build_etcd() {
  local dir="$CACHE_DIR/src/etcd-$ETCD_VERSION" out=$(component_dir etcd)
  mkdir -p "$dir/etcd" "$out"
  cat >"$dir/etcd/main.go" <<'GO'
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
GO
  wrapper_module "$dir" "go.etcd.io/etcd/server/v3@$ETCD_VERSION" || return 1
  (cd "$dir" && go mod tidy && "${GOBUILD[@]}" -ldflags "-s -w" -o "$out/etcd" ./etcd)
}

build_coredns() {
  local dir="$CACHE_DIR/src/coredns-$COREDNS_VERSION" out=$(component_dir coredns)
  mkdir -p "$out"
  wrapper_module "$dir" "github.com/coredns/coredns@$COREDNS_VERSION" github.com/coredns/coredns || return 1
  (cd "$dir" && "${GOBUILD[@]}" -ldflags "-s -w" -o "$out/coredns" github.com/coredns/coredns)
}

build_containerd() {
  local dir="$CACHE_DIR/src/containerd-$CONTAINERD_VERSION" out=$(component_dir containerd) m=github.com/containerd/containerd/v2
  mkdir -p "$out"
  wrapper_module "$dir" "$m@$CONTAINERD_VERSION" "$m/cmd/containerd" "$m/cmd/containerd-shim-runc-v2" "$m/cmd/ctr" || return 1
  (cd "$dir" && "${GOBUILD[@]}" -tags "no_btrfs no_devmapper no_zfs" \
      -ldflags "-s -w -X $m/version.Version=$CONTAINERD_VERSION" \
      -o "$out/" "$m/cmd/containerd" "$m/cmd/containerd-shim-runc-v2" "$m/cmd/ctr")
}

# runc must be built with cgo and libseccomp: kubeadm's static pods ask for the
# RuntimeDefault seccomp profile, and a seccomp-less runc fails every one of them.
build_runc() {
  local dir="$CACHE_DIR/src/runc-$RUNC_VERSION" out=$(component_dir runc)
  mkdir -p "$out"
  wrapper_module "$dir" "github.com/opencontainers/runc@$RUNC_VERSION" github.com/opencontainers/runc || return 1
  (cd "$dir" && CGO_ENABLED=1 "${GOBUILD[@]}" -tags "seccomp urfave_cli_no_docs" \
      -ldflags "-s -w -X main.version=${RUNC_VERSION#v} -extldflags -static" \
      -o "$out/runc" github.com/opencontainers/runc) || return 1
  "$out/runc" features | jq -e '.linux.seccomp.enabled == true' >/dev/null ||
    { echo "runc was built without seccomp support" >&2; return 1; }
}

build_crictl() {
  local dir="$CACHE_DIR/src/crictl-$CRICTL_VERSION" out=$(component_dir crictl)
  mkdir -p "$out"
  wrapper_module "$dir" "sigs.k8s.io/cri-tools@$CRICTL_VERSION" sigs.k8s.io/cri-tools/cmd/crictl || return 1
  (cd "$dir" && "${GOBUILD[@]}" -ldflags "-s -w -X sigs.k8s.io/cri-tools/pkg/version.Version=$CRICTL_VERSION" \
      -o "$out/crictl" sigs.k8s.io/cri-tools/cmd/crictl)
}

build_cni_plugins() {
  local dir="$CACHE_DIR/src/cni-plugins-$CNI_PLUGINS_VERSION" out=$(component_dir cni_plugins) m=github.com/containernetworking/plugins
  local plugins=("$m/plugins/main/ptp" "$m/plugins/main/loopback" "$m/plugins/ipam/host-local" "$m/plugins/meta/portmap")
  mkdir -p "$out"
  wrapper_module "$dir" "$m@$CNI_PLUGINS_VERSION" "${plugins[@]}" || return 1
  (cd "$dir" && "${GOBUILD[@]}" -ldflags "-s -w" -o "$out/" "${plugins[@]}")
}
