#include "common/wipe.h"

#include <string.h>

/* A call through a volatile pointer cannot be proven to be memset, so the
 * compiler must keep it even when the buffer is freed right after. */
static void *(*const volatile wipe_memset)(void *, int, size_t) = memset;

void secure_wipe(void *p, size_t n) {
  if (p != NULL && n != 0) wipe_memset(p, 0, n);
}
