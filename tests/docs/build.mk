# make check-docs: the verb pages, patchsite help, groff warnings, README's
# commands run as printed (tests/docs/run.sh).  Part of check-unit.
.PHONY: check-docs
check-unit: check-docs
check-docs: $(PS_LIBS) $(B)/patchsite $(B)/patchsite-cc $(B)/recordmcount
	$(Q)sh tests/docs/run.sh $(B) $(if $(filter 1,$(SAN)),san,plain)
