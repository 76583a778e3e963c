# Pod Lifecycle Conformance. Two commands do everything on a fresh machine:
#   make test   unit tests of the framework (no Docker, no cluster)
#   make e2e    build missing images, create the kind clusters, run every suite, report
SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c

GINKGO   := go tool ginkgo
KIND     := go tool kind
ARTIFACTS := _artifacts
# Suites that have specs, in run order; each is a directory under suites/. The cluster
# suite checks the clusters themselves (networking, DNS, logs, exec, per-node gates).
# restart/profiles checks crash-loop backoff under kubelet profiles on a cluster of its
# own (kind-configs/backoff-profiles.yaml); termination/gated shares that cluster for
# the termination statements that need cluster settings (ContainerStopSignals, a low
# terminated-pod-gc-threshold).
SUITES   := cluster lifecycle restart probes termination declaredfeatures restart/profiles termination/gated
ALL_SUITES := $(SUITES)

FOCUS ?=
# Slow statements (minutes each) run only when asked for: LABELS=Slow.
LABELS ?= !Slow
KEEP_CLUSTERS ?=
export KEEP_CLUSTERS

# A kubelet of your own (KUBELET=/path/to/kubelet) or a release's, built from the Go
# module proxy (KUBELET_VERSION=v1.36.3): the image build makes a node image with that
# kubelet (the stock one untouched) and every node whose kind config names no image
# of its own runs it. NODE_IMAGE is that node image (the stock one by default).
KUBELET ?=
override KUBELET := $(if $(KUBELET),$(abspath $(KUBELET)))
KUBELET_VERSION ?=
export KUBELET KUBELET_VERSION
NODE_IMAGE := $(shell KUBELET='$(KUBELET)' KUBELET_VERSION='$(KUBELET_VERSION)' bash images/scripts/kubelet.sh)
export NODE_IMAGE

GINKGO_FLAGS = -v --keep-going --timeout=80m --poll-progress-after=120s --output-dir=$(ARTIFACTS) \
	--label-filter='$(LABELS)' $(if $(FOCUS),--focus='$(FOCUS)')

.PHONY: test e2e images clean $(addprefix e2e-,$(ALL_SUITES))

test:
	go vet ./...
	go test ./framework/...
	cd images && go vet ./...
	bash images/scripts/test-errors.sh

# KUBECONFIG set: run against that cluster and build nothing.
images:
	@if [ -n "$${KUBECONFIG:-}" ]; then echo "KUBECONFIG is set: using that cluster, no images built"; else bash images/build.sh; fi

# The suites of one run share their clusters (E2E_RUN_ID); the clusters the run made
# are deleted once every suite has passed, and kept (with a note on how to inspect
# them) when one fails.
e2e: images
	@mkdir -p $(ARTIFACTS)
	export E2E_RUN_ID=$$(date +%s%N); \
	$(GINKGO) $(GINKGO_FLAGS) --json-report=e2e.json --junit-report=e2e-junit.xml \
		$(addprefix ./suites/,$(SUITES)); \
	go run ./framework/cluster/cmd/delete-run-clusters

# e2e-<suite> runs suites/<suite> and the suites below it (e2e-restart: restart and
# restart/profiles; e2e-termination: termination and termination/gated).
$(addprefix e2e-,$(ALL_SUITES)): e2e-%: images
	@mkdir -p $(ARTIFACTS)
	export E2E_RUN_ID=$$(date +%s%N); \
	$(GINKGO) $(GINKGO_FLAGS) --json-report=$(subst /,-,$*).json --junit-report=$(subst /,-,$*)-junit.xml ./suites/$*/...; \
	go run ./framework/cluster/cmd/delete-run-clusters

# Deletes every kind cluster the suites made (their names start with plc-) and the
# artifacts; images and build caches stay.
clean:
	@for c in $$($(KIND) get clusters 2>/dev/null | grep '^plc-' || true); do $(KIND) delete cluster --name $$c; done
	rm -rf $(ARTIFACTS)
