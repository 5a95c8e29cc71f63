/* See build.h: the build marker, made from what the compiler knows. */
#include "napi/build.h"

#include <stdlib.h> /* a libc header: glibc's headers define __GLIBC__ */

#ifndef KDFPOOL_VERSION
#define KDFPOOL_VERSION "unknown"
#endif

#if defined(_WIN32)
#define PLATFORM "win32"
#elif defined(__APPLE__)
#define PLATFORM "darwin"
#elif defined(__linux__)
#define PLATFORM "linux"
#elif defined(__FreeBSD__)
#define PLATFORM "freebsd"
#elif defined(__OpenBSD__)
#define PLATFORM "openbsd"
#elif defined(__sun)
#define PLATFORM "sunos"
#elif defined(_AIX)
#define PLATFORM "aix"
#else
#define PLATFORM "unknown"
#endif

#if defined(__x86_64__) || defined(_M_X64)
#define ARCH "x64"
#elif defined(__aarch64__) || defined(_M_ARM64)
#define ARCH "arm64"
#elif defined(__i386__) || defined(_M_IX86)
#define ARCH "ia32"
#elif defined(__arm__)
#define ARCH "arm"
#elif defined(__s390x__)
#define ARCH "s390x"
#elif defined(__powerpc64__)
#define ARCH "ppc64"
#elif defined(__riscv) && __riscv_xlen == 64
#define ARCH "riscv64"
#elif defined(__loongarch64)
#define ARCH "loong64"
#else
#define ARCH "unknown"
#endif

/* Linux binaries name their C library: one built against glibc does not
 * load on musl, nor the reverse. */
#if defined(__linux__) && defined(__GLIBC__)
#define LIBC "-glibc"
#elif defined(__linux__)
#define LIBC "-musl"
#else
#define LIBC ""
#endif

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || defined(KDFPOOL_SANITIZED)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer) || __has_feature(undefined_behavior_sanitizer)
#define SANITIZED 1
#endif
#endif

#ifdef KDFPOOL_TESTING
#define FLAG_TESTING "testing,"
#else
#define FLAG_TESTING ""
#endif
#ifdef KDFPOOL_FAULTS
#define FLAG_FAULTS "faults,"
#else
#define FLAG_FAULTS ""
#endif
#ifdef SANITIZED
#define FLAG_SANITIZE "sanitize,"
#else
#define FLAG_SANITIZE ""
#endif

#if defined(KDFPOOL_TESTING) || defined(KDFPOOL_FAULTS) || defined(SANITIZED)
#define FLAGS FLAG_TESTING FLAG_FAULTS FLAG_SANITIZE
#else
#define FLAGS "release"
#endif

static const char marker[] =
    "kdfpool-build version=" KDFPOOL_VERSION " target=" PLATFORM "-" ARCH LIBC " flags=" FLAGS;

const char *build_marker(void) { return marker; }
