# libpatchsite for aarch64, from an x86-64 host: the runtime cross-built into
# build/aarch64 (a make of its own, CROSS_COMPILE=aarch64-linux-gnu-), its
# samples run under qemu-aarch64 (tests/patchsite-qemu/run.sh: the entry
# forms and the -pg ones, unwind.cc, gdb's breakpoint counts: 1.7 to 5.5
# minutes, 73 s of CPU, on two cores shared with seven other builds).  Not under
# the sanitizers: qemu-user does not run ASan's or TSan's shadow mappings.
A64_CROSS ?= aarch64-linux-gnu-
A64_B     := build/aarch64
.PHONY: check-qemu check-patchsite-aarch64
# make check runs it in check-qemu, beside the native groups (check-unit, check-integration, ...).
ifeq ($(ARCH)$(SAN)$(TSAN),x86_64)
check-qemu: check-patchsite-aarch64
endif
check-patchsite-aarch64:
	$(Q)$(MAKE) --no-print-directory CROSS_COMPILE=$(A64_CROSS) B=$(A64_B) SAN= TSAN= \
		$(A64_B)/libpatchsite.a $(A64_B)/libpatchsite.so $(A64_B)/patchsite.o
	$(Q)sh tests/patchsite-qemu/run.sh $(A64_B)
	$(Q)sh tests/patchsite-qemu/probes.sh $(A64_B) $(B)
	$(Q)sh tests/patchsite-qemu/retprobe.sh $(A64_B) $(B)
	$(Q)sh tests/patchsite-qemu/libcall.sh $(A64_B)
	$(Q)sh tests/patchsite-qemu/libc_args.sh $(A64_B) $(B)
	$(Q)PS_REAL=$(PS_REAL) sh tests/patchsite-qemu/realprobes.sh $(A64_B) $(B) small	# readelf by gcc, against gdb
	$(Q)sh tests/patchsite-qemu/noflag.sh $(A64_B)

# Probes named from DWARF on readelf (Debian's binutils-source) and googletest's samples
# (Debian's googletest) built for aarch64 (gcc, clang, g++, clang++), against gdb-multiarch
# through qemu's gdb stub (issue #27; minutes: not part of make check, whose aarch64 suite
# runs its small version, readelf by gcc; make check-realprobes runs it after the x86-64 one).
.PHONY: check-realprobes-aarch64
check-realprobes-aarch64: $(B)/patchsite
	$(Q)$(MAKE) --no-print-directory CROSS_COMPILE=$(A64_CROSS) B=$(A64_B) SAN= TSAN= \
		$(A64_B)/libpatchsite.so
	$(Q)PS_REAL=$(PS_REAL) sh tests/patchsite-qemu/realprobes.sh $(A64_B) $(B)

# Guest instructions per traced call under qemu (bench/patchsite/aarch64.sh, about 2 minutes).
.PHONY: bench-patchsite-aarch64
ifeq ($(ARCH)$(SAN)$(TSAN),x86_64)
bench: bench-patchsite-aarch64
endif
bench-patchsite-aarch64:
	$(Q)$(MAKE) --no-print-directory CROSS_COMPILE=$(A64_CROSS) B=$(A64_B) SAN= TSAN= \
		$(A64_B)/libpatchsite.so
	$(Q)sh bench/patchsite/aarch64.sh $(A64_B)

# Built with the aarch64 or riscv64 runtime (make CROSS_COMPILE=aarch64-linux-gnu- or
# riscv64-linux-gnu-, or make on such a machine): the runtime's test programs, to run
# there or under qemu:
#   api, stress THREADS ROUNDS CALLS   linked with libpatchsite.a
#   basic                              for LD_PRELOAD=libpatchsite.so PATCHSITE_TRACER=...
# The traced parts (testdata/patchsite) with the arch's -fpatchable-function-entry
# form, the harness without.
XT_PFE_aarch64 := -fpatchable-function-entry=2
XT_PFE_riscv64 := -fpatchable-function-entry=4 -falign-functions=4
ifneq ($(XT_PFE_$(ARCH)),)
A64_TESTS := $(addprefix $(B)/tests/patchsite/,api stress basic)
all: $(A64_TESTS)

$(B)/tests/patchsite/%.pfe.o: testdata/patchsite/%.c
	@mkdir -p $(dir $@)
	$(call quiet,CC,$@)$(CC) -O2 -g $(XT_PFE_$(ARCH)) -c $< -o $@
$(B)/tests/patchsite/%.o: testdata/patchsite/drivers/%.c
	@mkdir -p $(dir $@)
	$(call quiet,CC,$@)$(CC) -O2 -g -Iinclude -c $< -o $@
$(B)/tests/patchsite/api $(B)/tests/patchsite/stress: $(B)/tests/patchsite/%: \
		$(B)/tests/patchsite/%.o $(B)/tests/patchsite/work.pfe.o $(B)/libpatchsite.a
	$(call quiet,LD,$@)$(CC) $(LDFLAGS) -o $@ $^ -pthread
$(B)/tests/patchsite/basic: $(B)/tests/patchsite/basic.pfe.o
	$(call quiet,LD,$@)$(CC) $(LDFLAGS) -o $@ $^
endif

# libpatchsite for riscv64, the same way: cross-built into build/riscv64
# (CROSS_COMPILE=riscv64-linux-gnu-), the same case list run under
# qemu-riscv64 (tests/patchsite-qemu/run.sh BUILD riscv64; about two
# minutes), with and without compressed instructions.
RV64_CROSS ?= riscv64-linux-gnu-
RV64_B     := build/riscv64
.PHONY: check-patchsite-riscv64
ifeq ($(ARCH)$(SAN)$(TSAN),x86_64)
check-qemu: check-patchsite-riscv64
endif
check-patchsite-riscv64:
	$(Q)$(MAKE) --no-print-directory CROSS_COMPILE=$(RV64_CROSS) B=$(RV64_B) SAN= TSAN= \
		$(RV64_B)/libpatchsite.a $(RV64_B)/libpatchsite.so $(RV64_B)/patchsite.o
	$(Q)sh tests/patchsite-qemu/run.sh $(RV64_B) riscv64
	$(Q)sh tests/patchsite-qemu/libcall.sh $(RV64_B) riscv64

# Guest instructions per traced call under qemu-riscv64 (the same script, about 2 minutes).
.PHONY: bench-patchsite-riscv64
ifeq ($(ARCH)$(SAN)$(TSAN),x86_64)
bench: bench-patchsite-riscv64
endif
bench-patchsite-riscv64:
	$(Q)$(MAKE) --no-print-directory CROSS_COMPILE=$(RV64_CROSS) B=$(RV64_B) SAN= TSAN= \
		$(RV64_B)/libpatchsite.so
	$(Q)sh bench/patchsite/aarch64.sh $(RV64_B) riscv64
