/* Wiping secrets. No OpenSSL here, so that the plain-C tests can build the
 * algorithms on their own. */
#ifndef COMMON_WIPE_H
#define COMMON_WIPE_H

#include <stddef.h>

/* Zeroes memory in a way the compiler may not remove as a dead store. */
void secure_wipe(void *p, size_t n);

#endif
