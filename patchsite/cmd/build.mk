# patchsite: the command that records with libpatchsite and reads trace
# directories (patchsite/cmd/): record, replay, report, dump, info.
# The reader, renderers and wire format (PS_SHARED_OBJ, patchsite/build.mk) are libpatchsite's
# objects too (PATCHSITE_OUTPUT, the control channel): PIC, hidden.
TRACE_SRC := $(wildcard patchsite/cmd/*.c patchsite/cmd/attach/*.c patchsite/cmd/dwarf/*.c)
# The dynamic_events parser too: record --probe is checked before CMD runs; and the no-flag
# proof file's reader (lib/noflag_proof.c): record --noflag-proof too.
# The shape of a C++ name (core/demangle_name.c), for names a process could not demangle: the
# command demangles them with libstdc++'s __cxa_demangle (cmd/demangle.c).
TRACE_OBJ := $(TRACE_SRC:%.c=$(B)/obj/%.o) $(PS_SHARED_OBJ) $(B)/obj/patchsite/events/probe_parse.o \
	$(B)/obj/patchsite/core/demangle_name.o $(B)/obj/lib/noflag_proof.o

$(TRACE_OBJ): ALL_CFLAGS += -D_GNU_SOURCE -fPIC -fvisibility=hidden
# libdw (elfutils) reads DWARF for probe names, in the command only: the runtime links none.
PKG_DW_CFLAGS := $(shell $(PKG_CONFIG) --cflags libdw 2>/dev/null)
PKG_DW_LIBS   := $(shell $(PKG_CONFIG) --libs libdw 2>/dev/null || echo -ldw -lelf)
$(B)/obj/patchsite/cmd/dwarf/probe_dwarf.o $(B)/obj/patchsite/cmd/dwarf/probe_dwarf_type.o \
	$(B)/obj/patchsite/cmd/dwarf/probe_dwarf_site.o $(B)/obj/patchsite/cmd/dwarf/srcline.o \
	$(B)/obj/patchsite/cmd/dwarf/probe_dwarf_loc.o $(B)/obj/patchsite/cmd/dwarf/probe_dwarf_fn.o \
	$(B)/obj/patchsite/cmd/dwarf/probe_dwarf_ctx.o \
	$(B)/obj/patchsite/cmd/dwarf/auto_args.o $(B)/obj/patchsite/cmd/dwarf/libcall_args.o: ALL_CFLAGS += $(PKG_DW_CFLAGS)

PS_CMD := $(call built_if_has,$(B)/patchsite,dw elf)
all: $(PS_CMD)

$(B)/patchsite: $(TRACE_OBJ)
	$(call quiet,LD,$@)$(CC) $(LDFLAGS) -o $@ $^ $(PKG_DW_LIBS) -lstdc++

INSTALL_FILES += $(if $(PS_CMD),755:$(B)/patchsite:bin/patchsite) \
	644:man/patchsite.1:share/man/man1/patchsite.1 644:man/patchsite-data.5:share/man/man5/patchsite-data.5 \
	644:man/patchsite.7:share/man/man7/patchsite.7

# The Python module (import patchsite: python/patchsite, patchsite-script(1)), where Debian's
# python3 looks under PREFIX: lib/python3/dist-packages under /usr, else dist-packages of its
# version (/usr/local/lib/python3.11/dist-packages).  PY_SITE=DIR (under PREFIX) for another.
PY_VERSION := $(shell python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)
PY_SITE ?= $(if $(filter /usr,$(PREFIX)),lib/python3,lib/python$(PY_VERSION))/dist-packages
INSTALL_FILES += 644:python/patchsite/__init__.py:$(PY_SITE)/patchsite/__init__.py
