# Pod Lifecycle Conformance. Two commands do everything on a fresh machine:
#   make test   unit tests of the framework (no Docker, no cluster)
#   make e2e    build missing images, create the kind clusters, run every suite, report
SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c

GINKGO   := go tool ginkgo
KIND     := go tool kind
ARTIFACTS := _artifacts
# Suites that have specs; each is a directory under suites/.
SUITES   := lifecycle

FOCUS ?=
# Slow statements (minutes each) run only when asked for: LABELS=Slow.
LABELS ?= !Slow
KEEP_CLUSTERS ?=
export KEEP_CLUSTERS

GINKGO_FLAGS = -v --timeout=80m --poll-progress-after=120s --output-dir=$(ARTIFACTS) \
	--label-filter='$(LABELS)' $(if $(FOCUS),--focus='$(FOCUS)')

.PHONY: test e2e images clean $(addprefix e2e-,$(SUITES))

test:
	go vet ./...
	go test ./framework/...
	cd images && go vet ./...

# KUBECONFIG set: run against that cluster and build nothing.
images:
	@if [ -n "$${KUBECONFIG:-}" ]; then echo "KUBECONFIG is set: using that cluster, no images built"; else bash images/build.sh; fi

e2e: images
	@mkdir -p $(ARTIFACTS)
	$(GINKGO) $(GINKGO_FLAGS) --json-report=e2e.json --junit-report=e2e-junit.xml \
		$(addprefix ./suites/,$(SUITES))

$(addprefix e2e-,$(SUITES)): e2e-%: images
	@mkdir -p $(ARTIFACTS)
	$(GINKGO) $(GINKGO_FLAGS) --json-report=$*.json --junit-report=$*-junit.xml ./suites/$*

# Deletes every kind cluster the suites made (their names start with plc-) and the
# artifacts; images and build caches stay.
clean:
	@for c in $$($(KIND) get clusters 2>/dev/null | grep '^plc-' || true); do $(KIND) delete cluster --name $$c; done
	rm -rf $(ARTIFACTS)
