# One non-recursive Makefile for the whole tree.  Each directory adds its
# targets in its own build.mk; everything lands in $(B)/.
#   make            build the tools and libraries
#   make demo       install missing build dependencies, build, record a sample
#   make check      all tests, then again under ASan+UBSan, then libpatchsite's
#                   stress test under TSan (make check-tsan)
#   make bench      benchmarks side by side with the reference tools
#   make V=1        show full commands;  make SAN=1  sanitizer build in build/san
#   make CROSS_COMPILE=aarch64-linux-gnu-   cross build into build/aarch64

PREFIX   ?= /usr/local
DESTDIR  ?=
CC       ?= cc
ifneq ($(CROSS_COMPILE),)
CC       := $(CROSS_COMPILE)gcc
AR       := $(CROSS_COMPILE)ar
LD       := $(CROSS_COMPILE)ld
PKG_CONFIG ?= $(CROSS_COMPILE)pkg-config
endif
PKG_CONFIG ?= pkg-config
# The host arch (what the runtime is built for), chosen here and only here:
# the compiler's target triplet.  Per-arch sources are picked by $(ARCH).
# With no compiler yet (a fresh machine) ARCH is empty: `make demo` and
# `make check` install one first (scripts/deps.sh) and build in a new make;
# every other target says what is missing when it runs (NO_CC below).
ARCHES   := x86_64 aarch64 riscv64
ARCH     := $(firstword $(subst -, ,$(shell $(CC) -dumpmachine 2>/dev/null)))
ifneq ($(ARCH),)
ifeq ($(filter $(ARCH),$(ARCHES)),)
$(error unsupported host architecture '$(ARCH)' ($(CC) -dumpmachine); supported: $(ARCHES))
endif
endif
ifeq ($(CROSS_COMPILE),)
BASE     := build
else
BASE     := build/$(ARCH)
# The programs that link the target's libelf, libdw or capstone (the patchsite command,
# recordmcount, patchverify) are built where the target's libraries are installed (Debian
# multiarch: libdw-dev:arm64 ...); the rest (runtime, wrappers, test programs) always is.
# $(call target_lacks,elf dw): the libraries of the list the cross compiler does not find.
target_lacks = $(foreach l,$(1),$(if $(filter /%,$(shell $(CC) -print-file-name=lib$(l).so)),,lib$(l)))
# Tests and benchmarks run on the build machine, which cross-builds what it needs.
ifneq ($(filter check% bench%,$(MAKECMDGOALS)),)
$(error make $(filter check% bench%,$(MAKECMDGOALS)) with CROSS_COMPILE: run it without; on x86-64 it cross-builds the aarch64 runtime and runs its tests under qemu)
endif
endif
B        ?= $(BASE)
# $(call built_if_has,FILE,LIBS): FILE, or nothing (FILE named in LEFT_OUT) when the target
# lacks one of LIBS (natively: always FILE; a missing library is the linker's error there).
built_if_has = $(if $(call target_lacks,$(2)),$(eval LEFT_OUT += $(notdir $(1))($(strip \
	$(call target_lacks,$(2))))),$(1))
CFLAGS   ?= -O2 -g
WARN     := -Wall -Wextra -Werror
ifeq ($(SAN),1)
B        := $(BASE)/san
CFLAGS   += -O1 -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
LDFLAGS  += -fsanitize=address,undefined
endif
ifeq ($(TSAN),1)
B        := $(BASE)/tsan
CFLAGS   += -O1 -fsanitize=thread -fno-omit-frame-pointer
LDFLAGS  += -fsanitize=thread
endif
PKG_ELF_CFLAGS := $(shell $(PKG_CONFIG) --cflags libelf 2>/dev/null)
PKG_ELF_LIBS   := $(shell $(PKG_CONFIG) --libs libelf 2>/dev/null || echo -lelf)
ALL_CFLAGS = $(WARN) -std=gnu11 $(CFLAGS) -Iinclude -Ilib/arch $(PKG_ELF_CFLAGS) -MMD -MP

ifneq ($(V),1)
Q        := @
quiet     = @printf '  %-7s %s\n' $(1) $(2);
endif

.PHONY: all tools demo check check-unit check-integration check-static check-golden check-san bench \
	install uninstall clean deps
# LEFT_OUT: "PROGRAM(libX libY)" for each program a cross build cannot link (each build.mk
# adds its own); said in one line once the rest is built.
all: $(if $(ARCH),tools)
	$(if $(strip $(LEFT_OUT)),@echo "$(LEFT_OUT_NOTE)")
LEFT_OUT_NOTE = note: left out of the $(ARCH) build in $(B): $(strip $(LEFT_OUT)), the \
	target's libraries not installed (Debian: their -dev:$(DEB_ARCH) packages); built: \
	libpatchsite.a, libpatchsite.so, patchsite.o, patchsite-cc, patchsite-c++ and the test programs
DEB_ARCH = $(subst x86_64,amd64,$(subst aarch64,arm64,$(ARCH)))

$(B)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(call quiet,CC,$@)$(CC) $(ALL_CFLAGS) -c $< -o $@

$(B)/obj/%.o: %.S
	@mkdir -p $(dir $@)
	$(call quiet,AS,$@)$(CC) $(ALL_CFLAGS) -c $< -o $@

ifneq ($(ARCH),)
include lib/build.mk recordmcount/build.mk man/build.mk
include $(wildcard verify/build.mk patchsite/build.mk patchsite/cmd/build.mk tests/*/build.mk tests/golden.mk bench/events/build.mk)
# make install: each build.mk adds MODE:FILE:PATH to INSTALL_FILES (PATH under $(PREFIX));
# make uninstall removes exactly those paths (the directories stay: they may be shared).
install: $(foreach e,$(INSTALL_FILES),$(word 2,$(subst :, ,$(e))))
	$(Q)for e in $(INSTALL_FILES); do set -- $$(echo "$$e" | tr : ' '); \
		install -D -m "$$1" "$$2" "$(DESTDIR)$(PREFIX)/$$3" || exit 1; \
		printf '  %-7s %s\n' INSTALL "$(DESTDIR)$(PREFIX)/$$3"; done
uninstall:
	$(Q)for e in $(INSTALL_FILES); do rm -f "$(DESTDIR)$(PREFIX)/$${e##*:}" || exit 1; \
		printf '  %-7s %s\n' RM "$(DESTDIR)$(PREFIX)/$${e##*:}"; done
else
# No compiler: only deps, demo, check, check-fresh and clean can run.
NO_CC = @echo "make $@: needs a C compiler and '$(CC) -dumpmachine' failed: run 'make deps' as root" \
	"(Debian 12: installs the build dependencies), or 'make demo' / 'make check', which do it first" >&2; exit 1
NO_CC_GOALS := $(filter-out deps demo check check-fresh clean,$(or $(MAKECMDGOALS),all))
.PHONY: $(NO_CC_GOALS)
$(NO_CC_GOALS):
	$(NO_CC)
endif

.PHONY: check-fresh
deps:
	$(Q)sh scripts/deps.sh

# demo and check install what is missing first, then build in a new make,
# which sees the compiler deps may just have installed.
demo: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)sh scripts/demo.sh $(B)
	$(Q)sh scripts/demo-trace.sh $(B)

# The suites run two at a time (this is a 2-core machine's make check: CHECK_JOBS=N for
# more), each suite's output printed whole when it ends.  Their groups (each build.mk adds
# its suites to one):
#   check-unit         each tool on its own inputs: tests/unit, recordmcount, bad input,
#                      interrupted rewrites, patchverify and --noflag
#   check-integration  the runtime and the patchsite command on real programs
#                      (tests/patchsite), README and the man pages run as printed, the
#                      cross builds and make install as a user types them
#   check-static       the tree itself: the layer map, no path of one machine, man pages
#   check-golden       committed cross-arch objects against their oracles' tables
#   check-qemu         the runtime for aarch64 and riscv64 under qemu-user
CHECK_GROUPS = check-unit check-integration check-static check-golden
CHECK_JOBS ?= 2
CHECK_PAR   = -j$(CHECK_JOBS) --output-sync=target
check: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)$(MAKE) --no-print-directory $(CHECK_PAR) $(CHECK_GROUPS) check-qemu
	$(Q)$(MAKE) --no-print-directory SAN=1 check-san
	$(Q)$(MAKE) --no-print-directory check-tsan

# README's first command in a fresh Debian 12 chroot (root; part of .ci/run).
check-fresh:
	$(Q)sh scripts/check-fresh.sh

check-san: all
	$(Q)$(MAKE) --no-print-directory SAN=1 $(CHECK_PAR) $(CHECK_GROUPS)

clean:
	rm -rf build

-include $(shell find $(B)/obj -name '*.d' 2>/dev/null)
