# Builds and runs the fair queue's plain-C test: make -f test/native/fair.mk [SAN=address|undefined]
CC ?= cc
OUT := build/native
SAN ?=
CFLAGS := -std=c11 -g -O1 -Wall -Wextra -Wcast-qual -Wformat=2 -Wmissing-prototypes -Werror
ifneq ($(SAN),)
CFLAGS += -fsanitize=$(SAN) -fno-omit-frame-pointer
endif
BIN := $(OUT)/test_fair$(if $(SAN),-$(SAN))
SRCS := test/native/test_fair.c src/pool/fair.c

run: $(BIN)
	$(BIN)

$(BIN): $(SRCS) src/pool/fair.h src/pool/pool.h test/native/check.h
	@mkdir -p $(OUT)
	$(CC) $(CFLAGS) -Isrc -o $@ $(SRCS)

.PHONY: run
