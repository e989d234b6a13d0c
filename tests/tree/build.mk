# The tree's own check (tests/tree/paths.sh, issue 43): no path of one machine, no clone from a
# public repository, no *_GIT source tree in any tracked file; its self-test first.
.PHONY: check-tree
check-static: check-tree
check-tree:
	$(Q)sh tests/tree/selftest.sh
	$(Q)sh tests/tree/paths.sh
