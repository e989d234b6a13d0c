# Hostile input: the bad-input table for recordmcount (and patchverify when
# it is built), with every fuzzing finding kept in testdata/bad/.
.PHONY: check-bad
check-bad: $(B)/recordmcount $(B)/tests/sample.o $(wildcard $(B)/patchverify)
	$(Q)sh tests/bad/run.sh $(B)

check-unit: check-bad

# All-or-nothing rewrites: SIGKILL at random points, a full disk, concurrent
# runs, planted symlinks (on a large object made with gcc at test time).
.PHONY: check-interrupt
check-interrupt: $(B)/recordmcount
	$(Q)sh tests/bad/interrupt.sh $(B) $(or $(KILLS),100)

check-unit: check-interrupt

# Valgrind memcheck over the unit runner and the bad-input table: zero
# reports.  Memcheck cannot follow malloc in a static binary, so the table
# runs a dynamically linked recordmcount (and patchverify, when built).
VALGRIND := valgrind -q --error-exitcode=99 --leak-check=full \
	    --errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect
.PHONY: check-valgrind
check-valgrind: $(B)/tests/unit $(B)/tests/sample.o $(B)/tests/recordmcount-dyn \
		$(wildcard $(B)/patchverify)
	$(Q)CK_FORK=no $(VALGRIND) $(B)/tests/unit
	$(Q)printf '#!/bin/sh\nexec %s %s "$$@"\n' "$(VALGRIND)" $(abspath $(B)/tests/recordmcount-dyn) \
		>$(B)/tests/vg-recordmcount
	$(Q)printf '#!/bin/sh\nexec %s %s "$$@"\n' "$(VALGRIND)" $(abspath $(B)/patchverify) \
		>$(B)/tests/vg-patchverify
	$(Q)chmod +x $(B)/tests/vg-recordmcount $(B)/tests/vg-patchverify
	$(Q)RMC=$(B)/tests/vg-recordmcount $(if $(wildcard $(B)/patchverify),PV=$(B)/tests/vg-patchverify) \
		sh tests/bad/run.sh $(B)

$(B)/tests/recordmcount-dyn: $(RECORDMCOUNT_OBJ) $(LIBCORE)
	@mkdir -p $(dir $@)
	$(call quiet,LD,$@)$(CC) $(LDFLAGS) -o $@ $^ $(PKG_ELF_LIBS)
