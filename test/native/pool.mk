# Builds and runs the plain-C pool tests (the pool, priority 'auto'): make -f test/native/pool.mk [SAN=thread|address|undefined]
CC ?= cc
OUT := build/native
SAN ?=
CFLAGS := -std=c11 -g -O1 -DPOOL_CHECK_INVARIANTS -DPOOL_TEST_HOOKS -Wall -Wextra -Wcast-qual -Wformat=2 -Wmissing-prototypes -Werror -pthread
ifneq ($(SAN),)
CFLAGS += -fsanitize=$(SAN) -fno-omit-frame-pointer
endif
BIN := $(OUT)/test_pool$(if $(SAN),-$(SAN))
# Priority 'auto' (src/pool/priority.c), on the same pool files and flags.
PRIORITY_BIN := $(OUT)/test_priority$(if $(SAN),-$(SAN))

run: $(BIN) $(PRIORITY_BIN)
	$(BIN)
	$(PRIORITY_BIN)

OS_SRC := src/pool/$(if $(filter Linux,$(shell uname -s)),os_linux.c,os_posix.c)
# The pool's files, as gyp/binding.gyp lists them (arena.c is not the pool's:
# it serves the *Sync calls).
POOL_SRCS := $(addprefix src/pool/,pool.c machine.c wake.c budget.c seek.c admit.c promise.c retry_seconds.c sched.c keys.c tree.c estimate.c deadline.c queue.c inbox.c stats.c batch.c worker.c priority.c hostslots.c prefault.c os_unix.c os_flock.c) $(OS_SRC)
# clock_shim.c: a wall clock the test steps (the pool's waits must not see it).
SRCS := test/native/test_pool.c test/native/clock_shim.c $(POOL_SRCS) src/common/status.c src/common/siphash.c

$(BIN): $(SRCS) $(wildcard src/pool/*.h src/common/*.h) test/native/check.h test/native/clock_shim.h
	@mkdir -p $(OUT)
	$(CC) $(CFLAGS) -Isrc -o $@ $(SRCS) -lm

PRIORITY_SRCS := test/native/test_priority.c $(POOL_SRCS) src/common/status.c src/common/siphash.c

$(PRIORITY_BIN): $(PRIORITY_SRCS) $(wildcard src/pool/*.h src/common/*.h) test/native/check.h
	@mkdir -p $(OUT)
	$(CC) $(CFLAGS) -Isrc -o $@ $(PRIORITY_SRCS) -lm

.PHONY: run
