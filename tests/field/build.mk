# Field tests: real programs' own test suites under tracing (not part of make check: they
# build a release of the program, minutes on 2 cores, and need its source or the network).
#   make check-field                         valkey's suite (a subset) under function_graph
#                                            and plain, the same results (tests/field/valkey.sh)
#   make check-field VALKEY_SRC=DIR          from a local tree or git repository (tag
#                                            VALKEY_TAG, default 8.0.1) instead of github
#   make check-field FIELD_UNITS='unit/...'  other units of valkey's tests/
# Without the source and the network it says so in one line and fails.
.PHONY: check-field
check-field: $(PS_LIBS) $(B)/patchsite $(B)/recordmcount $(B)/patchsite-cc
	$(Q)sh tests/field/valkey.sh $(B) $(FIELD_UNITS)

# What a traceable build costs with tracing off on the same server (bench/field/valkey-cost.sh):
# plain, sites without the runtime, sites NOPed by the runtime; after check-field built them.
.PHONY: bench-field
bench-field: $(PS_LIBS)
	$(Q)sh bench/field/valkey-cost.sh $(B) $(or $(FIELD_ROUNDS),7) $(or $(FIELD_REQUESTS),2000000)
