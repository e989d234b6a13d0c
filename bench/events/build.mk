# Probe costs next to SystemTap SDT and LTTng-UST (bench/events/run.sh):
# callgrind instructions and time per iteration of one loop per
# bench/events/loop_*.c, enabled costs per hit, branch counters under threads.
.PHONY: bench-events
bench: bench-events
bench-events: $(B)/libpatchsite.a $(B)/libpatchsite.so
	$(Q)sh bench/events/run.sh $(B)
