# One non-recursive Makefile for the whole tree.  Each directory adds its
# targets in its own build.mk; everything lands in $(B)/.
#   make            build the tools and libraries
#   make demo       install missing build dependencies, build, record a sample
#   make check      all tests, then again under ASan+UBSan, then libpatchsite's
#                   stress test under TSan (make check-tsan)
#   make bench      benchmarks side by side with the reference tools
#   make V=1        show full commands;  make SAN=1  sanitizer build in build/san

B        ?= build
PREFIX   ?= /usr/local
DESTDIR  ?=
CC       ?= cc
CFLAGS   ?= -O2 -g
WARN     := -Wall -Wextra -Werror
ifeq ($(SAN),1)
B        := build/san
CFLAGS   += -O1 -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
LDFLAGS  += -fsanitize=address,undefined
endif
ifeq ($(TSAN),1)
B        := build/tsan
CFLAGS   += -O1 -fsanitize=thread -fno-omit-frame-pointer
LDFLAGS  += -fsanitize=thread
endif
PKG_ELF_CFLAGS := $(shell pkg-config --cflags libelf 2>/dev/null)
PKG_ELF_LIBS   := $(shell pkg-config --libs libelf 2>/dev/null || echo -lelf)
ALL_CFLAGS = $(WARN) -std=gnu11 $(CFLAGS) -Iinclude -Ilib/arch $(PKG_ELF_CFLAGS) -MMD -MP

ifneq ($(V),1)
Q        := @
quiet     = @printf '  %-7s %s\n' $(1) $(2);
endif

.PHONY: all demo check check-unit check-golden check-san bench install clean deps
all:

$(B)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(call quiet,CC,$@)$(CC) $(ALL_CFLAGS) -c $< -o $@

include lib/build.mk recordmcount/build.mk man/build.mk
include $(wildcard verify/build.mk patchsite/build.mk trace/build.mk tests/*/build.mk tests/golden.mk)

deps:
	$(Q)sh scripts/deps.sh

demo: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)sh scripts/demo.sh $(B)
	$(Q)sh scripts/demo-trace.sh $(B)

check: all
	$(Q)$(MAKE) --no-print-directory check-unit check-golden
	$(Q)$(MAKE) --no-print-directory SAN=1 check-san
	$(Q)$(MAKE) --no-print-directory check-tsan

check-san: all
	$(Q)$(MAKE) --no-print-directory SAN=1 check-unit check-golden

clean:
	rm -rf build

-include $(shell find $(B)/obj -name '*.d' 2>/dev/null)
