# libpatchsite: the runtime (modules described in patchsite/internal.h).
#   build/libpatchsite.a   archive
#   build/libpatchsite.so  shared, also for LD_PRELOAD (exports patchsite_* only)
#   build/patchsite.o      one relocatable object (ld -r) to link in
# The runtime is never built with -pg; its objects are PIC so that one set
# serves all three outputs.
#
# The host arch ($(ARCH), Makefile) picks the arch's runtime files under
# patchsite/arch/$(ARCH)/, its host.h (-Ipatchsite/arch/$(ARCH)), its
# symbol-version map, and the lib/arch files the runtime links for
# instruction encodings (compiled again here, PIC and hidden, under
# $(B)/obj/ps/).  The arch ops interface is patchsite/arch/arch.h.
PS_ARCH_SRC_x86_64  := $(wildcard patchsite/arch/x86_64/*.c patchsite/arch/x86_64/*.S)
PS_ARCH_SRC_aarch64 := $(wildcard patchsite/arch/aarch64/*.c patchsite/arch/aarch64/*.S)
PS_ARCH_SRC_riscv64 := $(wildcard patchsite/arch/riscv64/*.c patchsite/arch/riscv64/*.S)
PS_LIBARCH_x86_64   := lib/noflag_proof.c
PS_LIBARCH_aarch64  := lib/arch/aarch64.c lib/arch/common.c lib/noflag_proof.c
PS_LIBARCH_riscv64  := lib/arch/riscv.c lib/arch/common.c lib/noflag_proof.c
PS_MAP_x86_64       := patchsite/arch/x86_64/libpatchsite.map
PS_MAP_aarch64      := patchsite/arch/aarch64/libpatchsite.map
PS_MAP_riscv64      := patchsite/arch/riscv64/libpatchsite.map
# riscv64 gcc 12 omits the frame pointer at -O2 and writes no unwind tables
# for C: the runtime has unwind tables, so that an unwinder passes through
# its own frames, and keeps the frame pointer for debuggers.
PS_CFLAGS_riscv64   := -fno-omit-frame-pointer -fasynchronous-unwind-tables
PS_MAP  := $(PS_MAP_$(ARCH))

# The trace directory's format and reader (data/), the renderers (render/) and the control
# channel's wire format (ctl/proto.c): one set of objects, in the runtime and in the patchsite
# command (patchsite/cmd/build.mk).
PS_SHARED_SRC := $(wildcard patchsite/data/*.c patchsite/render/*.c) patchsite/ctl/proto.c
PS_SHARED_OBJ := $(PS_SHARED_SRC:%.c=$(B)/obj/%.o)

# Folders by layer (patchsite/internal.h has the map): core/ < arch/ < sites/ < record/,
# events < api/ < ctl/ < hooks/.  ctl/proto.c is one of the shared objects above.
PS_SRC  := $(filter-out patchsite/ctl/proto.c,$(wildcard patchsite/api/*.c patchsite/hooks/*.c \
		patchsite/core/*.c \
		patchsite/sites/*.c patchsite/record/*.c patchsite/events/*.c \
		patchsite/ctl/*.c)) $(PS_ARCH_SRC_$(ARCH))
PS_OBJ  := $(patsubst %,$(B)/obj/%.o,$(basename $(PS_SRC))) \
	   $(PS_LIBARCH_$(ARCH):%.c=$(B)/obj/ps/%.o) $(PS_SHARED_OBJ)
PS_LIBS := $(B)/libpatchsite.a $(B)/libpatchsite.so $(B)/patchsite.o

$(PS_OBJ): ALL_CFLAGS += -D_GNU_SOURCE -fPIC -fvisibility=hidden -pthread \
	-Ipatchsite -Ipatchsite/arch -Ipatchsite/arch/$(ARCH) -DPS_HOST_ARCH=ps_arch_$(ARCH) \
	$(PS_CFLAGS_$(ARCH))

$(B)/obj/ps/%.o: %.c
	@mkdir -p $(dir $@)
	$(call quiet,CC,$@)$(CC) $(ALL_CFLAGS) -c $< -o $@

all: $(PS_LIBS) $(B)/patchsite-cc $(B)/patchsite-c++

# What a program is built with, for make install (Makefile): the three forms of the runtime,
# the compiler wrappers (next to recordmcount, which they run), the headers, a pkg-config file.
INSTALL_FILES += 644:$(B)/libpatchsite.so:lib/libpatchsite.so 644:$(B)/libpatchsite.a:lib/libpatchsite.a \
	644:$(B)/patchsite.o:lib/patchsite.o 644:$(B)/libpatchsite.pc:lib/pkgconfig/libpatchsite.pc \
	755:$(B)/patchsite-cc:bin/patchsite-cc 755:$(B)/patchsite-c++:bin/patchsite-c++ \
	$(foreach h,patchsite.h patchsite_event.h patchsite_branch.h,644:include/$(h):include/$(h)) \
	644:man/libpatchsite.3:share/man/man3/libpatchsite.3 \
	644:man/patchsite_event.3:share/man/man3/patchsite_event.3

# The pkg-config file, for this PREFIX (rewritten when it changes); its version is the
# runtime's symbol version (PATCHSITE_N in the version script).
PS_VERSION = $(shell sed -n 's/^PATCHSITE_\([0-9][0-9]*\) {.*/\1/p' $(PS_MAP) | tail -n 1)
.PHONY: pc-always
$(B)/libpatchsite.pc: patchsite/libpatchsite.pc.in $(PS_MAP) pc-always
	@mkdir -p $(B)
	$(Q)sed -e '/^#/d' -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(PS_VERSION)|' $< >$@.new && \
		if cmp -s $@.new $@; then rm -f $@.new; else mv -f $@.new $@; fi

# The compiler wrapper (scripts/patchsite-cc): -pg objects get our recordmcount, links no -pg.
$(B)/patchsite-cc $(B)/patchsite-c++: scripts/patchsite-cc
	$(call quiet,GEN,$@)mkdir -p $(B) && cp $< $@ && chmod +x $@

# One member, the whole runtime (patchsite.o): a program that links the archive and names
# any of it (an API call, dlopen) gets all of it, the constructor included.  With one
# member per file the linker would take only the files named, and the constructor (api.o)
# is named by no lower file: the runtime's files point down, never up to it.
$(B)/libpatchsite.a: $(B)/patchsite.o
	$(call quiet,AR,$@)rm -f $@ && $(AR) rcs $@ $^

# nodelete: a dlclose must not unmap what patched sites and the control
# channel's thread still run.
$(B)/libpatchsite.so: $(PS_OBJ) $(PS_MAP)
	$(call quiet,LD,$@)$(CC) -shared -Wl,--version-script=$(PS_MAP) \
		-Wl,-z,now,-z,noexecstack,-z,nodelete $(LDFLAGS) -o $@ $(PS_OBJ) -pthread

$(B)/patchsite.o: $(PS_OBJ)
	$(call quiet,LD,$@)$(LD) -r -o $@ $(PS_OBJ)

.PHONY: check-patchsite check-feat check-tsan check-patchsite-tsan bench-patchsite
check-integration: check-patchsite
# Each suite is a target of its own, so that make check's -j2 runs two at once
# (each in a directory of its own under $TMPDIR).  The slowest first.
PS_SUITES := realprobes realprobes-gtest libc_args_real run run-forms unwind record live attach libcall libcall_dl noplt sched profile feat perfetto report_dist ctl dwarf_args retprobe retprobe_fast branches probes probe_fast lto cyg events report_graph flamegraph notfound srcline filter_if auto_args libc_args symsort kprobe_syntax uft script readfilt uftconf uftreport readtrig noflag noflag_real dumpgraph
PS_MODE    = $(if $(filter 1,$(SAN)),san,plain)
check-patchsite: $(addprefix check-ps-,$(PS_SUITES))
check-ps-%: $(PS_LIBS) $(B)/patchsite $(B)/recordmcount $(B)/patchsite-cc $(B)/patchsite-c++
	$(Q)t0=$$(date +%s); $(PS_ENV_$*) sh tests/patchsite/$(or $(PS_SCRIPT_$*),$*).sh $(B) $(PS_MODE); \
	rc=$$?; echo "check-ps-$* ($(PS_MODE)): $$(($$(date +%s) - t0)) s"; exit $$rc
# noflag.sh proves one sample with patchverify (its form c sites); noflag_real all of its files.
check-ps-noflag check-ps-noflag_real: $(B)/patchverify
# run.sh's build forms in two halves: the first with the sections after them.
PS_ENV_run       := PS_FORMS="nonpie pie nop pfe piecf pfecf"
PS_ENV_run-forms := PS_FORMS="ret mcount mcountpie pg pgpie rmc rmcpie" PS_SECTIONS=no
PS_SCRIPT_run-forms := run
# Real programs from Debian's archive (issue 43): readelf (binutils-source) and googletest's
# samples, built once into $(BASE)/real (about a minute each on a fresh machine; the
# sanitized run reuses them), probed against gdb; record -a on readelf against rtld-audit.
PS_REAL := $(abspath $(BASE))/real
PS_ENV_realprobes       := PS_REAL=$(PS_REAL) REALPROBES_WHAT=readelf
PS_ENV_realprobes-gtest := PS_REAL=$(PS_REAL) REALPROBES_WHAT=gtest
PS_SCRIPT_realprobes-gtest := realprobes
PS_ENV_libc_args_real   := PS_REAL=$(PS_REAL)

# Many attach -> trace -> detach cycles (issue #26): 1,000 on one process, 100 fresh processes
# injected once each (minutes; not part of make check, whose attach.sh runs 25).
.PHONY: check-attach-cycles
check-attach-cycles: $(B)/libpatchsite.so $(B)/patchsite
	$(Q)sh tests/patchsite/attach_cycles.sh $(B) $(or $(CYCLES),1000) $(or $(FRESH),100)

# Probes named from DWARF on real programs from Debian's archive, against gdb (issue #27, #43):
# readelf and googletest's samples, each by gcc/g++ and clang/clang++, then the same for
# aarch64 under qemu (minutes: make check runs the gcc and g++ builds; .ci/run runs this).
.PHONY: check-realprobes
check-realprobes: $(B)/libpatchsite.so $(B)/patchsite $(B)/recordmcount $(B)/patchsite-cc $(B)/patchsite-c++
	$(Q)PS_REAL=$(PS_REAL) sh tests/patchsite/realprobes.sh $(B) $(PS_MODE) full
	$(Q)$(if $(filter x86_64,$(ARCH)),$(MAKE) --no-print-directory check-realprobes-aarch64,:)

# The recording features alone (part of check-patchsite).
check-feat: $(PS_LIBS) $(B)/patchsite
	$(Q)sh tests/patchsite/feat.sh $(B) $(if $(filter 1,$(SAN)),san,plain)

# The stress test under ThreadSanitizer, with libpatchsite built for it in build/tsan
# (about 30 s on a 2-core machine; part of make check).
check-tsan:
	$(Q)$(MAKE) --no-print-directory SAN= TSAN=1 check-patchsite-tsan
check-patchsite-tsan: $(B)/libpatchsite.a $(B)/patchsite.o $(B)/patchsite
	$(Q)sh tests/patchsite/tsan.sh $(B)

# Start-up, live patching and per-call costs over 100,000 generated functions
# (the generated objects are kept in $(B)/bench/patchsite: the first run compiles for minutes).
bench: bench-patchsite
bench-patchsite: $(B)/libpatchsite.a $(B)/libpatchsite.so $(B)/patchverify $(B)/patchsite
	$(Q)sh bench/patchsite/run.sh $(B) $(or $(PS_BENCH_N),100000)

# Attach at the worst moments, 1,000 fresh processes of every attachable form beside a load
# on both cores (issue 44; minutes: .ci/run runs it, make check does not).  N=... for fewer.
.PHONY: check-attach-stress
check-attach-stress: $(B)/libpatchsite.so $(B)/patchsite
	$(Q)sh tests/patchsite/attach_stress.sh $(B) $(or $(N),1000)
