# make check-docs: the verb pages, patchsite help, groff warnings, README's
# commands run as printed (tests/docs/run.sh), and the man pages' example
# commands run as printed (tests/docs/man_examples.sh).  Part of check-integration.
.PHONY: check-docs
check-integration: check-docs
check-docs: $(PS_LIBS) $(B)/patchsite $(B)/patchsite-cc $(B)/recordmcount $(PV)
	$(Q)sh tests/docs/run.sh $(B) $(if $(filter 1,$(SAN)),san,plain)
	$(Q)sh tests/docs/man_examples.sh $(B) $(if $(filter 1,$(SAN)),san,plain)
