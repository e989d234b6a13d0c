# The build and install commands as a user types them (issue 40), each in a directory of
# its own under $TMPDIR: README's cross builds (cross.sh, in a copy of the tree, so that
# make check's own build/aarch64 and build/riscv64 are untouched; x86-64 hosts, which
# have the cross compilers); make install and uninstall into a DESTDIR (install.sh).
.PHONY: check-cross-build
ifeq ($(ARCH)$(SAN)$(TSAN),x86_64)
check-integration: check-cross-build
endif
check-cross-build:
	$(Q)sh tests/build/cross.sh

# Not under the sanitizers: the install is the plain build's.
.PHONY: check-install
ifeq ($(SAN)$(TSAN),)
check-integration: check-install
endif
check-install: $(PS_LIBS) $(B)/patchsite-cc $(B)/patchsite-c++ $(PS_CMD) $(RMC) $(PV)
	$(Q)sh tests/build/install.sh
