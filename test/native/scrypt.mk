# Builds and runs the plain-C scrypt tests, every BlockMix variant (needs
# OpenSSL's headers and libcrypto, the oracle: libssl-dev on Debian).
#   make -f test/native/scrypt.mk              build + run
#   make -f test/native/scrypt.mk SAN=address  (or SAN=undefined) sanitized
#   KDF_SLOW=1 make -f test/native/scrypt.mk   also the N=2^20 vector (1 GiB)
#   make -f test/native/scrypt.mk arm64        arm64 build under qemu-aarch64
include $(dir $(lastword $(MAKEFILE_LIST)))common.mk
SHA := $(addprefix $(ROOT)/src/kdf/sha/,sha.c sha_core.c sha_portable.c sha_x86.c sha_arm.c)
SRCS := $(wildcard $(ROOT)/src/kdf/scrypt/*.c) $(ROOT)/src/kdf/cpu.c $(ROOT)/src/kdf/openssl.c \
  $(ROOT)/src/kdf/pbkdf2.c $(ROOT)/src/kdf/pbkdf2_digest.c $(SHA) \
  $(addprefix $(ROOT)/src/common/,wipe.c status.c) $(ROOT)/test/native/test_scrypt.c
HDRS := $(wildcard $(ROOT)/src/kdf/*.h $(ROOT)/src/kdf/scrypt/*.h $(ROOT)/src/kdf/sha/*.h \
  $(ROOT)/src/common/*.h) $(ROOT)/test/native/check.h
BIN := $(OUT)/test_scrypt

.PHONY: all test clean arm64 bench
all: test

$(BIN): $(SRCS) $(HDRS) $(lastword $(MAKEFILE_LIST))
	@mkdir -p $(OUT)
	$(CC) $(CFLAGS) -I$(ROOT)/src -o $@ $(SRCS) -lcrypto -ldl -pthread

test: $(BIN)
	$(BIN)

# arm64 under qemu (needs gcc-aarch64-linux-gnu, qemu-user and arm64
# OpenSSL: dpkg --add-architecture arm64 && apt-get install libssl-dev:arm64):
# portable and neon against the vectors, and neon against portable on random
# BlockMix inputs and parameters. Correctness only: qemu says nothing about
# speed. KDF_NO_THREADS=1: qemu-user here hangs in pthread_create, so the
# lanes' mid-batch stop (a second thread raises the flag) is skipped.
ARM_CC ?= aarch64-linux-gnu-gcc
ARM_OUT := $(ROOT)/build/native/arm64
arm64: $(SRCS) $(HDRS)
	@mkdir -p $(ARM_OUT)
	$(ARM_CC) -std=c11 -O2 -g $(WARN) -fvisibility=hidden -I$(ROOT)/src \
	  -o $(ARM_OUT)/test_scrypt $(SRCS) -lcrypto
	KDF_NO_THREADS=1 qemu-aarch64 -cpu max -L /usr/aarch64-linux-gnu $(ARM_OUT)/test_scrypt

clean:
	rm -f $(BIN)

# Lane figures (not a test): CPU ms per lane of one chain against the lane
# kernels, N = 2^14, r = 8.
BENCH_SRCS := $(filter-out %/test_scrypt.c,$(SRCS)) $(ROOT)/test/native/scrypt_bench.c
bench: $(BENCH_SRCS) $(HDRS)
	@mkdir -p $(OUT)
	$(CC) $(CFLAGS) -I$(ROOT)/src -o $(OUT)/scrypt_bench $(BENCH_SRCS) -lcrypto -ldl -pthread
	$(OUT)/scrypt_bench
