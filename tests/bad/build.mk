# Hostile input: the bad-input table for recordmcount (and patchverify when
# it is built), with every fuzzing finding kept in testdata/bad/.
.PHONY: check-bad
check-bad: $(B)/recordmcount $(B)/tests/sample.o $(wildcard $(B)/patchverify)
	$(Q)sh tests/bad/run.sh $(B)

check-unit: check-bad
