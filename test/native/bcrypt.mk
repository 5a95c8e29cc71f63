# Builds and runs the plain-C bcrypt tests.
#   make -f test/native/bcrypt.mk             build + run (known answers etc.)
#   make -f test/native/bcrypt.mk SAN=address  (or SAN=undefined) sanitized
#   make -f test/native/bcrypt.mk bench        cost 10 / 12 timings, 1..4 lanes
#   make -f test/native/bcrypt.mk clean
ROOT := $(abspath $(dir $(lastword $(MAKEFILE_LIST)))../..)
OUT := $(ROOT)/build/native

CC ?= cc
CFLAGS ?= -O2
WARN := -std=c11 -Wall -Wextra -Wcast-qual -Wformat=2 -Wmissing-prototypes \
  -fvisibility=hidden
SAN ?=
ifneq ($(SAN),)
SANFLAGS := -fsanitize=$(SAN) -fno-sanitize-recover=all \
  -fno-omit-frame-pointer -g
SUFFIX := -$(SAN)
endif

SRCS := $(ROOT)/src/kdf/bcrypt.c $(ROOT)/src/common/wipe.c \
  $(ROOT)/src/common/status.c \
  $(ROOT)/test/native/test_bcrypt.c
HDRS := $(ROOT)/src/kdf/bcrypt.h $(wildcard $(ROOT)/src/common/*.h) $(ROOT)/test/native/check.h $(ROOT)/test/native/stack_probe.h
BIN := $(OUT)/test_bcrypt$(SUFFIX)
VECTORS := $(ROOT)/test/vectors/bcrypt.json

.PHONY: all test bench clean
all: test

$(BIN): $(SRCS) $(HDRS) $(lastword $(MAKEFILE_LIST))
	@mkdir -p $(OUT)
	$(CC) $(WARN) $(CFLAGS) $(SANFLAGS) -I$(ROOT)/src -pthread -o $@ $(SRCS)

test: $(BIN)
	$(BIN) $(VECTORS)

bench: $(BIN)
	$(BIN) bench
	$(BIN) lanes

clean:
	rm -f $(OUT)/test_bcrypt $(OUT)/test_bcrypt-*
