# The layer check (tests/layers.sh): no file of libpatchsite or its readers names a file in a
# higher layer, no loop between the files of one folder.  Part of check-unit.
#   make check-layers                      the check itself over the built objects
#   make check-layers LAYERS_MODE=fail     fail on a finding instead of printing it
# LAYERS_MODE is "report" while the runtime's files are not yet in their layer folders
# (issue #22); once they are, its default becomes "fail".
LAYERS_MODE ?= report

.PHONY: check-layers
check-unit: check-layers
check-layers: $(PS_LIBS) $(B)/patchsite
	$(Q)sh tests/layers/selftest.sh
	$(Q)sh tests/layers.sh $(LAYERS_MODE) $(B)/obj/patchsite \
		$(sort $(filter $(B)/obj/patchsite/%,$(PS_OBJ) $(TRACE_OBJ)))
