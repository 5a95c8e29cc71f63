#include "kdf/openssl.h"

#include <stdio.h>

#include <openssl/err.h>

void kdf_openssl_error(char *buf, size_t len, const char *fallback) {
  unsigned long e = ERR_get_error();
  if (buf != NULL && len != 0) {
    if (e != 0) {
      ERR_error_string_n(e, buf, len);
    } else {
      snprintf(buf, len, "%s", fallback);
    }
  }
  ERR_clear_error();
}
