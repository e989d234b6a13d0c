# The shared core: ELF access, diagnostics, arch tables.
LIBCORE_SRC := $(wildcard lib/*.c lib/arch/*.c)
LIBCORE_OBJ := $(LIBCORE_SRC:%.c=$(B)/obj/%.o)
LIBCORE     := $(B)/libcore.a

$(LIBCORE): $(LIBCORE_OBJ)
	$(call quiet,AR,$@)$(AR) rcs $@ $^
