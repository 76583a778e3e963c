# Pod Lifecycle Conformance. Two commands do everything on a fresh machine:
#   make test   unit tests of the framework (no Docker, no cluster)
#   make e2e    check every switch, build missing images, create the kind clusters,
#               run every suite, report
# Every recipe calls one binary, podlifecycle (cmd/podlifecycle): `make -n e2e` prints
# the command a CI job can run itself to keep its exit status (0 green, 1 a spec
# failed, 2 the run could not be made), which make turns into 2 for any failure.
SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c

KIND := go tool kind
PL   := .bin/podlifecycle
ARTIFACTS ?= _artifacts
# Suites that have specs, in run order; each is a directory under suites/. The cluster
# suite checks the clusters themselves (networking, DNS, logs, exec, per-node gates).
# restart/profiles checks crash-loop backoff under kubelet profiles on a cluster of its
# own (kind-configs/backoff-profiles.yaml); termination/gated shares that cluster for
# the termination statements that need cluster settings (ContainerStopSignals, a low
# terminated-pod-gc-threshold), and lifecycle/pressure drains a worker of it (kubectl
# drain) and drives it into memory pressure; lifecycle/nodeloss (Slow only) loses the
# two workers of a cluster of its own (kind-configs/node-loss.yaml), made only when its
# specs run.
ALL_SUITES := cluster lifecycle restart probes termination declaredfeatures restart/profiles termination/gated lifecycle/pressure lifecycle/nodeloss
# SUITES='restart probes' runs some of them; the report still knows every suite of the
# project, so that the others' statements read "not in this run", not "no spec".
SUITES   := $(ALL_SUITES)
# How make e2e runs them: in this order, one Ginkgo per cluster (the default cluster's
# suites, then the backoff-profiles cluster's), each suite making its cluster as it
# starts and each cluster deleted once its suites have passed, so that neither
# cluster's suites run beside the other's idle nodes (on a 2-core machine under nested
# virtualization, 15 idle kind nodes alone took half of the CPU, and three streams side
# by side failed 28 to 113 specs on pod starts and timings; one stream with both
# clusters up, 8; one cluster at a time, 1: docs/measurements.md, 2026-12-04).
# STREAMS runs them side by side instead, both clusters made ahead, on a machine with
# room for it: three Ginkgo runs at once, each over the suites of its stream in turn,
# for example
#   make e2e STREAMS='cluster restart declaredfeatures termination | lifecycle probes | restart/profiles termination/gated lifecycle/pressure lifecycle/nodeloss'
# (13-15 minutes warm on 2026-12-03's machine); the specs labelled Quiet then run after
# the streams, alone.
STREAMS  :=

# The switches: each Makefile variable is the flag of the same name of podlifecycle
# (framework/config holds them, their defaults and their checks; the README's switch
# reference is written from it). A variable is passed only when given, on make's
# command line or in the environment; KUBECONFIG only from the command line, so that
# an exported one never turns make e2e onto a cluster of yours.
SWITCHES := LABELS:labels FOCUS:focus PROCS:procs K8S_VERSIONS:k8s-versions KUBELET:kubelet \
	KUBELET_VERSION:kubelet-version FEATURE_GATES:feature-gates KUBELET_FEATURE_GATES:kubelet-feature-gates \
	ALLOW_DISRUPTIVE:allow-disruptive RERUN_FAILED:rerun-failed KEEP_CLUSTERS:keep-clusters \
	SHARD:shard SHARD_DURATIONS:shard-durations
given   = $(filter-out undefined default,$(origin $(1)))
flag_of = $(if $(call given,$(1)),-$(2)='$($(1))')
SWITCH_FLAGS = $(foreach s,$(SWITCHES),$(call flag_of,$(word 1,$(subst :, ,$(s))),$(word 2,$(subst :, ,$(s))))) \
	-artifacts='$(ARTIFACTS)' $(if $(filter command line override,$(origin KUBECONFIG)),-kubeconfig='$(KUBECONFIG)')
RUN_FLAGS = $(SWITCH_FLAGS) -project-suites '$(ALL_SUITES)' -streams '$(STREAMS)'

.PHONY: test e2e e2e-ab preflight plan list images test-images mutants report compare report-screenshots runner-image runner-job clean FORCE $(addprefix e2e-,$(ALL_SUITES))

# Built at every call (go build's cache: a second when nothing changed), outside what
# git tracks.
$(PL): FORCE
	@go build -o $@ ./cmd/podlifecycle

# go vet ./... runs every vet analyzer over every package and its tests; go test's own
# vet would run a subset of them again, and with its different analyzer set compute
# the vet facts of every dependency again (20 s of a cold make test), so it is off.
test:
	bash images/scripts/lint.sh
	go tool actionlint .github/workflows/*.yml
	go vet ./...
	go test -vet=off ./framework/... ./cmd/...
	cd images && go vet ./...
	bash images/scripts/test-errors.sh
	bash images/scripts/test-fresh-clone.sh

# The run (podlifecycle run, framework/run): the switches checked first (preflight:
# seconds), then per version of K8S_VERSIONS its images (skipped when cached), the kind
# clusters of the run made at once, the suites in one Ginkgo run (the Slow set side by
# side), the clusters deleted once every suite passed (kept, with how to inspect them,
# when one failed), the report, and the wall time of each phase in
# $(ARTIFACTS)/phases.txt. The previous run's artifacts move to $(ARTIFACTS).previous;
# run.json records the run's switches, commit and exit status.
e2e: $(PL)
	$(PL) run $(RUN_FLAGS) -report e2e $(addprefix ./suites/,$(SUITES))

# Only the checks e2e makes before it builds anything.
preflight: $(PL)
	$(PL) preflight $(RUN_FLAGS) $(addprefix ./suites/,$(SUITES))

# What a make e2e with these switches would do, as JSON; nothing is run.
plan: $(PL)
	$(PL) plan $(RUN_FLAGS) -report e2e $(addprefix ./suites/,$(SUITES))

# Per statement, the specs a make e2e with these LABELS, FOCUS and SHARD would run
# (Ginkgo's dry run: no cluster, nothing built).
list: $(PL)
	$(PL) list $(RUN_FLAGS) -report e2e $(addprefix ./suites/,$(SUITES))

# e2e-<suite> runs suites/<suite> and the suites below it (e2e-restart: restart and
# restart/profiles; e2e-termination: termination and termination/gated).
$(addprefix e2e-,$(ALL_SUITES)): e2e-%: $(PL)
	$(PL) run $(RUN_FLAGS) -report $(subst /,-,$*) ./suites/$*/...

# The images alone (what make e2e builds first), then the test images' list and
# tarball, for the nodes of a cluster of yours: OUT=dir copies them there.
OUT ?=
images: $(PL)
	KUBELET='$(KUBELET)' KUBELET_VERSION='$(KUBELET_VERSION)' $(PL) images $(if $(OUT),-out '$(OUT)')

# Only the images the specs' pods run, without Kubernetes (minutes, not the image
# build's 20): their list and tarball for the nodes of a cluster of yours, in OUT.
test-images: $(PL)
	TEST_IMAGES_ONLY=1 $(PL) images $(if $(OUT),-out '$(OUT)')

# The kill matrix (not part of make e2e): each kubelet patch of images/mutants/ built
# from the v1.37.2 source (images/mutants.sh), put into the workers of the kind
# clusters (one at a time, as make e2e runs them), and the specs of the statements it
# names run against it, after the stock kubelet through the same machinery
# (framework/mutants). ONLY=12,13 runs those
# mutants again and keeps the other rows. The matrix:
# $(ARTIFACTS)/mutants/kill-matrix.{json,md}, and in report.html; a full run (no ONLY)
# also writes docs/kill-matrix.md, the one the README quotes.
ONLY ?=
mutants: images
	$(PL) mutants -out $(ARTIFACTS)/mutants -suites '$(filter-out lifecycle/nodeloss,$(SUITES))' $(call flag_of,KEEP_CLUSTERS,keep-clusters) $(if $(ONLY),-only '$(ONLY)' -reuse-stock)
	$(if $(ONLY),,cp $(ARTIFACTS)/mutants/kill-matrix.md docs/kill-matrix.md)

# Writes report.html and report.md again from the saved artifacts of the last run
# (REPORT_JSON: make e2e-<suite> writes <suite>.json). ARTIFACTS may list the
# directories of a run in parts, comma-separated.
REPORT_JSON ?= e2e.json
report: $(PL)
	$(PL) report -artifacts '$(ARTIFACTS)' -json $(REPORT_JSON) -suites '$(ALL_SUITES)'

# What changed between two runs (make compare BASE=_artifacts.previous HEAD=_artifacts):
# per statement the verdicts and the transition, per timing both values against the
# tolerance, the cluster facts that differ; compare.md and compare.html in HEAD's
# directory. Exit status 1 when a statement got worse. BASE or HEAD may list the
# directories of a run in parts, comma-separated.
BASE ?=
HEAD ?=
compare: $(PL)
	@[ -n '$(BASE)' ] && [ -n '$(HEAD)' ] || { echo "usage: make compare BASE=<artifacts dir> HEAD=<artifacts dir>" >&2; exit 2; }
	$(PL) compare -json $(REPORT_JSON) '$(BASE)' '$(HEAD)'

# A/B in one command: make e2e as it is (A), then with the B switches (B), then
# compare A → B; exit status 1 when a statement got worse under B, 2 when A or B could
# not be made. Both runs' switches are checked before A starts. B is any of
# KUBELET_B=/path/kubelet, KUBELET_VERSION_B=v1.36.3, FEATURE_GATES_B=…,
# KUBELET_FEATURE_GATES_B=…, K8S_VERSION_B=v1.36.3: each replaces the switch of its
# name for B. The runs' artifacts: $(ARTIFACTS)/ab/a and .../b; the comparison beside
# them. BASE=dir takes an earlier run as A instead of running it again.
AB_SWITCHES := KUBELET_B:b-kubelet KUBELET_VERSION_B:b-kubelet-version FEATURE_GATES_B:b-feature-gates \
	KUBELET_FEATURE_GATES_B:b-kubelet-feature-gates K8S_VERSION_B:b-k8s-versions
AB_FLAGS = $(foreach s,$(AB_SWITCHES),$(call flag_of,$(word 1,$(subst :, ,$(s))),$(word 2,$(subst :, ,$(s)))))
e2e-ab: $(PL)
	$(PL) ab $(RUN_FLAGS) $(AB_FLAGS) $(if $(BASE),-base '$(BASE)') $(addprefix ./suites/,$(SUITES))

# Renders report.html in headless Chromium (installed from Debian when missing and
# root) and saves screenshots of the matrix and of a delay chart under ARTIFACTS;
# fails if the page logs to the browser console.
report-screenshots:
	bash images/scripts/report-screenshots.sh $(ARTIFACTS)

# The suites inside the cluster under test. runner-image builds podlifecycle/runner:1
# (offline: the compiled suites, ginkgo and podlifecycle on the busybox image `make
# images` builds); runner-job runs it as a Job in the cluster KUBECONFIG names, with
# a service account of the narrowest RBAC the non-Disruptive specs need
# (images/runner/job.yaml, held to the specs' calls by cmd/podlifecycle/rbac_test.go),
# with LABELS, FOCUS and PROCS, and copies the artifacts to $(ARTIFACTS)/runner. A kind
# cluster of this machine gets the image loaded; any other pulls RUNNER_IMAGE.
runner-image: images
	bash images/scripts/runner.sh '$(SUITES)'

runner-job: $(PL)
	$(PL) preflight $(RUN_FLAGS) $(addprefix ./suites/,$(SUITES))
	KUBECONFIG='$(if $(filter command line override,$(origin KUBECONFIG)),$(KUBECONFIG))' LABELS='$(or $(LABELS),!Slow)' FOCUS='$(FOCUS)' PROCS='$(or $(PROCS),4)' bash images/scripts/runner-job.sh $(ARTIFACTS)/runner

# Deletes every kind cluster the suites made (their names start with plc-) and the
# artifacts; images and build caches stay.
clean:
	@for c in $$($(KIND) get clusters 2>/dev/null | grep '^plc-' || true); do $(KIND) delete cluster --name $$c; done
	rm -rf $(ARTIFACTS) $(ARTIFACTS).previous
