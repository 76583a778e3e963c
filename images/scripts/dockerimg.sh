# shellcheck shell=bash
# Docker image helpers. Every image this build makes carries the label
# podlifecycle.inputs=<key of its inputs>; an image whose label matches is not rebuilt.
# Images are built under a temporary tag and tagged with their real name only once
# complete, so an interrupted build never leaves a complete-looking tag.

INPUTS_LABEL=podlifecycle.inputs

image_key() { docker image inspect --format "{{ index .Config.Labels \"$INPUTS_LABEL\" }}" "$1" 2>/dev/null; }
image_current() { [ "$(image_key "$1")" = "$2" ]; }

# legacy_build TAG KEY CONTEXT_DIR: builds CONTEXT_DIR/Dockerfile without BuildKit
# (BuildKit wants to resolve images from a registry; the legacy builder uses local ones).
legacy_build() {
  local tag=$1 key=$2 ctx=$3 tmp="podlifecycle/partial:$RANDOM$RANDOM"
  DOCKER_BUILDKIT=0 docker build --label "$INPUTS_LABEL=$key" -t "$tmp" "$ctx" || return 1
  docker tag "$tmp" "$tag" && docker rmi "$tmp" >/dev/null
}

# import_rootfs TAG KEY TARBALL [docker import -c change...]
import_rootfs() {
  local tag=$1 key=$2 tarball=$3; shift 3
  local changes=(-c "LABEL $INPUTS_LABEL=$key") c tmp="podlifecycle/partial:$RANDOM$RANDOM"
  for c in "$@"; do changes+=(-c "$c"); done
  docker import "${changes[@]}" "$tarball" "$tmp" >/dev/null || return 1
  docker tag "$tmp" "$tag" && docker rmi "$tmp" >/dev/null
}
