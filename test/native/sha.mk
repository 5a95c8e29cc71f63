# Builds and runs the plain-C tests of the SHA layer (src/kdf/sha).
#   make -f test/native/sha.mk              build + run the tests
#   make -f test/native/sha.mk SAN=address  same under -fsanitize=address
#   make -f test/native/sha.mk SAN=undefined
#   make -f test/native/sha.mk SAN=thread   (first use from several threads)
#   make -f test/native/sha.mk arm64        arm64 build under qemu-aarch64
#   make -f test/native/sha.mk bench        per-variant timings vs OpenSSL
# The tests and the bench link OpenSSL's libcrypto as an oracle; the layer
# itself does not use it. Binaries go to build/native/ (one directory per
# SAN setting).

include $(dir $(lastword $(MAKEFILE_LIST)))common.mk
SHA := $(addprefix $(ROOT)/src/kdf/sha/,sha.c sha_core.c sha_portable.c sha_x86.c sha_arm.c)
HDRS := $(wildcard $(ROOT)/src/kdf/sha/*.h) $(ROOT)/test/native/check.h
BIN := $(OUT)/test_sha
BENCH := $(OUT)/sha_bench
LIBS := -lcrypto -pthread

.PHONY: all test bench clean arm64
all: test

$(BIN): $(SHA) $(HDRS) $(ROOT)/test/native/test_sha.c
	@mkdir -p $(OUT)
	$(CC) $(CFLAGS) -o $@ $(SHA) $(ROOT)/test/native/test_sha.c $(LIBS)

$(BENCH): $(SHA) $(HDRS) $(ROOT)/test/native/sha_bench.c
	@mkdir -p $(OUT)
	$(CC) $(CFLAGS) -o $@ $(SHA) $(ROOT)/test/native/sha_bench.c $(LIBS)

test: $(BIN)
	$(BIN)

bench: $(BENCH)
	$(BENCH)

# arm64 under qemu (needs gcc-aarch64-linux-gnu and qemu-user): the
# ARMv8 crypto-extension variant, checked against the vectors and against
# portable (no arm64 libcrypto here). -cpu max has the SHA instructions.
ARM_CC ?= aarch64-linux-gnu-gcc
arm64:
	@mkdir -p $(ROOT)/build/native/arm64
	$(ARM_CC) -std=c11 -O2 -g $(WARN) -DSHA_TEST_NO_OPENSSL \
	  -o $(ROOT)/build/native/arm64/test_sha $(SHA) $(ROOT)/test/native/test_sha.c -pthread
	qemu-aarch64 -cpu max -L /usr/aarch64-linux-gnu $(ROOT)/build/native/arm64/test_sha

clean:
	rm -rf $(ROOT)/build/native
