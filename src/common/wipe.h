/* Wiping secrets. No OpenSSL here, so that the plain-C tests can build the
 * algorithms on their own. */
#ifndef COMMON_WIPE_H
#define COMMON_WIPE_H

#include <stddef.h>

/* Zeroes memory in a way the compiler may not remove as a dead store. */
void secure_wipe(void *p, size_t n);

/* How much of the stack secure_wipe_stack() zeroes: more than the deepest
 * chain of frames a KDF's kernels leave below their caller (PBKDF2's lane
 * runner and the AVX-512 SHA-512 lanes need about 13 KiB together). */
#define SECURE_WIPE_STACK_BYTES 16384

/* Zeroes the SECURE_WIPE_STACK_BYTES just below the caller's frame, where
 * the functions it called kept their frames: what a kernel leaves there
 * (registers the compiler spilled, such as PBKDF2's HMAC states, which are
 * as good as the password) is not in any buffer the code could wipe by
 * name. Call it right after the kernels return. */
void secure_wipe_stack(void);

#endif
