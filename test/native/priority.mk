# Builds and runs the plain-C test of priority 'auto': make -f test/native/priority.mk [SAN=thread|address|undefined]
CC ?= cc
OUT := build/native
SAN ?=
CFLAGS := -std=c11 -g -O1 -DPOOL_CHECK_INVARIANTS -DPOOL_TEST_HOOKS -Wall -Wextra -Wcast-qual -Wformat=2 -Wmissing-prototypes -Werror -pthread
ifneq ($(SAN),)
CFLAGS += -fsanitize=$(SAN) -fno-omit-frame-pointer
endif
BIN := $(OUT)/test_priority$(if $(SAN),-$(SAN))

run: $(BIN)
	$(BIN)

OS_SRC := src/pool/$(if $(filter Linux,$(shell uname -s)),os_linux.c,os_posix.c)
# The pool's files, as test/native/pool.mk lists them.
POOL_SRCS := $(addprefix src/pool/,pool.c machine.c wake.c budget.c seek.c fair.c queue.c stats.c batch.c worker.c priority.c hostslots.c prefault.c os_flock.c) $(OS_SRC)
SRCS := test/native/test_priority.c $(POOL_SRCS) src/common/status.c

$(BIN): $(SRCS) $(wildcard src/pool/*.h src/common/*.h) test/native/check.h
	@mkdir -p $(OUT)
	$(CC) $(CFLAGS) -Isrc -o $@ $(SRCS)

.PHONY: run
