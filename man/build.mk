# Man pages must format without a single warning.
.PHONY: check-man
check-man:
	$(Q)for m in man/*.[0-9]; do \
		out=$$(groff -man -ww -z "$$m" 2>&1); \
		if [ -n "$$out" ]; then echo "$$m: $$out"; exit 1; fi; \
	done; echo "man pages: $$(ls man/*.[0-9] | wc -l) clean"
check-unit: check-man
