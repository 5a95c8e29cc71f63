/* One list of the negative error codes used by every C file in src/.
 * binding.c maps each to a JS error; names come from the same list so the
 * two can never drift apart. */
#ifndef KDF_ERRORS_H
#define KDF_ERRORS_H

#define KDF_ERRNO_MAP(XX)                                              \
  XX(EINVAL, -1, "invalid argument")                                   \
  XX(ENOMEM, -2, "out of memory")                                      \
  XX(ECANCELED, -3, "job cancelled before it ran")                     \
  XX(EFULL, -4, "pool queue is full")                                  \
  XX(ECLOSED, -5, "pool is closed")                                    \
  XX(EMEMLIMIT, -6, "job needs more memory than the pool budget")      \
  XX(EDIGEST, -7, "unsupported digest")                                \
  XX(ECRYPTO, -8, "OpenSSL reported an error")                         \
  XX(ESTOPPED, -9, "work stopped because the process is exiting")      \
  XX(ETIMEDOUT, -10, "job waited in the queue past its deadline")

enum {
#define XX(name, value, msg) KDF_##name = (value),
  KDF_ERRNO_MAP(XX)
#undef XX
};

/* Static string for a code; "unknown error" for anything not in the list. */
const char *kdf_strerror(int code);
const char *kdf_errname(int code);

#endif
