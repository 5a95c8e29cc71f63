# Builds and runs the plain-C Argon2/BLAKE2b tests.
#   make -f test/native/argon2.mk              build + run the tests
#   make -f test/native/argon2.mk SAN=address  same under -fsanitize=address
#   make -f test/native/argon2.mk SAN=undefined
#   make -f test/native/argon2.mk bench        timings per fill variant
#   make -f test/native/argon2.mk arm64        arm64 build under qemu-aarch64
# Binaries go to build/native/ (one directory per SAN setting).

include $(dir $(lastword $(MAKEFILE_LIST)))common.mk
SRCS := $(addprefix $(ROOT)/src/kdf/argon2/,blake2b.c argon2.c fill_portable.c \
  fill_ssse3.c fill_avx2.c fill_avx512.c fill_neon.c) \
  $(ROOT)/src/kdf/cpu.c $(addprefix $(ROOT)/src/common/,wipe.c status.c) $(ROOT)/test/native/test_argon2.c
HDRS := $(wildcard $(ROOT)/src/kdf/*.h $(ROOT)/src/kdf/argon2/*.h $(ROOT)/src/common/*.h) \
  $(ROOT)/test/native/check.h $(ROOT)/test/native/stack_probe.h
BIN := $(OUT)/test_argon2

.PHONY: all test bench clean arm64
all: test

$(BIN): $(SRCS) $(HDRS)
	@mkdir -p $(OUT)
	$(CC) $(CFLAGS) -I$(ROOT)/src -o $@ $(SRCS)

test: $(BIN)
	$(BIN)

bench: $(BIN)
	$(BIN) bench

# arm64 under qemu (needs gcc-aarch64-linux-gnu and qemu-user): portable
# and neon against the vectors, and neon against portable on random blocks
# and parameters. Correctness only: qemu says nothing about speed.
ARM_CC ?= aarch64-linux-gnu-gcc
ARM_OUT := $(ROOT)/build/native/arm64
arm64: $(SRCS) $(HDRS)
	@mkdir -p $(ARM_OUT)
	$(ARM_CC) -std=c11 -O2 -g $(WARN) -fvisibility=hidden -I$(ROOT)/src \
	  -o $(ARM_OUT)/test_argon2 $(SRCS)
	qemu-aarch64 -cpu max -L /usr/aarch64-linux-gnu $(ARM_OUT)/test_argon2

clean:
	rm -rf $(ROOT)/build/native
