# libpatchsite: the runtime (modules described in patchsite/internal.h).
#   build/libpatchsite.a   archive
#   build/libpatchsite.so  shared, also for LD_PRELOAD (exports patchsite_* only)
#   build/patchsite.o      one relocatable object (ld -r) to link in
# The runtime is never built with -pg; its objects are PIC so that one set
# serves all three outputs.
#
# The host arch ($(ARCH), Makefile) picks the arch's runtime files, its
# host.h (-Ipatchsite/$(ARCH)), its symbol-version map, and the lib/arch
# files the runtime links for instruction encodings (compiled again here,
# PIC and hidden, under $(B)/obj/ps/).
PS_ARCH_SRC_x86_64  := $(wildcard patchsite/x86_64/*.c)
PS_ARCH_SRC_aarch64 := $(wildcard patchsite/aarch64/*.c patchsite/aarch64/*.S)
PS_LIBARCH_aarch64  := lib/arch/aarch64.c lib/arch/common.c
PS_MAP_x86_64       := patchsite/x86_64/libpatchsite.map
PS_MAP_aarch64      := patchsite/aarch64/libpatchsite.map
PS_MAP  := $(PS_MAP_$(ARCH))

PS_SRC  := $(wildcard patchsite/*.c) $(PS_ARCH_SRC_$(ARCH))
# The trace directory's reader and renderers, shared with the patchsite command (patchsite/cmd/).
PS_OBJ  := $(patsubst %,$(B)/obj/%.o,$(basename $(PS_SRC))) \
	   $(PS_LIBARCH_$(ARCH):%.c=$(B)/obj/ps/%.o) \
	   $(B)/obj/patchsite/cmd/psread.o $(B)/obj/patchsite/cmd/render.o \
	   $(B)/obj/patchsite/cmd/ctlproto.o \
	   $(B)/obj/patchsite/cmd/psevents.o \
	   $(B)/obj/patchsite/cmd/branches.o
PS_LIBS := $(B)/libpatchsite.a $(B)/libpatchsite.so $(B)/patchsite.o

$(PS_OBJ): ALL_CFLAGS += -D_GNU_SOURCE -fPIC -fvisibility=hidden -pthread \
	-Ipatchsite -Ipatchsite/$(ARCH) -DPS_HOST_ARCH=ps_arch_$(ARCH)

$(B)/obj/ps/%.o: %.c
	@mkdir -p $(dir $@)
	$(call quiet,CC,$@)$(CC) $(ALL_CFLAGS) -c $< -o $@

all: $(PS_LIBS) $(B)/patchsite-cc $(B)/patchsite-c++

# The compiler wrapper (scripts/patchsite-cc): -pg objects get our recordmcount, links no -pg.
$(B)/patchsite-cc $(B)/patchsite-c++: scripts/patchsite-cc
	$(call quiet,GEN,$@)mkdir -p $(B) && cp $< $@ && chmod +x $@

$(B)/libpatchsite.a: $(PS_OBJ)
	$(call quiet,AR,$@)rm -f $@ && $(AR) rcs $@ $^

# nodelete: a dlclose must not unmap what patched sites and the control
# channel's thread still run.
$(B)/libpatchsite.so: $(PS_OBJ) $(PS_MAP)
	$(call quiet,LD,$@)$(CC) -shared -Wl,--version-script=$(PS_MAP) \
		-Wl,-z,now,-z,noexecstack,-z,nodelete $(LDFLAGS) -o $@ $(PS_OBJ) -pthread

$(B)/patchsite.o: $(PS_OBJ)
	$(call quiet,LD,$@)$(LD) -r -o $@ $(PS_OBJ)

.PHONY: check-patchsite check-feat check-tsan check-patchsite-tsan bench-patchsite
check-unit: check-patchsite
check-patchsite: $(PS_LIBS) $(B)/patchsite $(B)/recordmcount $(B)/patchsite-cc $(B)/patchsite-c++
	$(Q)sh tests/patchsite/run.sh $(B) $(if $(filter 1,$(SAN)),san,plain)
	$(Q)sh tests/patchsite/record.sh $(B) $(if $(filter 1,$(SAN)),san,plain)
	$(Q)sh tests/patchsite/live.sh $(B) $(if $(filter 1,$(SAN)),san,plain)
	$(Q)sh tests/patchsite/unwind.sh $(B) $(if $(filter 1,$(SAN)),san,plain)
	$(Q)sh tests/patchsite/ctl.sh $(B) $(if $(filter 1,$(SAN)),san,plain)
	$(Q)sh tests/patchsite/attach.sh $(B) $(if $(filter 1,$(SAN)),san,plain)
	$(Q)sh tests/patchsite/feat.sh $(B) $(if $(filter 1,$(SAN)),san,plain)
	$(Q)sh tests/patchsite/events.sh $(B) $(if $(filter 1,$(SAN)),san,plain)
	$(Q)sh tests/patchsite/branches.sh $(B) $(if $(filter 1,$(SAN)),san,plain)

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
bench-patchsite: $(B)/libpatchsite.a $(B)/libpatchsite.so
	$(Q)sh bench/patchsite/run.sh $(B) $(or $(PS_BENCH_N),100000)
