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

# RERUN_FAILED=1: run only what failed in the last run, as its saved JSON report says
# (each failed spec by file and line, or a whole suite whose setup failed), with the
# LABELS and FOCUS given now. That run's JSON is kept as <name>.before-rerun.json; the
# rerun's takes its place.
RERUN_FAILED ?=
REPORT := go run ./framework/report/cmd/report
# make report reads this JSON report (make e2e-<suite> writes <suite>.json).
REPORT_JSON ?= e2e.json
# Wall time of each phase of the last make e2e: image build, each suite, the report.
PHASES = $(ARTIFACTS)/phases.txt

.PHONY: test e2e e2e-ab list images mutants report compare report-screenshots runner-image runner-job clean $(addprefix e2e-,$(ALL_SUITES))

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

# The run itself (framework/run, podlifecycle run; podlifecycle plan prints what a
# run would do): per version of K8S_VERSIONS its images, node image and artifacts
# directory; a run of every spec (LABELS !Slow or Slow, no FOCUS) first creates all
# the clusters its suites name, at once; the suites in one Ginkgo run, or, for the
# Slow set, side by side (one Ginkgo each, reports merged: their specs wait out
# documented delays of minutes on both clusters and none is Serial); the clusters the
# run made deleted once every suite passed, kept with a note on how to inspect them
# when one failed; the report written whatever the outcome; the wall time of each
# phase in $(PHASES). RERUN_FAILED=1 runs only the failed specs of the saved report
# (kept as <name>.before-rerun.json). The exit status is the suites' (the report's
# when only it failed).
# SHARD=i/n runs the i-th of n parts of the run's spec files, balanced by the spec
# times of SHARD_DURATIONS (a saved run's e2e.json; give every part the same one),
# each part making only the clusters its files need; `make report ARTIFACTS=a,b` and
# `make compare` merge the parts' artifact directories.
SHARD ?=
SHARD_DURATIONS ?=
RUN = go run ./framework/run/cmd/podlifecycle run -labels '$(LABELS)' -focus '$(FOCUS)' -procs $(PROCS) \
	$(if $(SHARD),-shard '$(SHARD)' -durations '$(SHARD_DURATIONS)') \
	-versions '$(K8S_VERSIONS)' $(if $(RERUN_FAILED),-rerun-failed) $(if $(filter 1,$(ALLOW_DISRUPTIVE)),-allow-disruptive) \
	-artifacts $(ARTIFACTS) -phases $(PHASES) -project-suites '$(ALL_SUITES)' -ginkgo '$(GINKGO)'

e2e: images
	$(RUN) -report e2e $(addprefix ./suites/,$(SUITES))

# Per statement, the specs a make e2e with these LABELS, FOCUS and SHARD would run
# (Ginkgo's dry run: no cluster, nothing built).
list:
	$(subst podlifecycle run,podlifecycle list,$(RUN)) -report e2e $(addprefix ./suites/,$(SUITES))

# e2e-<suite> runs suites/<suite> and the suites below it (e2e-restart: restart and
# restart/profiles; e2e-termination: termination and termination/gated).
$(addprefix e2e-,$(ALL_SUITES)): e2e-%: images
	$(RUN) -report $(subst /,-,$*) ./suites/$*/...

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

# A/B in one command: make e2e as it is (A), then with the B switches (B), then
# compare A → B; exits 1 when a statement got worse under B. B is any of
# KUBELET_B=/path/kubelet, KUBELET_VERSION_B=v1.36.3, FEATURE_GATES_B=…,
# KUBELET_FEATURE_GATES_B=…, K8S_VERSION_B=v1.36.3. The runs' artifacts:
# $(ARTIFACTS)/ab/a and .../b; the comparison beside them. BASE=dir takes an earlier
# run of the same code as A instead of running it again (half the time).
KUBELET_B ?=
KUBELET_VERSION_B ?=
FEATURE_GATES_B ?=
KUBELET_FEATURE_GATES_B ?=
K8S_VERSION_B ?=
AB_SWITCHES = $(if $(KUBELET_B),KUBELET='$(abspath $(KUBELET_B))') $(if $(KUBELET_VERSION_B),KUBELET_VERSION='$(KUBELET_VERSION_B)') \
	$(if $(FEATURE_GATES_B),FEATURE_GATES='$(FEATURE_GATES_B)') $(if $(KUBELET_FEATURE_GATES_B),KUBELET_FEATURE_GATES='$(KUBELET_FEATURE_GATES_B)') \
	$(if $(K8S_VERSION_B),K8S_VERSIONS='$(K8S_VERSION_B)')
e2e-ab:
	@[ -n "$(strip $(AB_SWITCHES))" ] || { echo "usage: make e2e-ab KUBELET_B=… | KUBELET_VERSION_B=… | FEATURE_GATES_B=… | KUBELET_FEATURE_GATES_B=… | K8S_VERSION_B=…" >&2; exit 2; }
	@if [ -n "$(BASE)" ]; then echo "== A: the run in $(BASE), not run again"; \
	else $(MAKE) --no-print-directory e2e ARTIFACTS=$(ARTIFACTS)/ab/a || echo "== A: some specs failed; compared as they are"; fi
	$(MAKE) --no-print-directory e2e ARTIFACTS=$(ARTIFACTS)/ab/b $(AB_SWITCHES) || echo "== B: some specs failed; compared as they are"
	go run ./framework/compare/cmd/compare -json e2e.json -out $(ARTIFACTS)/ab -base-name 'A' -head-name "B ($(strip $(AB_SWITCHES)))" $(or $(BASE),$(ARTIFACTS)/ab/a) $(ARTIFACTS)/ab/b

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
