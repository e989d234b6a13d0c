# Man pages must format without a single warning, as a terminal shows them.
.PHONY: check-man
check-man:
	$(Q)for m in man/*.[0-9]; do \
		out=$$(groff -man -Tutf8 -ww -z "$$m" 2>&1); \
		if [ -n "$$out" ]; then echo "$$m: $$out"; exit 1; fi; \
	done; echo "man pages: $$(ls man/*.[0-9] | wc -l) clean"
check-static: check-man

# One page per verb of the patchsite command (patchsite help VERB opens it;
# man patchsite-VERB once installed): installed and uninstalled with the rest.
PS_VERB_PAGES := $(wildcard man/patchsite-*.1)
INSTALL_FILES += $(foreach m,$(PS_VERB_PAGES),644:$(m):share/man/man1/$(notdir $(m)))
