# Builds and runs the plain-C pool test: make -f test/native/pool.mk [SAN=thread|address|undefined]
CC ?= cc
OUT := build/native
SAN ?=
CFLAGS := -std=c11 -g -O1 -Wall -Wextra -Wcast-qual -Wformat=2 -Wmissing-prototypes -Werror -pthread
ifneq ($(SAN),)
CFLAGS += -fsanitize=$(SAN) -fno-omit-frame-pointer
endif
BIN := $(OUT)/test_pool$(if $(SAN),-$(SAN))

run: $(BIN)
	$(BIN)

$(BIN): test/native/test_pool.c src/pool.c src/pool.h src/kdf_errors.c src/kdf_errors.h
	@mkdir -p $(OUT)
	$(CC) $(CFLAGS) -o $@ test/native/test_pool.c src/pool.c src/kdf_errors.c

.PHONY: run
