/*
 * Lets Bun's musl builds run on a Debian machine, for test/smoke/run.sh's
 * musl targets. They need libstdc++.so.6 and libgcc_s.so.1 built for musl,
 * which only Alpine ships (Debian's musl-tools has musl's C library and
 * loader only). run.sh gives them Debian's glibc builds of those two
 * libraries instead, with libc.so.6 and the glibc loader's name pointing at
 * musl's libc.so: musl's loader ignores symbol versions, so that works once
 * the few glibc-only symbols they import exist. This file, preloaded, is
 * those symbols. Only the runtime's C++ support goes through it: the addon
 * under test is the musl prebuild, linked against musl's libc alone.
 */
#include <locale.h>
#include <stdint.h>
#include <sys/auxv.h>
#include <sys/random.h>
#include <time.h>

/* 0: libstdc++ keeps its atomic reference counts (never "single threaded"). */
char __libc_single_threaded = 0;

uint32_t arc4random(void) {
  uint32_t v = 0;
  while (getrandom(&v, sizeof v, 0) != (ssize_t)sizeof v) {
  }
  return v;
}

size_t __strftime_l(char *s, size_t n, const char *format, const struct tm *tm, locale_t locale) {
  return strftime_l(s, n, format, tm, locale);
}

/* thread_local destructors are not run: the smoke process is short-lived. */
int __cxa_thread_atexit_impl(void (*dtor)(void *), void *obj, void *dso) {
  (void)dtor;
  (void)obj;
  (void)dso;
  return 0;
}

/* -1: "not found", so libgcc's unwinder falls back to dl_iterate_phdr. */
struct dl_find_object;
int _dl_find_object(void *pc, struct dl_find_object *result) {
  (void)pc;
  (void)result;
  return -1;
}

/* libgcc's x86 CPU model, left unknown (zeros). */
struct {
  unsigned vendor, type, subtype, features[1];
} __cpu_model;
int __cpu_indicator_init(void) { return 0; }

unsigned long __getauxval(unsigned long type) { return getauxval(type); }
