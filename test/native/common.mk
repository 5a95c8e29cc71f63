# What the Argon2, PBKDF2, scrypt and SHA test makefiles share: the repo
# root, the compiler, the sanitizer switch (SAN=address|undefined|thread,
# one output directory each) and the project's warnings and flags.
# Included first, so that MAKEFILE_LIST's last word is this file.
ROOT := $(abspath $(dir $(lastword $(MAKEFILE_LIST)))/../..)
CC ?= cc
SAN ?=
OUT := $(ROOT)/build/native$(if $(SAN),/$(SAN))
WARN := -Wall -Wextra -Wcast-qual -Wformat=2 -Wmissing-prototypes
CFLAGS := -std=c11 -O2 -g $(WARN) -fvisibility=hidden \
  $(if $(SAN),-fsanitize=$(SAN) -fno-omit-frame-pointer -fno-sanitize-recover=all)
