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
