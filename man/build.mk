# Man pages must format without a single warning, as a terminal shows them.
.PHONY: check-man
check-man:
	$(Q)for m in man/*.[0-9]; do \
		out=$$(groff -man -Tutf8 -ww -z "$$m" 2>&1); \
		if [ -n "$$out" ]; then echo "$$m: $$out"; exit 1; fi; \
	done; echo "man pages: $$(ls man/*.[0-9] | wc -l) clean"
check-unit: check-man

# One page per verb of the patchsite command (patchsite help VERB opens it;
# man patchsite-VERB once installed).
PS_VERB_PAGES := $(wildcard man/patchsite-*.1)
install: install-verb-pages
.PHONY: install-verb-pages
install-verb-pages:
	$(Q)for m in $(PS_VERB_PAGES); do \
		install -D -m 644 $$m $(DESTDIR)$(PREFIX)/share/man/man1/$${m#man/} || exit 1; \
	done
