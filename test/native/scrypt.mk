# Builds and runs the plain-C scrypt tests, every BlockMix variant (needs
# OpenSSL's headers and libcrypto: libssl-dev on Debian).
#   make -f test/native/scrypt.mk              build + run
#   make -f test/native/scrypt.mk SAN=address  (or SAN=undefined) sanitized
#   KDF_SLOW=1 make -f test/native/scrypt.mk   also the N=2^20 vector (1 GiB)
ROOT := $(abspath $(dir $(lastword $(MAKEFILE_LIST)))/../..)
CC ?= cc
SAN ?=
OUT := $(ROOT)/build/native$(if $(SAN),/$(SAN))
WARN := -Wall -Wextra -Wcast-qual -Wformat=2 -Wmissing-prototypes
CFLAGS := -std=c11 -O2 -g $(WARN) -fvisibility=hidden \
  $(if $(SAN),-fsanitize=$(SAN) -fno-omit-frame-pointer -fno-sanitize-recover=all)
SRCS := $(wildcard $(ROOT)/src/kdf/scrypt/*.c) $(ROOT)/src/kdf/cpu.c $(ROOT)/src/kdf/openssl.c \
  $(addprefix $(ROOT)/src/common/,wipe.c status.c) $(ROOT)/test/native/test_scrypt.c
HDRS := $(wildcard $(ROOT)/src/kdf/*.h $(ROOT)/src/kdf/scrypt/*.h $(ROOT)/src/common/*.h)
BIN := $(OUT)/test_scrypt

.PHONY: all test clean
all: test

$(BIN): $(SRCS) $(HDRS) $(lastword $(MAKEFILE_LIST))
	@mkdir -p $(OUT)
	$(CC) $(CFLAGS) -I$(ROOT)/src -o $@ $(SRCS) -lcrypto

test: $(BIN)
	$(BIN)

clean:
	rm -f $(BIN)
