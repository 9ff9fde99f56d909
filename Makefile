# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# rpcrdma-inline: build rpcrdma.ko for kernel KVER from its own source.
#
#   make [KVER=6.1.0-57-amd64] [KSRC=/path/to/tree-or-tarball] [W=1] [C=1]
#   make check        the test suite CI runs (README.md; tests/run.sh check)
#   make check-quick  unit tests, style, one build and one guest kernel
#   make check-full   check and the rest of the one-guest suite and the pairs
#   make check-deep   full, debug kernels, faults, every Debian kernel
#   make unit         userspace unit tests only
#   make demo         boot a guest, mount NFS over soft RoCE, show the counters
#   make dist         rpcrdma-inline-VERSION.tar.gz, the spec's Source0
#                     (then: rpmbuild -tb rpcrdma-inline-VERSION.tar.gz)

KVER ?= $(shell uname -r)
KDIR ?= /lib/modules/$(KVER)/build
VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' $(CURDIR)/dkms.conf)
OUT := build/$(KVER)
TREE := $(OUT)/linux
# Under DKMS, the source kept at this kernel's last build when its own
# linux-source has moved on (scripts/dkms-pre-build.sh names it here)
KSRC ?= $(shell cat $(OUT)/ksrc 2>/dev/null)
export KSRC

.PHONY: all modules prepare clean unit check check-quick check-full check-deep demo dist

all: modules

prepare:
	@test -f $(KDIR)/Makefile || { \
	  echo "rpcrdma-inline: the headers of kernel $(KVER) are not installed ($(KDIR) has no Makefile)." >&2; \
	  echo "Install them with: apt-get install linux-headers-$(KVER)" >&2; exit 1; }
	@scripts/prepare-source.sh $(KVER) $(OUT)

modules: prepare
	$(MAKE) -C $(KDIR) M=$(CURDIR) RPCRDMA_INLINE_TREE=$(TREE) \
		RPCRDMA_INLINE_VERSION=$(VERSION) modules

clean:
	rm -rf build tests/unit/build
	rm -f *.ko *.o *.mod *.mod.c *.mod.o .*.cmd modules.order Module.symvers
	rm -f src/*.o src/.*.cmd

unit:
	$(MAKE) -C tests/unit

check:
	tests/run.sh check

check-quick:
	tests/run.sh quick

check-full:
	tests/run.sh full

check-deep:
	tests/run.sh deep

demo:
	scripts/demo.sh

dist:
	scripts/dist-tarball.sh
