# The layer check (tests/layers.sh): no file of libpatchsite or its readers names a file in a
# higher layer, no loop between the files of one folder; no source includes a header of a
# higher layer, and every .c is named in its folder's map header; no loop between patchverify's
# files (verify/).  Part of check-static.
#   make check-layers                        the check itself over the built objects: fails
#                                            on any finding (so does make check)
#   make check-layers LAYERS_MODE=report     print the findings, do not fail
# Every runtime file is in its layer folder (issue #22): a finding is a regression.
LAYERS_MODE ?= fail

.PHONY: check-layers
check-static: check-layers
check-layers: $(PS_LIBS) $(B)/patchsite $(PV)
	$(Q)sh tests/layers/selftest.sh
	$(Q)SRC=patchsite sh tests/layers.sh $(LAYERS_MODE) $(B)/obj/patchsite \
		$(sort $(filter $(B)/obj/patchsite/%,$(PS_OBJ) $(TRACE_OBJ)))
	$(if $(PV),$(Q)sh tests/layers.sh $(LAYERS_MODE) $(B)/obj $(sort $(VERIFY_OBJ)))
