# libFuzzer harnesses (clang, -fsanitize=fuzzer,address,undefined), built in
# build/fuzz whatever B is.
#   make fuzz FUZZ_SECONDS=N   run each harness for N seconds, one at a time
#   make fuzz-build            only build them
#   make fuzz-regress          run every harness over testdata/bad once
#   make fuzz-ci               what CI runs: fuzz-regress, then FUZZ_CI_RUNS
#                              executions of each harness with a fixed seed
# Corpora grow in build/fuzz/corpus/<harness>; findings land in
# build/fuzz/artifacts.  Keep each minimised finding in testdata/bad/.
FUZZ_CC      ?= $(firstword $(shell command -v clang-14 clang 2>/dev/null) clang)
FUZZ_SECONDS ?= 60
FUZZ_B       := build/fuzz
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_CFLAGS  := $(WARN) -std=gnu11 -g -O1 -fno-omit-frame-pointer $(FUZZ_SAN) \
		-fsanitize=fuzzer-no-link -Iinclude -Ilib/arch -Irecordmcount -Iverify -Itests/fuzz -Itests/verify \
		$(PKG_ELF_CFLAGS) $(shell $(PKG_CONFIG) --cflags capstone 2>/dev/null) -MMD -MP
FUZZ_LIBS    := $(PKG_ELF_LIBS) $(shell $(PKG_CONFIG) --libs capstone 2>/dev/null || echo -lcapstone) \
		$(shell $(PKG_CONFIG) --libs liblzma libzstd zlib 2>/dev/null || echo -llzma -lzstd -lz)

FUZZ_CORE    := $(LIBCORE_SRC:%.c=$(FUZZ_B)/obj/%.o) $(FUZZ_B)/obj/tests/fuzz/common.o
FUZZ_RMC     := $(filter-out %/main.o,$(RECORDMCOUNT_SRC:%.c=$(FUZZ_B)/obj/%.o))
FUZZ_VERIFY  := $(filter-out %/main.o,$(patsubst %.c,$(FUZZ_B)/obj/%.o,$(wildcard verify/*.c)))
FUZZ_HARNESS := elfobj recordmcount $(if $(wildcard verify/audit.c),patchverify noflag) psread ctlproto evfilter branches \
		profile probe attachelf a64pg
FUZZ_BINS    := $(FUZZ_HARNESS:%=$(FUZZ_B)/fuzz_%)

$(FUZZ_B)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(call quiet,FUZZCC,$@)$(FUZZ_CC) $(FUZZ_CFLAGS) -c $< -o $@

$(FUZZ_B)/fuzz_elfobj: $(FUZZ_B)/obj/tests/fuzz/fuzz_elfobj.o $(FUZZ_CORE)
$(FUZZ_B)/fuzz_recordmcount: $(FUZZ_B)/obj/tests/fuzz/fuzz_recordmcount.o $(FUZZ_RMC) $(FUZZ_CORE)
$(FUZZ_B)/fuzz_patchverify: $(FUZZ_B)/obj/tests/fuzz/fuzz_patchverify.o $(FUZZ_VERIFY) $(FUZZ_CORE)
# patchverify --noflag (verify/noflag_*.c) and the proof-file reader (lib/noflag_proof.c).
# With the sweep's quick decoder checked against Capstone (tests/verify/nfquick_agree.c).
$(FUZZ_B)/fuzz_noflag: $(FUZZ_B)/obj/tests/fuzz/fuzz_noflag.o $(FUZZ_B)/obj/tests/verify/nfquick_agree.o \
	$(FUZZ_VERIFY) $(FUZZ_CORE)
# The aarch64 -pg prologue walk (lib/arch/aarch64.c), which the runtime runs on every function.
$(FUZZ_B)/fuzz_a64pg: $(FUZZ_B)/obj/tests/fuzz/fuzz_a64pg.o $(FUZZ_CORE)
# The trace directory reader (patchsite/data/), with every renderer (patchsite/render/).
FUZZ_READERS := $(patsubst %.c,$(FUZZ_B)/obj/%.o,$(wildcard patchsite/data/*.c patchsite/render/*.c))
$(FUZZ_B)/fuzz_psread: $(FUZZ_B)/obj/tests/fuzz/fuzz_psread.o $(FUZZ_READERS) $(FUZZ_CORE)
# The branches file reader (patchsite/data/read_branches.c) and its two outputs.
$(FUZZ_B)/fuzz_branches: $(FUZZ_B)/obj/tests/fuzz/fuzz_branches.o $(FUZZ_READERS) $(FUZZ_CORE)
# The profile file reader (patchsite/data/read_profile.c), trace_stat/function and histograms.
$(FUZZ_B)/fuzz_profile: $(FUZZ_B)/obj/tests/fuzz/fuzz_profile.o $(FUZZ_READERS) $(FUZZ_CORE)
$(FUZZ_READERS) $(FUZZ_B)/obj/patchsite/ctl/proto.o $(FUZZ_B)/obj/tests/fuzz/fuzz_psread.o \
$(FUZZ_B)/obj/tests/fuzz/fuzz_branches.o $(FUZZ_B)/obj/tests/fuzz/fuzz_profile.o: FUZZ_CFLAGS += -D_GNU_SOURCE
# The control channel's request and reply parsing (the runtime's channel thread, the client).
$(FUZZ_B)/fuzz_ctlproto: $(FUZZ_B)/obj/tests/fuzz/fuzz_ctlproto.o $(FUZZ_B)/obj/patchsite/ctl/proto.o
# The events' filter parser: it keeps no runtime state, so it links alone.
$(FUZZ_B)/fuzz_evfilter: $(FUZZ_B)/obj/tests/fuzz/fuzz_evfilter.o $(FUZZ_B)/obj/patchsite/events/event_filter.o
$(FUZZ_B)/obj/patchsite/events/event_filter.o $(FUZZ_B)/obj/tests/fuzz/fuzz_evfilter.o: FUZZ_CFLAGS += \
	-D_GNU_SOURCE -Ipatchsite
# The dynamic_events parser: no runtime state either.
$(FUZZ_B)/fuzz_probe: $(FUZZ_B)/obj/tests/fuzz/fuzz_probe.o $(FUZZ_B)/obj/patchsite/events/probe_parse.o
$(FUZZ_B)/obj/patchsite/events/probe_parse.o $(FUZZ_B)/obj/tests/fuzz/fuzz_probe.o: FUZZ_CFLAGS += \
	-D_GNU_SOURCE -Ipatchsite
# What attach reads of a target's ELF files (patchsite/cmd/attach/attach_target.c).
$(FUZZ_B)/fuzz_attachelf: $(FUZZ_B)/obj/tests/fuzz/fuzz_attachelf.o $(FUZZ_B)/obj/patchsite/cmd/attach/attach_target.o
$(FUZZ_B)/obj/patchsite/cmd/attach/attach_target.o $(FUZZ_B)/obj/tests/fuzz/fuzz_attachelf.o: FUZZ_CFLAGS += \
	-D_GNU_SOURCE -Ipatchsite/cmd/attach
$(FUZZ_BINS):
	$(call quiet,FUZZLD,$@)$(FUZZ_CC) -fsanitize=fuzzer $(FUZZ_SAN) -o $@ $^ $(FUZZ_LIBS)

.PHONY: fuzz fuzz-build fuzz-regress fuzz-ci
fuzz-build: $(FUZZ_BINS)

# Every kept finding through every harness (clang's sanitizers see some UB
# that gcc's, in make check-san, do not), then the bounded runs.
fuzz-regress: $(FUZZ_BINS)
	$(Q)for h in $(FUZZ_BINS); do \
		$$h -runs=0 $(filter-out %README,$(wildcard testdata/bad/*)) >$$h.regress.log 2>&1 || \
		{ echo "$$h: a kept finding fails again, see $$h.regress.log"; exit 1; }; \
		echo "$${h##*/}: testdata/bad passes"; done

fuzz: fuzz-regress $(FUZZ_BINS) $(B)/tests/sample.o
	$(Q)sh tests/fuzz/run.sh $(FUZZ_B) $(FUZZ_SECONDS) $(B)/tests/sample.o $(FUZZ_HARNESS)


# About a minute per harness here; fixed seed and count, so a CI failure
# is a real finding (the same command may not reproduce it elsewhere: see
# tests/fuzz/run.sh).  The trace
# reader writes a directory per run: fewer runs (FUZZ_CI_PSREAD_RUNS); the
# control channel's parser is small: FUZZ_CI_CTLPROTO_RUNS.
FUZZ_CI_RUNS ?= 500000
# Each harness stops at its run count or after this many seconds, whichever is first: twelve
# harnesses must leave .ci/run inside its 90 minutes on a slow or loaded machine.
FUZZ_CI_SECONDS ?= 90
FUZZ_CI_PSREAD_RUNS ?= 20000
FUZZ_CI_CTLPROTO_RUNS ?= 100000
export FUZZ_CI_PSREAD_RUNS FUZZ_CI_CTLPROTO_RUNS
fuzz-ci: fuzz-regress $(FUZZ_BINS) $(B)/tests/sample.o
	$(Q)FUZZ_CI=$(FUZZ_CI_RUNS) sh tests/fuzz/run.sh $(FUZZ_B) $(FUZZ_CI_SECONDS) $(B)/tests/sample.o $(FUZZ_HARNESS)

-include $(shell find $(FUZZ_B)/obj -name '*.d' 2>/dev/null)
