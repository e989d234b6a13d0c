# patchverify: audits patch-site tables (verify/), its tests and benchmark.
PKG_CS_CFLAGS := $(shell $(PKG_CONFIG) --cflags capstone 2>/dev/null)
PKG_CS_LIBS   := $(shell $(PKG_CONFIG) --libs capstone 2>/dev/null || echo -lcapstone)
# Compressed modules (.ko.xz, .ko.zst, .ko.gz): Debian's liblzma, libzstd, zlib.
PKG_UNPACK_LIBS := $(shell $(PKG_CONFIG) --libs liblzma libzstd zlib 2>/dev/null || echo -llzma -lzstd -lz)

VERIFY_SRC := $(wildcard verify/*.c)
VERIFY_OBJ := $(VERIFY_SRC:%.c=$(B)/obj/%.o)

$(B)/obj/verify/%.o: ALL_CFLAGS += $(PKG_CS_CFLAGS)

PV := $(call built_if_has,$(B)/patchverify,elf capstone lzma zstd z)
tools: $(PV)

$(B)/patchverify: $(VERIFY_OBJ) $(LIBCORE)
	$(call quiet,LD,$@)$(CC) $(LDFLAGS) -o $@ $^ $(PKG_ELF_LIBS) $(PKG_CS_LIBS) $(PKG_UNPACK_LIBS)

# The defect maker used by the tests.
$(B)/pv-defect: $(B)/obj/tests/verify/defect.o $(LIBCORE)
	$(call quiet,LD,$@)$(CC) $(LDFLAGS) -o $@ $^ $(PKG_ELF_LIBS)

# The proof-file round trip used by tests/verify/noflag.sh.
$(B)/nfproof-read: $(B)/obj/tests/verify/nfproof_read.o $(LIBCORE)
	$(call quiet,LD,$@)$(CC) $(LDFLAGS) -o $@ $^

# The sweep's quick decoder against Capstone, used by tests/verify/noflag.sh.
NFQUICK_OBJ := $(filter-out $(B)/obj/verify/main.o,$(VERIFY_OBJ))
$(B)/obj/tests/verify/nfquick_check.o $(B)/obj/tests/verify/nfquick_agree.o: ALL_CFLAGS += $(PKG_CS_CFLAGS) -Iverify
$(B)/nfquick-check: $(B)/obj/tests/verify/nfquick_check.o $(B)/obj/tests/verify/nfquick_agree.o $(NFQUICK_OBJ) $(LIBCORE)
	$(call quiet,LD,$@)$(CC) $(LDFLAGS) -o $@ $^ $(PKG_ELF_LIBS) $(PKG_CS_LIBS) $(PKG_UNPACK_LIBS)

.PHONY: check-verify bench-verify check-noflag
# patchverify --noflag (issue 37): the mutation corpus and Debian's own binaries.
check-noflag: $(B)/patchverify $(B)/nfproof-read $(B)/nfquick-check
	$(Q)sh tests/verify/noflag.sh $(B) $(if $(filter 1,$(SAN)),san,plain)
check-unit: check-noflag

check-verify: $(B)/patchverify $(B)/pv-defect
	$(Q)sh tests/verify/run.sh $(B)

check-unit: check-verify

bench: bench-verify
bench-verify: $(B)/patchverify
	$(Q)sh bench/verify/run.sh $(B)
	$(Q)sh bench/verify/noflag.sh $(B)

INSTALL_FILES += $(if $(PV),755:$(PV):bin/patchverify 644:man/patchverify.1:share/man/man1/patchverify.1)
