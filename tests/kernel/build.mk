# make check-kernel: our recordmcount and patchverify on a real Linux 6.1 build
# (tests/kernel/run.sh).  Long (tens of minutes per arch), so not part of
# `make check`.  Choose with KERNEL_ARCHES= (arm powerpc mips x86_64) and
# KERNEL_DIRS= (kernel mm lib); KERNEL_JOBS= sets make -j (default 2).
KERNEL_ARCHES ?= arm powerpc mips x86_64
KERNEL_DIRS   ?= kernel mm lib
KERNEL_JOBS   ?= 2
.PHONY: check-kernel
check-kernel: $(B)/recordmcount
	-$(Q)$(if $(wildcard verify/build.mk),$(MAKE) --no-print-directory $(B)/patchverify)
	$(Q)KERNEL_ARCHES="$(KERNEL_ARCHES)" KERNEL_DIRS="$(KERNEL_DIRS)" \
		KERNEL_JOBS="$(KERNEL_JOBS)" bash tests/kernel/run.sh $(B)
