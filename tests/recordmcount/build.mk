# recordmcount's command-line behaviour (tests/recordmcount/run.sh).
.PHONY: check-recordmcount
check-recordmcount: $(B)/recordmcount $(B)/patchverify $(B)/libpatchsite.so
	$(Q)sh tests/recordmcount/run.sh $(B)
check-unit: check-recordmcount
