# Builds and runs the scheduler's plain-C tests: its parts (test_sched.c),
# the simulation of the whole discipline on a virtual clock (sim_sched.c),
# and the overload benchmark's scenarios on a virtual clock
# (sim_overload.c). make -f test/native/sched.mk [SAN=address|undefined] [SEEDS=n]
CC ?= cc
OUT := build/native
SAN ?=
SEEDS ?= 20
CFLAGS := -std=c11 -g -O1 -DPOOL_COUNT_STEPS -Wall -Wextra -Wcast-qual -Wformat=2 -Wmissing-prototypes -Werror
ifneq ($(SAN),)
CFLAGS += -fsanitize=$(SAN) -fno-omit-frame-pointer
endif
SUFFIX := $(if $(SAN),-$(SAN))
PARTS := src/pool/admit.c src/pool/promise.c src/pool/retry_seconds.c src/pool/sched.c src/pool/keys.c src/pool/tree.c src/pool/estimate.c
HDRS := $(wildcard src/pool/*.h src/common/*.h) test/native/check.h

run: $(OUT)/test_sched$(SUFFIX) $(OUT)/sim_sched$(SUFFIX) $(OUT)/sim_overload$(SUFFIX)
	$(OUT)/test_sched$(SUFFIX)
	$(OUT)/sim_sched$(SUFFIX) $(SEEDS)
	$(OUT)/sim_overload$(SUFFIX) -v
	$(OUT)/sim_overload$(SUFFIX) --batches

$(OUT)/test_sched$(SUFFIX): test/native/test_sched.c $(PARTS) $(HDRS)
	@mkdir -p $(OUT)
	$(CC) $(CFLAGS) -Isrc -o $@ test/native/test_sched.c $(PARTS) -lm

$(OUT)/sim_sched$(SUFFIX): test/native/sim_sched.c $(PARTS) $(HDRS)
	@mkdir -p $(OUT)
	$(CC) $(CFLAGS) -Isrc -o $@ test/native/sim_sched.c $(PARTS) -lm

$(OUT)/sim_overload$(SUFFIX): test/native/sim_overload.c $(PARTS) $(HDRS)
	@mkdir -p $(OUT)
	$(CC) $(CFLAGS) -Isrc -o $@ test/native/sim_overload.c $(PARTS) -lm

.PHONY: run
