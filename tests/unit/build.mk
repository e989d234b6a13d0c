# Unit tests (Check): one suite per module, one runner.
UNIT_SRC := $(wildcard tests/unit/*.c)
UNIT_OBJ := $(UNIT_SRC:%.c=$(B)/obj/%.o)
PKG_CHECK_CFLAGS := $(shell $(PKG_CONFIG) --cflags check 2>/dev/null)
PKG_CHECK_LIBS   := $(shell $(PKG_CONFIG) --libs check 2>/dev/null || echo -lcheck)

$(UNIT_OBJ): ALL_CFLAGS += $(PKG_CHECK_CFLAGS) -DSAMPLE_OBJ='"$(B)/tests/sample.o"'
$(B)/obj/tests/unit/check_demangle.o: ALL_CFLAGS += -Ipatchsite

# libpatchsite's pure parts are tested here too.
$(B)/tests/unit: $(UNIT_OBJ) $(LIBCORE) $(B)/obj/patchsite/core/demangle.o $(B)/obj/patchsite/core/demangle_name.o $(B)/obj/patchsite/core/libc.o
	@mkdir -p $(dir $@)
	$(call quiet,LD,$@)$(CC) $(LDFLAGS) -o $@ $^ $(PKG_ELF_LIBS) $(PKG_CHECK_LIBS) -ldl

# The sample the ELF-layer tests open: gcc -pg -mfentry output, as Kbuild makes it.
$(B)/tests/sample.o: testdata/demo/sample.c
	@mkdir -p $(dir $@)
	$(call quiet,GCC,$@)gcc -O2 -fno-pie -mcmodel=kernel -mno-red-zone -pg -mfentry -c $< -o $@

.PHONY: check-core
check-core: $(B)/tests/unit $(B)/tests/sample.o
	$(Q)CK_FORK=yes $(B)/tests/unit
check-unit: check-core
