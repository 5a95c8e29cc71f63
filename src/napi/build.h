/* What this binary is, in words the loader and the packing scripts read
 * from the file itself, without loading it (lib/binary.js parses them):
 *
 *   kdfpool-build version=<package.json version> target=<platform>-<arch>[-<libc>] flags=<list>
 *
 * target uses Node's names (process.platform, process.arch) and, on Linux,
 * glibc or musl; it is what the compiler built for, so a binary copied to
 * another machine says where it belongs. flags is "release", or the
 * comma-terminated list of what makes a binary unfit to ship: "testing"
 * (native.testing, KDFPOOL_TESTING), "faults" (the fault injector,
 * KDFPOOL_FAULTS), "sanitize" (KDFPOOL_SANITIZED from gyp/binding.gyp, or
 * any sanitizer the compiler reports). The version comes from
 * binding.gyp (KDFPOOL_VERSION); "unknown" without it. */
#ifndef NAPI_BUILD_H
#define NAPI_BUILD_H

/* The marker above, a constant string (also exported as native.build, which
 * keeps it in the binary whatever the linker drops). */
const char *build_marker(void);

#endif
