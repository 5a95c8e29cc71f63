# Builds and runs the plain-C test of the pool's POSIX OS seam with each
# implementation: make -f test/native/os.mk [SAN=address|undefined|thread]
# (test_os.c says what it checks). Linux only: residency comes from mincore().
CC ?= cc
OUT := build/native
SAN ?=
CFLAGS := -std=c11 -g -O1 -DPOOL_TEST_HOOKS -Wall -Wextra -Wcast-qual -Wformat=2 -Wmissing-prototypes -Werror -pthread
ifneq ($(SAN),)
CFLAGS += -fsanitize=$(SAN) -fno-omit-frame-pointer
endif
IMPLS := linux posix
BINS := $(foreach i,$(IMPLS),$(OUT)/test_os-$(i)$(if $(SAN),-$(SAN)))
# clock_shim.c: a wall clock the test steps (the seam's waits must not see it).
COMMON := src/pool/os_unix.c src/pool/prefault.c test/native/clock_shim.c

run: $(BINS)
	@for b in $(BINS); do $$b || exit 1; done

$(OUT)/test_os-%$(if $(SAN),-$(SAN)): test/native/test_os.c src/pool/os_%.c $(COMMON) $(wildcard src/pool/*.h src/common/*.h) test/native/check.h test/native/clock_shim.h
	@mkdir -p $(OUT)
	$(CC) $(CFLAGS) -DOS_IMPL='"os_$*.c"' -Isrc -o $@ test/native/test_os.c src/pool/os_$*.c $(COMMON) -ldl

.PHONY: run
