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
# terminated-pod-gc-threshold); lifecycle/nodeloss (Slow only) loses two workers of it
# that only it uses, and lifecycle/pressure drives a third into memory pressure.
SUITES   := cluster lifecycle restart probes termination declaredfeatures restart/profiles termination/gated lifecycle/nodeloss lifecycle/pressure
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

# No -v: a passing spec is one mark at the end of the progress line the suite prints
# as it ends (framework/suite), and a failed one is printed in full, with its pods'
# timelines and kubelet log lines (report entries shown on failure). A spec still
# running after 120 s gets Ginkgo's progress report, saying where it waits.
# Specs run on PROCS Ginkgo processes: most wait for kubelet timers, and the few whose
# timing the load could disturb are Serial (suite.TimedWithin, with the measurement it
# rests on). PROCS=1 runs one spec at a time.
PROCS ?= 4
# On a cluster the suite did not make (KUBECONFIG), the Disruptive specs (they taint,
# preempt, restart kubelets, use crictl or a node shell, or create cluster-scoped
# objects: framework/suite/disruptive.go) are left out unless ALLOW_DISRUPTIVE=1; the
# report names the statements that leaves unchecked.
ALLOW_DISRUPTIVE ?=
export ALLOW_DISRUPTIVE
RUN_LABELS = $(if $(KUBECONFIG),$(if $(filter 1,$(ALLOW_DISRUPTIVE)),$(LABELS),($(LABELS)) && !Disruptive),$(LABELS))
# Ginkgo's colour codes only on a terminal: a CI log gets plain text.
GINKGO_FLAGS = --keep-going --timeout=80m --poll-progress-after=120s --procs=$(PROCS) \
	--label-filter='$(RUN_LABELS)' $(if $(FOCUS),--focus='$(FOCUS)') $$([ -t 1 ] || echo --no-color)

# RERUN_FAILED=1: run only what failed in the last run, as its saved JSON report says
# (the report command's -rerun-failed: each failed spec by file and line, or a whole
# suite whose setup failed), with the LABELS and FOCUS given now. That run's JSON is
# kept as <name>.before-rerun.json; the rerun's takes its place.
RERUN_FAILED ?=
REPORT := go run ./framework/report/cmd/report
# make report reads this JSON report (make e2e-<suite> writes <suite>.json).
REPORT_JSON ?= e2e.json
# Wall time of each phase of the last make e2e: image build, each suite, the report.
PHASES = $(ARTIFACTS)/phases.txt

.PHONY: test e2e images mutants report compare report-screenshots runner-image runner-job clean $(addprefix e2e-,$(ALL_SUITES))

# go vet ./... runs every vet analyzer over every package and its tests; go test's own
# vet would run a subset of them again, and with its different analyzer set compute
# the vet facts of every dependency again (20 s of a cold make test), so it is off.
test:
	bash images/scripts/lint.sh
	go vet ./...
	go test -vet=off ./framework/...
	cd images && go vet ./...
	bash images/scripts/test-errors.sh
	bash images/scripts/test-fresh-clone.sh

# KUBECONFIG set: run against that cluster and build nothing. With K8S_VERSIONS the
# run builds each version's images itself.
images:
	@mkdir -p $(ARTIFACTS); start=$$(date +%s); \
	if [ -n "$${KUBECONFIG:-}" ] && [ -n "$(K8S_VERSIONS)" ]; then \
		echo "error: K8S_VERSIONS=\"$(K8S_VERSIONS)\" is set, but KUBECONFIG names a cluster of yours, which has one version: K8S_VERSIONS makes a kind cluster per version; unset one of the two" >&2; exit 2; fi; \
	if [ -n "$${KUBECONFIG:-}" ]; then echo "KUBECONFIG is set: using that cluster, no images built."; \
		echo "Its nodes need the test images ($(CACHE)/test-images.txt; built by \`make images\` without KUBECONFIG, as $(CACHE)/test-images.tar)."; \
	elif [ -n "$(K8S_VERSIONS)" ]; then echo "K8S_VERSIONS is set: images are built per version"; \
	else bash images/build.sh; fi; \
	secs=$$(( $$(date +%s) - start )); printf '%-40s %4dm%02ds\n' images $$((secs / 60)) $$((secs % 60)) >$(PHASES)

# run_suites REPORT SUITE_PATHS: the suites of one run share their clusters
# (E2E_RUN_ID); the clusters the run made are deleted once every suite has passed,
# and kept (with a note on how to inspect them) when one fails. Per version of
# K8S_VERSIONS: its images, its node image (NODE_IMAGE) and server version
# (E2E_SERVER_VERSION), its artifacts directory; a failing version does not stop the
# next one. The report is written whatever the suites' outcome, and the exit status
# is theirs (or the report's failure after green suites). With RERUN_FAILED, the
# specs to run are the failed ones of REPORT.json, by --focus-file (a whole suite, by
# a regular expression for the files directly in its directory), all in one Ginkgo
# run so that REPORT.json holds them all. A run of every spec (LABELS !Slow or Slow,
# no FOCUS) first creates all the clusters its suites name, at once
# (create-run-clusters), instead of one in the middle of the run.
# The Slow set (LABELS=Slow) then runs its suites side by side, one Ginkgo each
# (run-side-by-side, reports merged into REPORT.json): its specs wait out documented
# delays of minutes on both clusters (RS-7's 610 s run on the default one, the
# profiles' 60–100 s caps on the other) and none is Serial (framework/suite fails a
# Serial spec run side by side), so the run lasts about its longest spec instead of
# the sum of its suites'. Every other run keeps Ginkgo's one suite after another:
# its Serial specs need the machine to themselves.
define run_suites
	@mkdir -p $(ARTIFACTS)
	@export E2E_RUN_ID=$$(date +%s%N); status=0; \
	phase() { printf '%-40s %4dm%02ds\n' "$$1" $$(($$2 / 60)) $$(($$2 % 60)) >>$(PHASES); }; \
	kind_configs() { for d in "$$@"; do case $$d in */...) grep -rhoE 'kind-configs/[a-z0-9-]+\.yaml' --include='*_test.go' "$${d%/...}";; \
		*) grep -hoE 'kind-configs/[a-z0-9-]+\.yaml' "$$d"/*_test.go;; esac; done | sort -u; }; \
	for version in $(or $(K8S_VERSIONS),default); do \
		out=$(ARTIFACTS); suffix=; \
		if [ "$$version" != default ]; then \
			out=$(ARTIFACTS)/$$version; suffix=" $$version"; mkdir -p $$out; echo "== Kubernetes $$version"; \
			t=$$(date +%s); \
			if [ -z "$${KUBECONFIG:-}" ]; then KUBERNETES_VERSION=$$version bash images/build.sh || { status=1; continue; }; fi; \
			phase "images$$suffix" $$(( $$(date +%s) - t )); \
			export E2E_SERVER_VERSION=$$version NODE_IMAGE=$$(KUBERNETES_VERSION=$$version bash images/scripts/kubelet.sh); \
		fi; \
		suites=($(2)); focus=(); \
		if [ -n "$(RERUN_FAILED)" ]; then \
			[ -f $$out/$(1).json ] || { echo "RERUN_FAILED: no $$out/$(1).json of an earlier run"; status=1; continue; }; \
			saved=$$(mktemp -d); ln -s "$$(realpath $$out/$(1).json)" $$saved/; \
			rerun=$$($(REPORT) -artifacts $$saved -json $(1).json -rerun-failed) || { rm -rf $$saved; status=1; continue; }; \
			rm -rf $$saved; suites=(); \
			while read -r suite flags; do \
				[ -n "$$suite" ] || continue; suites+=("$$suite"); \
				if [ -n "$$flags" ]; then focus+=($$flags); else focus+=("--focus-file=$${suite#./}/[^/]*$$"); fi; \
			done <<<"$$rerun"; \
			if [ $${#suites[@]} = 0 ]; then echo "RERUN_FAILED: nothing failed in $$out/$(1).json; nothing to run"; continue; fi; \
			echo "RERUN_FAILED: running again what failed in $$out/$(1).json (kept as $(1).before-rerun.json):"; sed 's/^/  /' <<<"$$rerun"; \
			cp $$out/$(1).json $$out/$(1).before-rerun.json; \
		fi; \
		ahead=; \
		if [ -z "$${KUBECONFIG:-}" ] && [ -z "$(RERUN_FAILED)$(FOCUS)" ] && { [ '$(LABELS)' = '!Slow' ] || [ '$(LABELS)' = Slow ]; }; then \
			t=$$(date +%s); \
			go run ./framework/cluster/cmd/create-run-clusters $$(kind_configs "$${suites[@]}") || { status=1; continue; }; \
			phase "clusters$$suffix" $$(( $$(date +%s) - t )); ahead=1; \
		fi; \
		t=$$(date +%s); \
		if [ -n "$$ahead" ] && [ '$(LABELS)' = Slow ]; then \
			E2E_ARTIFACTS=$(CURDIR)/$$out go run ./framework/sidebyside/cmd/run-side-by-side -ginkgo '$(GINKGO)' \
				-output-dir $$out -json-report $(1).json -junit-report $(1)-junit.xml -- $(GINKGO_FLAGS) "$${suites[@]}" || status=1; \
			phase "suites side by side$$suffix" $$(( $$(date +%s) - t )); \
		else \
			E2E_ARTIFACTS=$(CURDIR)/$$out $(GINKGO) $(GINKGO_FLAGS) "$${focus[@]}" --output-dir=$$out --json-report=$(1).json --junit-report=$(1)-junit.xml "$${suites[@]}" || status=1; \
			phase "suites$$suffix" $$(( $$(date +%s) - t )); \
		fi; \
		if command -v jq >/dev/null && [ -f $$out/$(1).json ]; then \
			jq -r '.[] | "\(.SuitePath | sub(".*/suites/"; "suites/")) \(.RunTime / 1e9 | floor)"' $$out/$(1).json | \
				while read -r suite secs; do phase "  $$suite" "$$secs"; done || true; \
		fi; \
	done; \
	if [ $$status = 0 ] && [ -z "$${KUBECONFIG:-}" ]; then go run ./framework/cluster/cmd/delete-run-clusters; fi; \
	t=$$(date +%s); \
	$(REPORT) -artifacts $(ARTIFACTS) -json $(1).json -suites '$(ALL_SUITES)' || { echo "the report could not be written (make report writes it again)"; [ $$status != 0 ] || status=1; }; \
	phase report $$(( $$(date +%s) - t )); \
	echo "== wall time per phase ($(PHASES))"; cat $(PHASES); \
	exit $$status
endef

e2e: images
	$(call run_suites,e2e,$(addprefix ./suites/,$(SUITES)))

# e2e-<suite> runs suites/<suite> and the suites below it (e2e-restart: restart and
# restart/profiles; e2e-termination: termination and termination/gated).
$(addprefix e2e-,$(ALL_SUITES)): e2e-%: images
	$(call run_suites,$(subst /,-,$*),./suites/$*/...)

# The kill matrix (not part of make e2e): each kubelet patch of images/mutants/ built
# from the v1.37.2 source (images/mutants.sh), put into the workers of the kept kind
# clusters, and the specs of the statements it names run against it, after the stock
# kubelet through the same machinery (framework/mutants/cmd/mutants). ONLY=12,13
# runs those mutants again and keeps the other rows. The matrix:
# $(ARTIFACTS)/mutants/kill-matrix.{json,md}, and in report.html.
ONLY ?=
mutants: images
	go run ./framework/mutants/cmd/mutants -out $(ARTIFACTS)/mutants -suites '$(filter-out lifecycle/nodeloss,$(SUITES))' $(if $(ONLY),-only '$(ONLY)' -reuse-stock)

# Writes report.html and report.md again from the saved artifacts of the last run.
report:
	$(REPORT) -artifacts $(ARTIFACTS) -json $(REPORT_JSON) -suites '$(ALL_SUITES)'

# What changed between two runs (make compare BASE=_artifacts.stock HEAD=_artifacts):
# per statement the verdicts and the transition, per timing both values against the
# tolerance, the cluster facts that differ; compare.md and compare.html in HEAD's
# directory. Exits 1 when a statement got worse. BASE or HEAD may list the
# directories of a run in parts, comma-separated.
BASE ?=
HEAD ?=
compare:
	@[ -n '$(BASE)' ] && [ -n '$(HEAD)' ] || { echo "usage: make compare BASE=<artifacts dir> HEAD=<artifacts dir>" >&2; exit 2; }
	go run ./framework/compare/cmd/compare -json $(REPORT_JSON) '$(BASE)' '$(HEAD)'

# Renders report.html in headless Chromium (installed from Debian when missing and
# root) and saves screenshots of the matrix and of a delay chart under ARTIFACTS;
# fails if the page logs to the browser console.
report-screenshots:
	bash images/scripts/report-screenshots.sh $(ARTIFACTS)

# The suites inside the cluster under test. runner-image builds podlifecycle/runner:1
# (offline: the compiled suites, ginkgo and the report on the busybox image `make
# images` builds); runner-job runs it as a Job in the cluster KUBECONFIG names, with
# a service account of the narrowest RBAC the non-Disruptive specs need
# (images/runner/job.yaml), and copies the artifacts to $(ARTIFACTS)/runner. A kind
# cluster of this machine gets the image loaded; any other pulls RUNNER_IMAGE.
runner-image:
	bash images/build.sh
	bash images/scripts/runner.sh '$(SUITES)'

runner-job:
	bash images/scripts/runner-job.sh $(ARTIFACTS)/runner

# Deletes every kind cluster the suites made (their names start with plc-) and the
# artifacts; images and build caches stay.
clean:
	@for c in $$($(KIND) get clusters 2>/dev/null | grep '^plc-' || true); do $(KIND) delete cluster --name $$c; done
	rm -rf $(ARTIFACTS)
