RECORDMCOUNT_SRC := $(wildcard recordmcount/*.c)
RECORDMCOUNT_OBJ := $(RECORDMCOUNT_SRC:%.c=$(B)/obj/%.o)
# Kbuild runs the tool once per object, so start-up is most of its time:
# a static binary skips the dynamic loader (0.7x the kernel tool's time per
# object instead of 1.05x; see make bench).  Sanitizer builds cannot be static.
ifeq ($(SAN),1)
RECORDMCOUNT_LINK := $(PKG_ELF_LIBS)
else
RECORDMCOUNT_LINK := -static $(shell $(PKG_CONFIG) --static --libs libelf 2>/dev/null || echo -lelf -lz)
endif

RMC := $(call built_if_has,$(B)/recordmcount,elf z)
tools: $(RMC)

$(B)/recordmcount: $(RECORDMCOUNT_OBJ) $(LIBCORE)
	$(call quiet,LD,$@)$(CC) $(LDFLAGS) -o $@ $^ $(RECORDMCOUNT_LINK)

INSTALL_FILES += $(if $(RMC),755:$(RMC):bin/recordmcount 644:man/recordmcount.1:share/man/man1/recordmcount.1)

bench: bench-recordmcount
.PHONY: bench-recordmcount
bench-recordmcount: $(B)/recordmcount
	$(Q)sh bench/recordmcount/run.sh $(B)
