# Ember testbed. `make` builds everything, `make test` runs every test.
# Each target installs (scripts/setup.sh) and builds what it needs; QEMU is
# cached outside the clone in $(EMBER_CACHE) (see scripts/common.sh).
BUILD := $(CURDIR)/build
QEMU_PATH := $(BUILD)/qemu-path
KERNEL := $(BUILD)/images/vmlinuz
INITRD := $(BUILD)/images/initramfs.cpio
AGENT := $(BUILD)/host-agent/ember-agent
VMTEST := $(BUILD)/tests/vm/vmtest

# Accelerator for the VMs: tcg (works everywhere) or kvm.
ACCEL ?= tcg
# `make run` options
PROFILE ?= h200-256m

# Inside make test's steps (EMBER_BUILT=1) the tree is built already, by its
# build step: the steps' prerequisites all, deps, qemu, guest, host and
# model are then made, so that two steps running at once do not re-make
# them at once (kbuild in one folder, qemu-path, apt). The build step
# itself (EMBER_SET_UP=1) skips only deps: the setup step ran setup.sh,
# and NVIDIA's builds, beside the build step, read what it writes.
ifeq ($(EMBER_BUILT),1)
all deps model qemu guest host: ;
else
all: qemu guest host model

# libgpumodel and its unit tests (host only, no QEMU)
model: deps
	$(MAKE) -C models

ifeq ($(EMBER_SET_UP),1)
deps: ;
else
deps:
	bash scripts/setup.sh
endif

qemu: deps
	@mkdir -p $(BUILD)
	bash scripts/build-qemu.sh >$(QEMU_PATH).tmp
	mv $(QEMU_PATH).tmp $(QEMU_PATH)

# Guest side: ember.ko, libember + ember-run, the guest test program and the
# image holding them.
guest: deps
	$(MAKE) -C guest-kmod/ember
	$(MAKE) -C guest-kmod/ember/modules/hooktest
	$(MAKE) -C userspace
	$(MAKE) -C tests/vm $(BUILD)/guest/ember-vmtest
	$(MAKE) -C tests/fuzz-ioctl
	$(MAKE) -C images

# Host side: ember-agent and the VM test harness.
host: deps
	$(MAKE) -C host-agent
	$(MAKE) -C tests/vm $(VMTEST)
endif

# Each step timed (scripts/timed.sh): the table of what it took closes the
# run, so a cold setup's cost shows step by step; each step's output is
# printed whole when it ends. setup (scripts/setup.sh) goes first. Then
# two lanes side by side: the NVIDIA chain, the longest (NVIDIA's modules
# with the series, which need only the setup, beside build; then the stock
# builds and the images; then nvidia-vm-test, with image-nvidia-test
# beside it), and build (QEMU, the tree) followed by every other step, one
# after another (TEST_LANES such lanes, the steps dealt round-robin). A
# failed step does not stop the others; the report counts it, and a step
# whose prerequisite failed as not run. Every check that compares runs
# holds on a loaded host (make loaded-test; docs/nvidia-uvm.md for
# nvidia-uvm).
TEST_TIMES := $(BUILD)/test-times
TIMED := bash scripts/timed.sh $(TEST_TIMES)
TEST_CHAIN := nvidia-test nvidia-images nvidia-vm-test image-nvidia-test trace-replay-test \
	fuzz-rm
TEST_LANE_STEPS := unit qtest image-reproducible libvirt-test multihost-test vfio-dry-run \
	inject-test loaded-test determinism-test driver-cost-test sizes-test \
	report-test figures-test fuzz-ioctl fuzz-smoke vm-test
# two lanes beside the chain: with one, the lane ends after the chain;
# with two, the chain and lane 1 end together
TEST_LANES ?= 2
TEST_STEPS := build $(TEST_CHAIN) $(TEST_LANE_STEPS)
TEST_LANE_TARGETS := $(addprefix test-lane-,$(shell seq $(TEST_LANES)))
# the niceness of the steps that may run beside nvidia-vm-test (below)
TEST_NICE ?= 10
test:
	@mkdir -p $(BUILD) && rm -rf $(TEST_TIMES).d && : >$(TEST_TIMES) && \
		date +%s >$(TEST_TIMES).start && head -n 1 /proc/stat >$(TEST_TIMES).stat
	@$(TIMED) setup $(MAKE) deps || { bash scripts/timed.sh --report $(TEST_TIMES) setup; exit 1; }
	@$(MAKE) -k -j$$(($(TEST_LANES) + 2)) $(addprefix test-step-,build $(TEST_CHAIN)) \
		$(TEST_LANE_TARGETS); \
		bash scripts/timed.sh --report $(TEST_TIMES) setup $(TEST_STEPS)

# A step's make stays out of the job server (MAKEFLAGS unset): a make
# inside a step that took a free slot would keep the next step waiting for
# it. (STEP_MAKE, not MAKE: make -n then prints the step instead of
# running it without -n.)
STEP_MAKE = $(MAKE)
STEP_VARS = EMBER_SET_UP=1 EMBER_BUILT=1
STEP_NICE = nice -n $(TEST_NICE)
STEP = env -u MAKEFLAGS -u MFLAGS $(STEP_NICE) $(STEP_MAKE) -k $(STEP_JOBS)

# Lane N: the steps N, N + TEST_LANES, ... of TEST_LANE_STEPS, in order.
$(TEST_LANE_TARGETS): test-lane-%: test-step-build
	@rc=0; i=0; for s in $(TEST_LANE_STEPS); do \
		i=$$((i + 1)); [ $$(((i - 1) % $(TEST_LANES) + 1)) = $* ] || continue; \
		$(TIMED) $$s $(STEP) $$s $(STEP_VARS) || rc=1; \
	done; exit $$rc

TEST_STEP_TARGETS := $(addprefix test-step-,build $(TEST_CHAIN))
test-step-build: private STEP_GOAL := all
test-step-build: private STEP_VARS := EMBER_SET_UP=1
# The NVIDIA chain: the modules, then the images, then the steps that boot
# them (NVIDIA_BUILT=1: neither re-makes the images; private, or
# nvidia-images would inherit it as their prerequisite). Every step that
# may run beside nvidia-vm-test is niced (NVIDIA's compiles nice
# themselves): its built-in tests under Ember-adaptive keep the glue on
# the guest's clock, and with other VMs beside it at its own priority two
# of them can find their block reclaimed mid-test; beside niced VMs or
# busy loops they pass.
test-step-nvidia-images: test-step-nvidia-test test-step-build
# Debian's stock nvidia-uvm builds (image-nvidia-uvm) beside the real-card
# images' CUDA toolkit, programs and images (image-nvidia), which need
# nothing of them: made one after the other, the second would leave a
# core idle at the end of the step.
test-step-nvidia-images: private STEP_JOBS := -j2
# trace-replay-test and fuzz-rm (FUZZ_RM_SECONDS of it, one core) boot the
# nvidia-uvm image too: after it, beside them.
test-step-nvidia-vm-test test-step-image-nvidia-test test-step-trace-replay-test \
	test-step-fuzz-rm: test-step-nvidia-images
test-step-nvidia-vm-test test-step-image-nvidia-test test-step-trace-replay-test \
	test-step-fuzz-rm: private STEP_VARS := EMBER_SET_UP=1 EMBER_BUILT=1 NVIDIA_BUILT=1
test-step-build test-step-nvidia-test test-step-nvidia-images test-step-nvidia-vm-test: \
	private STEP_NICE :=
$(TEST_STEP_TARGETS): test-step-%:
	@$(TIMED) $* $(STEP) $(or $(STEP_GOAL),$*) $(STEP_VARS)

image-reproducible:
	$(MAKE) -C images check-reproducible

vfio-dry-run:
	bash tests/vfio/check-dry-run.sh

fuzz-smoke:
	$(MAKE) -C tests/fuzz smoke

# NVIDIA's modules without our series and the images nvidia-vm-test boots
# (a step of make test of its own, so that the builds overlap other steps).
nvidia-images: image-nvidia-uvm image-nvidia

# A fault-injection campaign subset: every run recovers or fails cleanly.
inject-test: all
	bash tests/inject/run-test.sh $(AGENT) "$$(cat $(QEMU_PATH))" $(KERNEL) $(INITRD) \
		$(BUILD)/inject-test

# Determinism under Ember-adaptive with notifications, promotions and eager
# evictions live: kmeans at 1.5x twice on fresh VMs, equal trace hashes.
DETERMINISM_PROFILE ?= h200-64m
determinism-test: all
	bash tests/determinism/run-test.sh $(AGENT) "$$(cat $(QEMU_PATH))" $(KERNEL) $(INITRD) \
		$(BUILD)/determinism-test $(DETERMINISM_PROFILE)

# The driver's own CPU work in guest instructions (docs/model.md, "Driver
# CPU time") on fixed workloads, per serviced fault, promoted block and
# 2 MiB evicted: ember.ko and nvidia-uvm of both branches, NVIDIA's policy
# and Ember-adaptive, one pool; the table again with
# scripts/driver-cost.sh table DIR...
DRIVER_COST_MATRICES ?= experiments/matrices/driver-cost-ember.conf \
	experiments/matrices/driver-cost-535.conf experiments/matrices/driver-cost-550.conf
driver-cost: all image-nvidia-uvm
	$(AGENT) run $(DRIVER_COST_MATRICES) --qemu "$$(cat $(QEMU_PATH))" --kernel $(KERNEL) \
		--initrd $(INITRD) --nvidia-uvm-initrd $(NVIDIA_UVM_IMAGE) --results $(RESULTS) \
		--accel $(ACCEL); \
	rc=$$?; bash scripts/driver-cost.sh table $(foreach m,$(DRIVER_COST_MATRICES), \
		$(RESULTS)/$$(sed -n 's/^name *= *//p' $(m))); exit $$rc

# What instruction counting costs the host: the two counting-cost
# matrices (a third of make run's, measured and assumed) in one pool, then
# each VM's wall and CPU seconds measured over assumed (driver-cost.sh speed).
COUNTING_COST_MATRICES ?= experiments/matrices/counting-cost-measured.conf experiments/matrices/counting-cost-assumed.conf
counting-cost: all image-nvidia-uvm
	$(AGENT) run $(COUNTING_COST_MATRICES) --qemu "$$(cat $(QEMU_PATH))" --kernel $(KERNEL) \
		--initrd $(INITRD) --nvidia-uvm-initrd $(NVIDIA_UVM_IMAGE) --results $(RESULTS) \
		--accel $(ACCEL); \
	rc=$$?; bash scripts/driver-cost.sh speed $(RESULTS)/counting-cost-measured \
		$(RESULTS)/counting-cost-assumed; exit $$rc

# The same check as a regression test of ember.ko: equal on two boots, and a
# deliberately slower ember.ko (tests/driver-cost/extra-pass.patch) caught.
DRIVER_COST_PROFILE ?= h200-64m
driver-cost-test: all
	bash tests/driver-cost/run-test.sh $(AGENT) "$$(cat $(QEMU_PATH))" $(KERNEL) $(INITRD) \
		$(BUILD)/driver-cost-test $(DRIVER_COST_PROFILE)

# Trace replay (docs/trace-replay.md): the replay's plan and bad traces
# natively, then the committed PyTorch and pathfinder traces in VMs under
# uvm and Ember-adaptive, twice, equal trace hashes; pathfinder's on
# nvidia-uvm, the same result as on ember.ko.
trace-replay-test: all image-nvidia-uvm
	$(MAKE) -C tests/trace-replay check
	bash tests/trace-replay/run-test.sh $(AGENT) "$$(cat $(QEMU_PATH))" $(KERNEL) $(INITRD) \
		$(NVIDIA_UVM_IMAGE) $(BUILD)/trace-replay-test

# Lockstep determinism on a loaded host: the same small runs with and
# without busy loops beside them give the same trace hash and stats.
loaded-test: all
	bash tests/inject/loaded-host.sh $(AGENT) "$$(cat $(QEMU_PATH))" $(KERNEL) $(INITRD) \
		$(BUILD)/loaded-test

# ember-agent report beside the paper's CSVs, on results made from the
# paper's own numbers (no VM): exact order counts and geometric means; and
# ember-agent against a hostile guest (tests/agent: fake-qemu in QEMU's place).
report-test: host results-format-doc-check experiments-doc-check inject-doc-check \
		modparams-doc-check guest-caps-doc-check docs-numbers-check fuzz-doc-check \
		fuzz-rm-doc-check paper-inputs-doc-check nvidia-branches-doc-check
	$(MAKE) -C userspace $(BUILD)/guest/ember-run
	bash tests/report/run-test.sh $(AGENT) $(BUILD)/report-test $(BUILD)/guest/ember-run
	$(CC) -std=gnu11 -Wall -Wextra -O2 -Ihost-agent -o $(BUILD)/report-test/test-judge \
		tests/report/test_judge.c $(BUILD)/host-agent/libemberagent.a -ljansson -lvirt -lvirt-qemu -lm -lzstd
	$(BUILD)/report-test/test-judge $(BUILD)/report-test/judge
	$(CC) -std=gnu11 -Wall -Wextra -O2 -Ihost-agent -o $(BUILD)/report-test/test-calibrate \
		tests/report/test_calibrate.c $(BUILD)/host-agent/libemberagent.a -ljansson -lvirt -lvirt-qemu -lm
	$(BUILD)/report-test/test-calibrate $(BUILD)/report-test/calibrate
	bash tests/report/test-docs-numbers.sh $(BUILD)/report-test/docs-numbers
	$(CC) -std=gnu11 -Wall -Wextra -O2 -o $(BUILD)/report-test/fake-qemu tests/agent/fake-qemu.c
	bash tests/agent/run-test.sh $(AGENT) $(BUILD)/report-test/fake-qemu $(BUILD)/report-test/agent

# The figures (experiments/figures.conf): the list parses and names only
# commands and matrices that exist, every figure block of the pages is its
# result set, and the smoke figure made again holds the committed results.
figures-test: all
	bash tests/figures/run-test.sh $(BUILD)/figures-test

# One app at two card sizes and two seeds: every result reads back.
sizes-test: all
	bash tests/sizes/run-test.sh $(AGENT) "$$(cat $(QEMU_PATH))" $(KERNEL) $(INITRD) \
		$(BUILD)/sizes-test

# The fault-injection campaign behind the README's table (resumable, like
# `make run`): every kind x workload x policy x factor, then the table.
CAMPAIGN ?= experiments/matrices/inject-campaign.conf
inject-campaign: all
	$(AGENT) run $(CAMPAIGN) --qemu "$$(cat $(QEMU_PATH))" --kernel $(KERNEL) \
		--initrd $(INITRD) $(CAMPAIGN_ARGS) --results $(RESULTS) --accel $(ACCEL); \
	rc=$$?; $(AGENT) report $(RESULTS)/$$(sed -n 's/^name *= *//p' $(CAMPAIGN)) --no-plot; \
	exit $$rc

# The same campaign on NVIDIA's nvidia-uvm (the kinds it can meet; the
# others refused, docs/fault-injection.md "Per driver").
inject-campaign-nvuvm: all image-nvidia-uvm
	$(MAKE) inject-campaign CAMPAIGN=experiments/matrices/inject-campaign-nvuvm.conf \
		CAMPAIGN_ARGS='--nvidia-uvm-initrd $(NVIDIA_UVM_IMAGE)'

# Random abuse of /dev/ember in a guest (tests/fuzz-ioctl): seeded, under
# panic_on_warn; FUZZ_IOCTL_SECONDS (default 60), FUZZ_IOCTL_SEED and
# FUZZ_IOCTL_CALLS (stop after that many calls if sooner; default 0: no limit).
FUZZ_IOCTL_SECONDS ?= 60
FUZZ_IOCTL_SEED ?= 1
FUZZ_IOCTL_CALLS ?= 0
fuzz-ioctl: all
	bash tests/fuzz-ioctl/run-test.sh $(AGENT) "$$(cat $(QEMU_PATH))" $(KERNEL) $(INITRD) \
		$(BUILD)/fuzz-ioctl $(FUZZ_IOCTL_SECONDS) $(FUZZ_IOCTL_SEED) $(FUZZ_IOCTL_CALLS)

# Random abuse of the resource-manager stand-in's /dev/emgpu-rm with
# NVIDIA's nvidia-uvm on it, from FUZZ_RM_THREADS racing threads
# (tests/fuzz-rm): the nvidia-uvm image on FUZZ_RM_BRANCH, the guest under
# panic_on_warn and slub_debug, for FUZZ_RM_SECONDS or FUZZ_RM_CALLS calls,
# whichever comes first (0: no limit of that kind), seed FUZZ_RM_SEED.
# fuzz-rm-campaign records the run in tests/fuzz-rm/runs.tsv, fuzz-rm-doc
# writes the runs into docs/fuzzing.md (fuzz-rm-doc-check: part of
# report-test).
FUZZ_RM_SECONDS ?= 60
FUZZ_RM_SEED ?= 1
FUZZ_RM_CALLS ?= 0
FUZZ_RM_THREADS ?= 4
FUZZ_RM_BRANCH ?= 550.163.01
FUZZ_RM_RUNS ?=
fuzz-rm: qemu host image-nvidia-uvm
	bash tests/fuzz-rm/run-test.sh $(AGENT) "$$(cat $(QEMU_PATH))" $(KERNEL) $(NVIDIA_UVM_IMAGE) \
		$(BUILD)/fuzz-rm $(FUZZ_RM_SECONDS) $(FUZZ_RM_SEED) $(FUZZ_RM_CALLS) $(FUZZ_RM_THREADS) \
		$(FUZZ_RM_BRANCH) $(FUZZ_RM_RUNS)

fuzz-rm-campaign:
	$(MAKE) fuzz-rm FUZZ_RM_RUNS=$(CURDIR)/tests/fuzz-rm/runs.tsv

fuzz-rm-report:
	@bash tests/fuzz-rm/report.sh

fuzz-rm-doc:
	bash scripts/doc-block.sh write docs/fuzzing.md --block tests/fuzz-rm bash tests/fuzz-rm/report.sh

fuzz-rm-doc-check:
	@bash scripts/doc-block.sh check docs/fuzzing.md --block tests/fuzz-rm bash tests/fuzz-rm/report.sh

# ember-agent through libvirt's C API, against a private libvirtd.
libvirt-test: all
	bash tests/libvirt/run-test.sh $(AGENT) "$$(cat $(QEMU_PATH))" $(KERNEL) $(INITRD) \
		$(BUILD)/libvirt-test

# Scale-out: two libvirtd hosts in network namespaces of their own, a matrix
# spread over them identical to the local run; a host killed, then one
# frozen, mid-matrix: its run rescheduled, every run recorded once.
multihost-test: all
	bash tests/multihost/run-test.sh $(AGENT) "$$(cat $(QEMU_PATH))" $(KERNEL) $(INITRD) \
		$(BUILD)/multihost-test

# The CUnit suites (libgpumodel; the policy code of ember.ko built in
# userspace), run under valgrind: memory errors fail them.
unit: deps table1-doc-check profiles-doc-check trace-model-doc-check
	$(MAKE) -C tests/unit valgrind
	$(MAKE) -C tests/unit/policy valgrind
	$(MAKE) -C tests/unit/libember valgrind
	$(MAKE) -C capture test

# capture/: libtrace (docs/trace-format.md) and its tests; ember-capture
# itself builds on a machine with CUDA's compute-sanitizer (docs/capture.md).
capture: deps
	$(MAKE) -C capture

# docs/results-format.md's field table is ember-agent's own listing
# (host-agent/result_fields.h); the check is part of report-test.
results-format-doc: host
	bash scripts/doc-block.sh write docs/results-format.md $(AGENT) result-fields

results-format-doc-check: host
	@bash scripts/doc-block.sh check docs/results-format.md $(AGENT) result-fields

# docs/testing.md's caps on what a guest may make the host write are
# ember-agent's own listing (host-agent/vm.h); the check is part of report-test.
guest-caps-doc: host
	bash scripts/doc-block.sh write docs/testing.md $(AGENT) guest-caps

guest-caps-doc-check: host
	@bash scripts/doc-block.sh check docs/testing.md $(AGENT) guest-caps

# docs/paper-inputs.md's table: the oversubscription of each Table 4
# column, from the caption, experiments/paper/table4.csv and a committed
# trace of the radix sort (capture/traces/paper); part of report-test.
paper-inputs-doc: capture
	bash scripts/doc-block.sh write docs/paper-inputs.md bash scripts/paper-inputs.sh

paper-inputs-doc-check: capture
	@bash scripts/doc-block.sh check docs/paper-inputs.md bash scripts/paper-inputs.sh

# docs/trace-replay.md's table "The model alone": trace-model (no VM) on
# the committed nw and pathfinder traces beside the card; a model timing
# change makes it stale (the check is part of make unit).
trace-model-doc: deps
	$(MAKE) -C tests/trace-replay trace-model
	bash scripts/doc-block.sh write docs/trace-replay.md bash tests/trace-replay/model-table.sh

trace-model-doc-check: deps
	@$(MAKE) -s -C tests/trace-replay trace-model
	@bash scripts/doc-block.sh check docs/trace-replay.md bash tests/trace-replay/model-table.sh

# Docs are reference: no page under docs/ and no line of README.md types a
# measured number (a time, a percentage, a speedup, CPU seconds) outside a
# generated block or code (scripts/docs-numbers.sh); part of report-test.
docs-numbers-check:
	@bash scripts/docs-numbers.sh

# docs/experiments.md's variants table is ember-agent's listing likewise.
experiments-doc: host
	bash scripts/doc-block.sh write docs/experiments.md $(AGENT) variants

experiments-doc-check: host
	@bash scripts/doc-block.sh check docs/experiments.md $(AGENT) variants

# docs/fault-injection.md's per-driver expectations: judge.c's tables.
inject-doc: host
	bash scripts/doc-block.sh write docs/fault-injection.md $(AGENT) inject-expect

inject-doc-check: host
	@bash scripts/doc-block.sh check docs/fault-injection.md $(AGENT) inject-expect

# docs/driver.md's module parameters: ember-agent's listing of the lists
# that declare them (host-agent/modparams.c); the check is part of report-test.
modparams-doc: host
	bash scripts/doc-block.sh write docs/driver.md $(AGENT) modparams

modparams-doc-check: host
	@bash scripts/doc-block.sh check docs/driver.md $(AGENT) modparams

# docs/table1.md, Table 1 of the paper as Markdown, printed by
# scripts/table1-doc.c from the one list (policy/ember_adaptive_params.h);
# table1-doc-check (part of `make unit`) fails when the page is stale.
$(BUILD)/table1-doc: scripts/table1-doc.c policy/ember_adaptive_params.h
	@mkdir -p $(BUILD)
	$(CC) -std=c11 -Wall -Wextra -Werror -Ipolicy -o $@ scripts/table1-doc.c

table1-doc: $(BUILD)/table1-doc
	$(BUILD)/table1-doc >docs/table1.md

table1-doc-check: $(BUILD)/table1-doc
	@$(BUILD)/table1-doc | cmp -s - docs/table1.md || \
		{ echo "docs/table1.md is stale: make table1-doc"; exit 1; }

# docs/profiles.md, emgpu's profiles, printed by scripts/profiles-doc.c from
# the model's table (models/src/profile.c); profiles-doc-check likewise.
$(BUILD)/profiles-doc: scripts/profiles-doc.c models/src/profile.c models/include/gpumodel/profile.h \
		models/include/gpumodel/personality.h
	@mkdir -p $(BUILD)
	$(CC) -std=c11 -Wall -Wextra -Werror -D_POSIX_C_SOURCE=200809L -Imodels/include \
		-o $@ scripts/profiles-doc.c models/src/profile.c

profiles-doc: $(BUILD)/profiles-doc
	$(BUILD)/profiles-doc >docs/profiles.md

profiles-doc-check: $(BUILD)/profiles-doc
	@$(BUILD)/profiles-doc | cmp -s - docs/profiles.md || \
		{ echo "docs/profiles.md is stale: make profiles-doc"; exit 1; }

# emgpu's registers programmed from the host with QEMU's qtest (no guest).
qtest: qemu
	QTEST_QEMU_BINARY="$$(cat $(QEMU_PATH))" "$$(dirname "$$(cat $(QEMU_PATH))")/emgpu-test" --tap

# libFuzzer on the model's guest-facing surface and the replay planner
# (tests/fuzz: FUZZ_SECONDS each, default 300).
FUZZ_SECONDS ?= 300
fuzz: deps
	$(MAKE) -C tests/fuzz run SECONDS=$(FUZZ_SECONDS)

# QEMU's own generic-fuzz target on emgpu's BARs and DMA, in a clang build
# of QEMU with libFuzzer, ASan and UBSan (cached like the normal build),
# resetting the device between inputs instead of forking (tests/fuzz/qemu/).
# Runs accumulate: each starts from the corpus in tests/fuzz/corpus/, merges
# back a minimal one and appends its figures to tests/fuzz/qemu/runs.tsv;
# fuzz-qemu-report sums them. FUZZ_RUN_BUDGET sets emgpu's run-budget (512).
fuzz-qemu: deps
	bash tests/fuzz/qemu/run.sh $(BUILD) $(FUZZ_SECONDS)

fuzz-qemu-report:
	bash tests/fuzz/qemu/report.sh

# One recorded libFuzzer campaign of a tests/fuzz harness (FUZZ_HARNESS:
# regs or replay-plan; FUZZ_SECONDS), a line of tests/fuzz/runs.tsv;
# fuzz-report sums them per harness, fuzz-doc writes the sums into
# docs/fuzzing.md's generated block (fuzz-doc-check: part of report-test).
FUZZ_HARNESS ?= regs
fuzz-campaign: deps
	bash tests/fuzz/campaign.sh $(FUZZ_HARNESS) $(FUZZ_SECONDS)

fuzz-report:
	@bash tests/fuzz/report.sh

fuzz-doc:
	bash scripts/doc-block.sh write docs/fuzzing.md bash tests/fuzz/report.sh

fuzz-doc-check:
	@bash scripts/doc-block.sh check docs/fuzzing.md bash tests/fuzz/report.sh

# NVIDIA's open kernel modules (nvidia.ko, nvidia-uvm.ko) with the Ember
# series and the policy core, one build per driver branch, into
# build/nvidia/<version>/ (guest-kmod/nvidia-uvm/build.sh says how).
NVIDIA_BRANCHES := guest-kmod/nvidia-uvm/branches/535.261.03 guest-kmod/nvidia-uvm/branches/550.163.01
# NVIDIA_SRC=/path/to/open-gpu-kernel-modules (or a kernel-open tree with
# nvidia/nv-kernel.o_binary): that tree's modules in the branches' place
# (guest-kmod/nvidia-uvm/tree-branch.sh makes its branch directory), with
# the Ember series of NVIDIA_SERIES (a branch directory, default the
# newest one here), or with NVIDIA_STOCK=1 NVIDIA's nvidia-uvm alone.
ifneq ($(NVIDIA_SRC),)
NVIDIA_SERIES ?= $(lastword $(sort $(wildcard guest-kmod/nvidia-uvm/branches/*)))
NVIDIA_TREE_BRANCH := $(BUILD)/nvidia-src
NVIDIA_TREE_BRANCH_MADE := $(shell bash guest-kmod/nvidia-uvm/tree-branch.sh $(NVIDIA_TREE_BRANCH) \
	'$(NVIDIA_SRC)' $(if $(filter 1,$(NVIDIA_STOCK)),--stock,$(NVIDIA_SERIES)) >&2 && echo yes)
ifneq ($(NVIDIA_TREE_BRANCH_MADE),yes)
$(error NVIDIA_SRC=$(NVIDIA_SRC): no branch directory (tree-branch.sh said why))
endif
NVIDIA_BRANCHES := $(NVIDIA_TREE_BRANCH)
endif
nvidia: deps
	for b in $(NVIDIA_BRANCHES); do \
		bash guest-kmod/nvidia-uvm/build.sh --into $(BUILD)/nvidia $$b >/dev/null || exit 1; done

nvidia-test: nvidia
	for b in $(NVIDIA_BRANCHES); do bash guest-kmod/nvidia-uvm/check.sh $$b || exit 1; done

.PHONY: nvidia nvidia-test

# NVIDIA's nvidia-uvm.ko, as make nvidia built it, in a VM against emgpu:
# the resource-manager stand-in (guest-kmod/emgpu-rm/: emgpu-rm.ko, one build per
# branch) in nvidia.ko's place, then NVIDIA's built-in tests
# (tests/nvidia-uvm/), both branches in one image (images/nvidia-uvm/).
NVIDIA_UVM_IMAGE := $(BUILD)/images/initramfs-nvidia-uvm$(if $(NVIDIA_SRC),-src).cpio
# In make test's steps after nvidia-images (NVIDIA_BUILT=1) both kinds of
# image are made already.
ifeq ($(NVIDIA_BUILT),1)
image-nvidia-uvm image-nvidia: ;
else
image-nvidia-uvm: deps
	$(MAKE) -C images $(KERNEL)
	$(MAKE) -C userspace $(BUILD)/guest/ember-run
	$(MAKE) -C images nvidia-uvm-image NVIDIA_UVM_IMAGE=$(NVIDIA_UVM_IMAGE) \
		NVIDIA_BRANCHES="$(abspath $(NVIDIA_BRANCHES))"

# The guest images for a real card (images/nvidia): the cloud kernel
# (build/images/vmlinuz) and build/images/initramfs-nvidia.cpio with the
# 535 branch's modules (initramfs-nvidia-550.cpio: the 550 branch's), the
# GSP firmware and CUDA user-space libraries of the same version, and the
# applications built with Debian's CUDA toolkit 11.8 (fetched once into
# $(EMBER_CACHE)). scripts/vfio-passthrough.sh --image nvidia[-550] boots
# one with a card.
image-nvidia: deps
	$(MAKE) -C images $(KERNEL)
	$(MAKE) -C images/nvidia
endif

# NVIDIA_PERSONALITY=gh100 runs it all on emgpu's GH100 personality (the
# stand-in reports a Hopper GH100, nvidia-uvm takes its Hopper HAL) into
# build/nvidia-vm-test-gh100; make test runs the default, ga10x.
NVIDIA_PERSONALITY ?= ga10x
NVIDIA_VM_TEST_DIR := $(BUILD)/nvidia-vm-test$(if $(filter-out ga10x,$(NVIDIA_PERSONALITY)),-$(NVIDIA_PERSONALITY))
nvidia-vm-test: image-nvidia-uvm image-nvidia qemu host
	bash -o pipefail -c 'NVIDIA_PERSONALITY=$(NVIDIA_PERSONALITY) bash tests/nvidia-uvm/run-test.sh $(AGENT) \
		"$$(cat $(QEMU_PATH))" $(KERNEL) $(NVIDIA_UVM_IMAGE) $(NVIDIA_VM_TEST_DIR) \
		$(abspath $(NVIDIA_BRANCHES)) | tee $(NVIDIA_VM_TEST_DIR).tap'

# The last nvidia-vm-test's branches (of NVIDIA_PERSONALITY), one line each, into
# tests/nvidia-uvm/branch-runs.tsv (to commit); nvidia-branches-doc puts
# the newest of each into docs/nvidia-uvm.md (checked by report-test).
nvidia-vm-record:
	NVIDIA_PERSONALITY=$(NVIDIA_PERSONALITY) bash tests/nvidia-uvm/branch-record.sh \
		$(NVIDIA_VM_TEST_DIR).tap $$(cat $(NVIDIA_VM_TEST_DIR)/branches)

nvidia-branches-doc:
	bash scripts/doc-block.sh write docs/nvidia-uvm.md --block tests/nvidia-uvm/branch-report.sh \
		bash tests/nvidia-uvm/branch-report.sh

nvidia-branches-doc-check:
	@bash scripts/doc-block.sh check docs/nvidia-uvm.md --block tests/nvidia-uvm/branch-report.sh \
		bash tests/nvidia-uvm/branch-report.sh

.PHONY: image-nvidia-uvm nvidia-vm-test nvidia-vm-record nvidia-branches-doc nvidia-branches-doc-check

# Their contents listed and checked (images/nvidia/check.sh), each rebuilt
# byte for byte, then each booted under TCG with no card
# (images/nvidia/boot-test.sh).
image-nvidia-test: image-nvidia qemu host
	$(MAKE) -C images/nvidia check
	$(MAKE) -C images/nvidia check-reproducible
	for i in initramfs-nvidia initramfs-nvidia-550; do \
		bash images/nvidia/boot-test.sh $(AGENT) "$$(cat $(QEMU_PATH))" $(KERNEL) \
			$(BUILD)/images/$$i.cpio $(BUILD)/image-nvidia-boot/$$i || exit 1; done

.PHONY: image-nvidia image-nvidia-test

# Model speed: modelled 128-byte accesses per second of one core's CPU time,
# four access mixes (docs/model.md says what each runs and what bounds it).
bench: deps
	$(MAKE) -C models bench

# The replay's throughput at scale (docs/trace-replay.md): a synthetic
# trace of REPLAY_PASSES x the footprint's lines (382: about 100 M records
# on h200-64m at 0.5x) replayed in a VM, and the built-in stream kernel
# over the same lines as often, on each of REPLAY_DRIVERS; each one's wall
# time, records per second and the ratio. Not in make test: minutes under
# TCG.
REPLAY_PASSES ?= 382
REPLAY_DRIVERS ?= ember nvidia-uvm
replay-bench: all capture
	NVIDIA_BRANCHES="$(abspath $(NVIDIA_BRANCHES))" bash scripts/replay-bench.sh \
		$(AGENT) "$$(cat $(QEMU_PATH))" $(KERNEL) $(BUILD)/replay-bench $(REPLAY_PASSES) \
		"$(REPLAY_DRIVERS)"

# The paper's own programs (capture/traces/paper-h200, then paper)
# replayed at the scaled card's footprints under the five variants on both
# drivers, beside the built-in apps of the same names, and the page of
# their cells beside the paper's (scripts/paper-programs.sh; PAPER_TRACES:
# the folders of traces searched in order, e.g. one of BFS and radix
# sort's regenerated on a card first).
PAPER_TRACES ?= $(CURDIR)/capture/traces/paper-h200 $(CURDIR)/capture/traces/paper
paper-programs: all capture image-nvidia-uvm
	TRACE_DIRS="$(PAPER_TRACES)" \
	NVIDIA_BRANCHES="$(CURDIR)/guest-kmod/nvidia-uvm/branches/550.163.01" \
		bash scripts/paper-programs.sh $(AGENT) "$$(cat $(QEMU_PATH))" $(KERNEL) \
		$(RESULTS) $(ACCEL)

vm-test: all
	$(VMTEST) --qemu "$$(cat $(QEMU_PATH))" --kernel $(KERNEL) --initrd $(INITRD) \
		--outdir $(BUILD)/vm-test --accel $(ACCEL)

# The main job: the paper's comparison matrix (experiments/matrices/) on
# NVIDIA's nvidia-uvm, the driver the paper measured (uvm: Debian's
# unpatched module; adaptive: our series), then the speedup table beside
# the paper's Table 4 and the plots; `make run-ember` the same on ember.ko.
# Resumable: rerunning skips finished runs; `make run-clean` starts over.
# MATRIX may name several matrices: they run as one pool, then each is
# reported.
MATRIX ?= experiments/matrices/paper-nvuvm.conf
RESULTS ?= results
run-ember: all
	$(MAKE) run MATRIX="$(EMBER_MATRIX)"
EMBER_MATRIX ?= experiments/matrices/paper.conf

run: all image-nvidia-uvm
	$(AGENT) run $(MATRIX) --qemu "$$(cat $(QEMU_PATH))" --kernel $(KERNEL) \
		--initrd $(INITRD) --results $(RESULTS) --accel $(ACCEL) \
		$(if $(wildcard $(NVIDIA_UVM_IMAGE)),--nvidia-uvm-initrd $(NVIDIA_UVM_IMAGE)); \
	rc=$$?; for m in $(MATRIX); do name=$$(sed -n 's/^name *= *//p' $$m); \
		$(AGENT) report $(RESULTS)/$$name --paper experiments/paper/table4.csv; done; \
	exit $$rc

# Every table of the paper's appendix beside the testbed's (issue 16): the
# matrices experiments/matrices/table*.conf, each reported beside its CSV,
# into one Markdown report whose path it prints (scripts/paper.sh: resumable;
# CONNECT="qemu+ssh://a/system ..." spreads the runs over libvirt hosts).
paper: all
	bash scripts/paper.sh $(AGENT) "$$(cat $(QEMU_PATH))" $(KERNEL) $(INITRD) \
		$(RESULTS) $(ACCEL)

# make paper's pool on this machine, then over libvirt hosts (PAPER_HOSTS
# network namespaces here, default 2, or CONNECT's URIs): both wall times
# side by side and every run's result compared (scripts/paper-hosts.sh).
paper-hosts: all
	bash scripts/paper-hosts.sh $(AGENT) "$$(cat $(QEMU_PATH))" $(KERNEL) $(INITRD) \
		$(RESULTS)/paper-hosts $(ACCEL)

# Where one VM run's host CPU goes (model, guest under TCG, QEMU, host page
# zeroing): one ember-run under perf (scripts/profile-run.sh).
PROFILE_RUN ?= -k pathfinder -x 1.5 -v uvm
PROFILE_RUN_CARD ?= h200-512m
PROFILE_RUN_DIR ?= $(BUILD)/profile-run
profile-run: all
	bash scripts/profile-run.sh $(AGENT) "$$(cat $(QEMU_PATH))" $(KERNEL) $(INITRD) \
		$(PROFILE_RUN_DIR) $(PROFILE_RUN_CARD) 1536 "$(PROFILE_RUN)" \
		$(BUILD)/models/libgpumodel.a

# The paper matrix at 1.5x on three card sizes with the scaling rule
# (experiments/matrices/scale-*.conf), one VM at a time, then per application
# the speedups over UVM at each size, their deviation across sizes and the
# adaptive runs' timer ticks and eager evictions (scripts/scale.sh).
# Resumable; SCALE_SIZES, SCALE_APPS narrow it, SCALE_REPORT=1 only reports.
scale: all
	bash scripts/scale.sh $(AGENT) "$$(cat $(QEMU_PATH))" $(KERNEL) $(INITRD) \
		$(RESULTS) $(ACCEL)

run-clean:
	for m in $(MATRIX); do rm -rf $(RESULTS)/$$(sed -n 's/^name *= *//p' $$m); done

# The figures (experiments/figures.conf): each regenerated by its command
# into its result set, experiments/results/NAME/ (scripts/figures.sh).
# make figures regenerates every figure, or those of FIGURES, the matrices
# of all of them in one job pool (CONNECT: over libvirt hosts), then the
# rest; figures-status says which are current; figures-docs rewrites the
# pages' figure blocks from the result sets, figures-docs-check (part of
# make test) fails when one differs.
FIGURES ?=
figures:
	bash scripts/figures.sh run $(FIGURES)

figures-status:
	@bash scripts/figures.sh status

figures-docs:
	bash scripts/figures.sh docs

figures-docs-check:
	@bash scripts/figures.sh docs-check

# The card's microbenchmarks (cuda/ubench, results in experiments/card-results/) beside
# the same set in a VM on the h200x16 profile: per row the card's median over
# its sessions (a file each; h200-calibrate.jsonl's first 158 lines, its
# calls 1-2: the lines after them copy sessions 3 and 5's rows, which count
# in their own files), the spread, the model, the error and the tolerance
# max(spread, 25 %); fitted and held-out rows apart (host-agent/calibrate.c).
CARD_DIR := experiments/card-results
CARD_UBENCH ?= $(CARD_DIR)/h200-calibrate.jsonl:158,$(CARD_DIR)/h200-ubench-3.jsonl,$(CARD_DIR)/h200-ubench-4.jsonl,$(CARD_DIR)/h200-ubench-5.jsonl,$(CARD_DIR)/h200-ubench-6.jsonl,$(CARD_DIR)/h200-calibrate-2.jsonl,$(CARD_DIR)/h200-calibrate-3.jsonl,$(CARD_DIR)/h200-calibrate-4.jsonl
# Under the measured driver cost (the default), cpu_insn_ps is fitted first:
# the set at CALIBRATE_FIT_PS's two values, a line per row through them,
# least squares on the fault-path rows, then the set at the fit, with the
# driver's cost per fault batch and per fault beside the card's fault
# latency. CALIBRATE_DRIVER_COST=assumed: one VM on the profile's constants.
CALIBRATE_DIR ?= $(BUILD)/calibrate
CALIBRATE_DRIVER_COST ?= measured
CALIBRATE_FIT_PS ?= 150,600
calibrate: all
	$(AGENT) calibrate --card $(CARD_UBENCH) --qemu "$$(cat $(QEMU_PATH))" \
		--kernel $(KERNEL) --initrd $(INITRD) --workdir $(CALIBRATE_DIR) \
		--accel $(ACCEL) --driver-cost $(CALIBRATE_DRIVER_COST) \
		$(if $(filter measured,$(CALIBRATE_DRIVER_COST)),--fit-cpu $(CALIBRATE_FIT_PS))

# The applications measured on the H200 (experiments/card-results/h200-apps*.jsonl,
# tests/hw/apps.sh; repeats and later kernel revisions) beside the same
# apps, variants and footprints in the testbed on h200x16 scaled by 1/32:
# per cell card ms (median of the runs), model ms and ratio, speedups over
# uvm, variant order with the card's ties, closing counts. Resumable like `run`;
# `make run-clean MATRIX=experiments/matrices/compare-card.conf` starts over.
CARD_MATRIX := experiments/matrices/compare-card.conf
CARD_SCALE := 32
CARD_APPS ?= experiments/card-results/h200-apps.jsonl experiments/card-results/h200-apps-2.jsonl \
	experiments/card-results/h200-apps-3.jsonl experiments/card-results/h200-apps-4.jsonl \
	experiments/card-results/h200-apps-5.jsonl experiments/card-results/h200-apps-6.jsonl
compare-card: all
	$(AGENT) run $(CARD_MATRIX) --qemu "$$(cat $(QEMU_PATH))" --kernel $(KERNEL) \
		--initrd $(INITRD) --results $(RESULTS) --accel $(ACCEL); \
	rc=$$?; $(BUILD)/host-agent/compare-card $(RESULTS)/compare-card \
		$(CARD_SCALE) $(CARD_APPS); exit $$rc

# make compare-card's runs unscaled, beside the card run at the testbed's
# own footprints (32, 64 and 128 MiB): which misses come from running the
# card's 1-4 GiB scaled by 1/32. Reads the runs make compare-card made.
CARD_APPS_SMALL ?= experiments/card-results/h200-apps-small.jsonl experiments/card-results/h200-apps-small-2.jsonl
compare-card-small: host
	$(BUILD)/host-agent/compare-card $(RESULTS)/compare-card 1 $(CARD_APPS_SMALL)

# The agreement page (docs/agreement.md's figure, ember-agent agreement):
# the paper matrix's result sets on ember.ko and nvidia-uvm beside the
# paper's Table 4, and compare-card's result set (the card's cells run at
# 1/CARD_SCALE) beside the card's CARD_APPS, into AGREEMENT_DIR (the page
# and its plot, linked from docs/), with docs/agreement-causes.md. Reads
# result sets only: no VM.
AGREEMENT_DIR ?= $(RESULTS)/agreement
AGREEMENT_SETS ?= experiments/results/run/paper experiments/results/paper-nvuvm/paper-nvuvm \
	$(wildcard experiments/results/paper-programs/paper-programs)
AGREEMENT_CARD_SET ?= experiments/results/compare-card/compare-card
agreement: host
	@mkdir -p $(AGREEMENT_DIR)
	@$(AGENT) agreement $(AGREEMENT_SETS) --paper experiments/paper/table4.csv \
		$(if $(wildcard $(AGREEMENT_CARD_SET)/results.jsonl),$(addprefix --card ,$(CARD_APPS))) \
		--card-testbed $(AGREEMENT_CARD_SET) \
		--card-scale $(CARD_SCALE) --causes docs/agreement-causes.md \
		--out $(AGREEMENT_DIR)/agreement.md \
		--plot-href ../experiments/results/agreement/agreement.png \
		--programs-page paper-programs.md

# Boot one VM with emgpu and show what the guest driver sees.
info: all
	$(AGENT) vm --qemu "$$(cat $(QEMU_PATH))" --kernel $(KERNEL) --initrd $(INITRD) \
		--profile $(PROFILE) --scenarios info --workdir $(BUILD)/info --accel $(ACCEL)

clean:
	rm -rf $(BUILD)

.PHONY: all deps model capture qemu guest host test $(TEST_STEP_TARGETS) $(TEST_LANE_TARGETS) nvidia-images image-reproducible vfio-dry-run fuzz-smoke unit table1-doc table1-doc-check profiles-doc profiles-doc-check trace-model-doc trace-model-doc-check results-format-doc results-format-doc-check guest-caps-doc guest-caps-doc-check experiments-doc experiments-doc-check inject-doc inject-doc-check modparams-doc modparams-doc-check docs-numbers-check paper-inputs-doc paper-inputs-doc-check qtest libvirt-test multihost-test inject-test loaded-test determinism-test driver-cost-test driver-cost counting-cost trace-replay-test figures-test inject-campaign inject-campaign-nvuvm sizes-test fuzz-ioctl fuzz-rm fuzz-rm-campaign fuzz-rm-report fuzz-rm-doc fuzz-rm-doc-check fuzz fuzz-qemu fuzz-qemu-report fuzz-campaign fuzz-report fuzz-doc fuzz-doc-check bench replay-bench paper-programs vm-test run run-clean figures figures-status figures-docs figures-docs-check scale profile-run paper paper-hosts report-test calibrate compare-card compare-card-small agreement info clean
