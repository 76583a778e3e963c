# shellcheck shell=bash
# Assembles a kind node image without a registry: kind's own base-image files on a
# debootstrap'd Debian, the binaries built here, and every image kubeadm and the tests
# need imported into the node's containerd and pinned. Sourced by build.sh.

# node_rootfs DIR: lays the node's filesystem out in DIR as kind's base image does.
node_rootfs() {
  local root=$1 kindfiles="$KIND_DIR/images/base/files" f
  tar -xf "$ROOTFS_NODE" -C "$root" || return 1
  install -m 0755 "$kindfiles"/usr/local/bin/* "$root/usr/local/bin/"
  mkdir -p "$root/kind/bin" "$root/kind/manifests" "$root/etc/containerd" "$root/etc/default" \
           "$root/etc/sysctl.d" "$root/etc/systemd/system/kubelet.service.d" "$root/opt/cni/bin" \
           "$root/etc/cni/net.d" "$root/etc/kubernetes/manifests"
  install -m 0644 "$kindfiles"/kind/README.txt "$root/kind/"
  install -m 0755 "$kindfiles"/kind/bin/* "$root/kind/bin/"
  install -m 0644 "$kindfiles"/etc/crictl.yaml "$root/etc/"
  install -m 0644 "$kindfiles"/etc/default/* "$root/etc/default/"
  install -m 0644 "$kindfiles"/etc/sysctl.d/* "$root/etc/sysctl.d/"
  for f in "$kindfiles"/etc/systemd/system/*; do [ -f "$f" ] && install -m 0644 "$f" "$root/etc/systemd/system/"; done
  install -m 0644 "$kindfiles"/etc/systemd/system/kubelet.service.d/* "$root/etc/systemd/system/kubelet.service.d/"

  # The same trimming of systemd as kind's base Dockerfile: a node boots only what it needs.
  find "$root/lib/systemd/system/sysinit.target.wants/" -name systemd-tmpfiles-setup.service -delete
  rm -f "$root"/lib/systemd/system/multi-user.target.wants/* "$root"/etc/systemd/system/*.wants/* \
        "$root"/lib/systemd/system/local-fs.target.wants/* "$root"/lib/systemd/system/sockets.target.wants/*udev* \
        "$root"/lib/systemd/system/sockets.target.wants/*initctl* "$root"/lib/systemd/system/basic.target.wants/*
  echo "ReadKMsg=no" >>"$root/etc/systemd/journald.conf"
  ln -sf /usr/lib/systemd/systemd "$root/sbin/init"

  local k8s containerd cni; k8s=$(component_dir kubernetes); containerd=$(component_dir containerd); cni=$(component_dir cni_plugins)
  install -m 0755 "$k8s"/kubelet "$k8s"/kubeadm "$k8s"/kubectl "$root/usr/bin/"
  install -m 0755 "$containerd"/* "$(component_dir crictl)"/crictl "$root/usr/local/bin/"
  install -m 0755 "$(component_dir runc)"/runc "$root/usr/local/sbin/runc"
  install -m 0755 "$cni"/* "$root/opt/cni/bin/"

  # kind's containerd config, with the sandbox image kubeadm expects and pod networking
  # from a template containerd fills with the podCIDR the kubelet hands it.
  sed "s|sandbox_image = .*|sandbox_image = \"$PAUSE_IMAGE\"|" "$kindfiles/etc/containerd/config.toml" >"$root/etc/containerd/config.toml"
  printf '\n[plugins."io.containerd.grpc.v1.cri".cni]\n  conf_template = "/etc/containerd/cni.template"\n' >>"$root/etc/containerd/config.toml"
  install -m 0644 node/files/cni.template "$root/etc/containerd/cni.template"
  "$containerd/ctr" oci spec \
    | jq '.hooks.createContainer[.hooks.createContainer | length] |= . + {"path": "/kind/bin/mount-product-files.sh"}' \
    | jq 'del(.process.rlimits)' >"$root/etc/containerd/cri-base.json" || return 1

  echo "$KUBERNETES_VERSION" >"$root/kind/version"
  sed "s|IMAGE_TAG|$OWN_TAG|" node/files/default-cni.yaml >"$root/kind/manifests/default-cni.yaml"
  : >"$root/etc/machine-id"
  install -m 0644 node/files/podlifecycle-fence.service "$root/etc/systemd/system/"
  chroot "$root" systemctl enable kubelet.service containerd.service undo-mount-hacks.service podlifecycle-fence.service &&
    chroot "$root" systemctl mask systemd-binfmt.service
}

# build_node_image TAG KEY IMAGE...: the work happens in assemble_node_image; this
# removes its container, intermediate images and files whatever the outcome.
build_node_image() {
  local work stage="podlifecycle/partial:node-stage-$RANDOM" box="podlifecycle-node-build-$RANDOM" rc
  work=$(mktemp -d "$CACHE_DIR/node.XXXXXX")
  assemble_node_image "$@"; rc=$?
  docker rm -f "$box" >/dev/null 2>&1
  docker rmi -f "$stage" "$stage-committed" >/dev/null 2>&1
  rm -rf "$work"
  return $rc
}

assemble_node_image() {
  local tag=$1 key=$2; shift 2
  local root="$work/rootfs"; mkdir -p "$root" "$work/preload" "$work/final"
  echo "-- rootfs"; node_rootfs "$root" || return 1
  echo "-- import"; tar -C "$root" --numeric-owner -c . | docker import -c 'ENV container=docker' - "$stage" || return 1
  rm -rf "$root"
  echo "-- save $#"; docker save -o "$work/preload/images.tar" "$@" || return 1

  # Preload: run the node's own containerd once, import the images pinned, stop it.
  echo "-- preload"
  docker run -d --privileged --name "$box" -v "$work/preload:/preload" --entrypoint sleep "$stage" infinity || return 1
  docker exec -d "$box" sh -c 'containerd >/preload/containerd.log 2>&1'
  local _; for _ in $(seq 1 60); do docker exec "$box" ctr version >/dev/null 2>&1 && break; sleep 0.5; done
  docker exec "$box" ctr -n k8s.io images import --no-unpack /preload/images.tar || { cat "$work/preload/containerd.log"; return 1; }
  local have ref missing=()
  have=$(docker exec "$box" ctr -n k8s.io images ls -q)
  for ref in "$@"; do
    ref=$(normalize_ref "$ref")
    grep -qxF "$ref" <<<"$have" || { missing+=("$ref"); continue; }
    docker exec "$box" ctr -n k8s.io images label "$ref" io.cri-containerd.pinned=pinned >/dev/null || return 1
  done
  [ ${#missing[@]} = 0 ] || { echo "images missing from the node's containerd after import: ${missing[*]}"; echo "it has: $have"; return 1; }
  docker exec "$box" sh -c 'pkill containerd; while pgrep -x containerd >/dev/null; do sleep 0.1; done; rm -rf /run/containerd /tmp/*' || return 1
  docker commit -c 'ENTRYPOINT ["/usr/local/bin/entrypoint", "/sbin/init"]' -c 'CMD []' -c 'ENV container=docker' \
    "$box" "$stage-committed" >/dev/null || return 1
  # docker commit cannot set STOPSIGNAL; a one-line legacy build can, offline. The
  # labels name the kubelet the image holds, as on a node image with another kubelet
  # (scripts/kubelet.sh): the cluster suite proves each node runs that very binary.
  local kubelet version sum; kubelet="$(component_dir kubernetes)/kubelet"
  version=$("$kubelet" --version) || return 1; version=${version#Kubernetes }
  sum=$(sha256sum "$kubelet" | cut -d' ' -f1)
  printf 'FROM %s\nSTOPSIGNAL SIGRTMIN+3\nLABEL podlifecycle.kubelet.version=%s podlifecycle.kubelet.sha256=%s\n' \
    "$stage-committed" "$version" "$sum" >"$work/final/Dockerfile"
  legacy_build "$tag" "$key" "$work/final"
}

# normalize_ref REF: the name containerd gives an image docker saved as REF.
normalize_ref() {
  local r=$1 first=${1%%/*}
  if [[ $r != */* ]]; then r="docker.io/library/$r"
  elif [[ $first != *.* && $first != *:* && $first != localhost ]]; then r="docker.io/$r"
  fi
  local last=${r##*/}
  [[ $last == *:* || $last == *@* ]] || r="$r:latest"
  echo "$r"
}
