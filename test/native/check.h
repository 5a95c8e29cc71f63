/* The plain-C tests' one way to check a result.
 *
 *   CHECK(cond)               passes when cond is non-zero
 *   CHECK_EQ(a, b)            passes when a == b, both taken as long long
 *   CHECK_MSG(cond, fmt, ...) as CHECK, saying what failed in printf style
 *
 * Each counts a pass or a failure and goes on; a failure prints file:line,
 * the expression or message, and for CHECK_EQ both values. main() prints
 * its summary from check_passed and check_failed and returns check_exit(),
 * 1 after any failure. Every test is one translation unit, so the counters
 * are that file's own. Call them from the test's main thread only: the
 * counters are plain ints. */
#ifndef TEST_NATIVE_CHECK_H
#define TEST_NATIVE_CHECK_H

#include <stdarg.h>
#include <stdio.h>

static int check_passed, check_failed;

#if defined(__GNUC__)
#define CHECK_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define CHECK_PRINTF(f, a)
#endif

static inline void check_result(int ok, const char *file, int line, const char *fmt, ...)
    CHECK_PRINTF(4, 5);
static inline void check_result(int ok, const char *file, int line, const char *fmt, ...) {
  va_list ap;
  if (ok) {
    check_passed++;
    return;
  }
  check_failed++;
  printf("%s:%d: FAIL: ", file, line);
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  putchar('\n');
  fflush(stdout); /* before a crash or a sanitizer's report, if one follows */
}

static inline int check_exit(void) { return check_failed == 0 ? 0 : 1; }

#define CHECK(cond)                                             \
  do {                                                          \
    check_result((cond) != 0, __FILE__, __LINE__, "%s", #cond); \
  } while (0)

/* Each operand is evaluated once. */
#define CHECK_EQ(a, b)                                                                        \
  do {                                                                                        \
    long long check_a_ = (long long)(a), check_b_ = (long long)(b);                           \
    check_result(check_a_ == check_b_, __FILE__, __LINE__, "%s == %s (%lld vs %lld)", #a, #b, \
                 check_a_, check_b_);                                                         \
  } while (0)

/* The format is the first of the variadic arguments, so that a message
 * without arguments needs none. */
#define CHECK_MSG(cond, ...)                                    \
  do {                                                          \
    check_result((cond) != 0, __FILE__, __LINE__, __VA_ARGS__); \
  } while (0)

#endif
