# Golden tests: every committed object under testdata/obj is processed by
# $(B)/recordmcount and compared with the tables of independent oracles in
# testdata/expected (see tests/golden/run.sh and testdata/README.md).
check-golden: all
	$(Q)sh tests/golden/run.sh $(B)
