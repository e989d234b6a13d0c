# libpatchsite for aarch64, from an x86-64 host: the runtime cross-built into
# build/aarch64 (a make of its own, CROSS_COMPILE=aarch64-linux-gnu-), its
# samples run under qemu-aarch64 (tests/patchsite-aarch64/run.sh; about a
# minute).  Not under the sanitizers: qemu-user does not run ASan's or TSan's
# shadow mappings.
A64_CROSS ?= aarch64-linux-gnu-
A64_B     := build/aarch64
.PHONY: check-patchsite-aarch64
ifeq ($(ARCH)$(SAN)$(TSAN),x86_64)
check-unit: check-patchsite-aarch64
endif
check-patchsite-aarch64:
	$(Q)$(MAKE) --no-print-directory CROSS_COMPILE=$(A64_CROSS) B=$(A64_B) SAN= TSAN= \
		$(A64_B)/libpatchsite.a $(A64_B)/libpatchsite.so $(A64_B)/patchsite.o
	$(Q)sh tests/patchsite-aarch64/run.sh $(A64_B)

# Guest instructions per traced call under qemu (bench/patchsite/aarch64.sh, about 2 minutes).
.PHONY: bench-patchsite-aarch64
ifeq ($(ARCH)$(SAN)$(TSAN),x86_64)
bench: bench-patchsite-aarch64
endif
bench-patchsite-aarch64:
	$(Q)$(MAKE) --no-print-directory CROSS_COMPILE=$(A64_CROSS) B=$(A64_B) SAN= TSAN= \
		$(A64_B)/libpatchsite.so
	$(Q)sh bench/patchsite/aarch64.sh $(A64_B)
