# Pod Lifecycle Conformance. Two commands do everything on a fresh machine:
#   make test   unit tests of the framework (no Docker, no cluster)
#   make e2e    build missing images, create the kind clusters, run every suite, report
SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c

GINKGO   := go tool ginkgo
KIND     := go tool kind
ARTIFACTS := _artifacts
CACHE    := $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/podlifecycle
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
# Gate overrides on top of every kind config: FEATURE_GATES="A=true,B=false" for every
# component, KUBELET_FEATURE_GATES for every kubelet (a profile's own kubelet flags
# still win on its node). Checked by the node image's Kubernetes before a node boots.
FEATURE_GATES ?=
KUBELET_FEATURE_GATES ?=
export FEATURE_GATES KUBELET_FEATURE_GATES
NODE_IMAGE := $(shell KUBELET='$(KUBELET)' KUBELET_VERSION='$(KUBELET_VERSION)' bash images/scripts/kubelet.sh)
export NODE_IMAGE

# K8S_VERSIONS="v1.37.2 v1.36.3": every suite of the run once per Kubernetes version,
# each on node images built for it (offline, as for the default version), with its
# results under _artifacts/<version>/. Empty: the default version only, results
# under _artifacts/.
K8S_VERSIONS ?=

GINKGO_FLAGS = -v --keep-going --timeout=80m --poll-progress-after=120s \
	--label-filter='$(LABELS)' $(if $(FOCUS),--focus='$(FOCUS)')

.PHONY: test e2e images clean $(addprefix e2e-,$(ALL_SUITES))

test:
	bash images/scripts/lint.sh
	go vet ./...
	go test ./framework/...
	cd images && go vet ./...
	bash images/scripts/test-errors.sh

# KUBECONFIG set: run against that cluster and build nothing. With K8S_VERSIONS the
# run builds each version's images itself.
images:
	@if [ -n "$${KUBECONFIG:-}" ]; then echo "KUBECONFIG is set: using that cluster, no images built."; \
		echo "Its nodes need the test images ($(CACHE)/test-images.txt; built by \`make images\` without KUBECONFIG, as $(CACHE)/test-images.tar)."; \
	elif [ -n "$(K8S_VERSIONS)" ]; then echo "K8S_VERSIONS is set: images are built per version"; \
	else bash images/build.sh; fi

# run_suites REPORT SUITE_PATHS: the suites of one run share their clusters
# (E2E_RUN_ID); the clusters the run made are deleted once every suite has passed,
# and kept (with a note on how to inspect them) when one fails. Per version of
# K8S_VERSIONS: its images, its node image (NODE_IMAGE) and server version
# (E2E_SERVER_VERSION), its artifacts directory; a failing version does not stop the
# next one.
define run_suites
	@mkdir -p $(ARTIFACTS)
	export E2E_RUN_ID=$$(date +%s%N); status=0; \
	for version in $(or $(K8S_VERSIONS),default); do \
		out=$(ARTIFACTS); \
		if [ "$$version" != default ]; then \
			out=$(ARTIFACTS)/$$version; mkdir -p $$out; echo "== Kubernetes $$version"; \
			if [ -z "$${KUBECONFIG:-}" ]; then KUBERNETES_VERSION=$$version bash images/build.sh || { status=1; continue; }; fi; \
			export E2E_SERVER_VERSION=$$version NODE_IMAGE=$$(KUBERNETES_VERSION=$$version bash images/scripts/kubelet.sh); \
		fi; \
		E2E_ARTIFACTS=$(CURDIR)/$$out $(GINKGO) $(GINKGO_FLAGS) --output-dir=$$out --json-report=$(1).json --junit-report=$(1)-junit.xml $(2) || status=1; \
	done; \
	if [ $$status = 0 ]; then go run ./framework/cluster/cmd/delete-run-clusters; fi; \
	exit $$status
endef

e2e: images
	$(call run_suites,e2e,$(addprefix ./suites/,$(SUITES)))

# e2e-<suite> runs suites/<suite> and the suites below it (e2e-restart: restart and
# restart/profiles; e2e-termination: termination and termination/gated).
$(addprefix e2e-,$(ALL_SUITES)): e2e-%: images
	$(call run_suites,$(subst /,-,$*),./suites/$*/...)

# Deletes every kind cluster the suites made (their names start with plc-) and the
# artifacts; images and build caches stay.
clean:
	@for c in $$($(KIND) get clusters 2>/dev/null | grep '^plc-' || true); do $(KIND) delete cluster --name $$c; done
	rm -rf $(ARTIFACTS)
