# Builds and runs the plain-C PBKDF2 tests (needs OpenSSL's headers and
# libcrypto: libssl-dev on Debian). The code under test links no OpenSSL:
# it finds the test's libcrypto at run time (dlsym), as it finds Node's.
#   make -f test/native/pbkdf2.mk              build + run
#   make -f test/native/pbkdf2.mk SAN=address  (or SAN=undefined) sanitized
#   KDF_SLOW=1 make -f test/native/pbkdf2.mk   also the 2^24-iteration vectors
include $(dir $(lastword $(MAKEFILE_LIST)))common.mk
SHA := $(addprefix $(ROOT)/src/kdf/sha/,sha.c sha_core.c sha_portable.c sha_x86.c sha_arm.c)
SRCS := $(ROOT)/src/kdf/pbkdf2.c $(ROOT)/src/kdf/pbkdf2_digest.c $(ROOT)/src/kdf/cpu.c $(ROOT)/src/kdf/openssl.c $(SHA) \
  $(addprefix $(ROOT)/src/common/,wipe.c status.c) $(ROOT)/test/native/test_pbkdf2.c
HDRS := $(wildcard $(ROOT)/src/kdf/*.h $(ROOT)/src/kdf/sha/*.h $(ROOT)/src/common/*.h) \
  $(ROOT)/test/native/check.h $(ROOT)/test/native/stack_probe.h
VECTORS_H := $(OUT)/pbkdf2_vectors.h
BIN := $(OUT)/test_pbkdf2

.PHONY: all test clean
all: test

$(VECTORS_H): $(ROOT)/test/vectors/pbkdf2.json $(ROOT)/test/native/gen_pbkdf2_vectors.js
	@mkdir -p $(OUT)
	node $(ROOT)/test/native/gen_pbkdf2_vectors.js $< $@

$(BIN): $(SRCS) $(HDRS) $(VECTORS_H) $(lastword $(MAKEFILE_LIST))
	$(CC) $(CFLAGS) -I$(ROOT)/src -I$(OUT) -o $@ $(SRCS) -lcrypto -ldl -pthread

test: $(BIN)
	$(BIN)

clean:
	rm -f $(BIN) $(VECTORS_H)
