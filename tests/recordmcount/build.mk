# recordmcount's command-line behaviour (tests/recordmcount/run.sh).
.PHONY: check-recordmcount
check-recordmcount: $(B)/recordmcount
	$(Q)sh tests/recordmcount/run.sh $(B)
check-unit: check-recordmcount
