/* The one list of status codes (negative, 0 = success) shared by the pool,
 * the KDFs and the binding. It is neutral on purpose: the pool returns
 * STATUS_ECLOSED or STATUS_EFULL without knowing that the same list also
 * holds STATUS_EDIGEST. The binding exports the list by name and value as
 * native.constants.status, so lib/ never keeps a copy; names and values are
 * part of that contract and must not change. */
#ifndef COMMON_STATUS_H
#define COMMON_STATUS_H

#define STATUS_MAP(XX)                                                          \
  XX(EINVAL, -1, "invalid argument")                                            \
  XX(ENOMEM, -2, "out of memory")                                               \
  XX(ECANCELED, -3, "job cancelled before it ran")                              \
  XX(EFULL, -4, "pool queue is full")                                           \
  XX(ECLOSED, -5, "pool is closed")                                             \
  XX(EMEMLIMIT, -6, "job needs more memory than the pool budget")               \
  XX(EDIGEST, -7, "unsupported digest")                                         \
  XX(ECRYPTO, -8, "OpenSSL reported an error")                                  \
  XX(ESTOPPED, -9, "work stopped because the process is exiting")               \
  XX(ETIMEDOUT, -10, "job waited in the queue past its deadline")               \
  XX(EUNAVAILABLE, -11, "digest needs OpenSSL, which the host does not export") \
  XX(EIO, -12, "a lock file could not be opened or locked")                     \
  XX(EDISPLACED, -13, "job gave its place in the queue to a lighter client")

enum {
#define XX(name, value, msg) STATUS_##name = (value),
  STATUS_MAP(XX)
#undef XX
};

/* Static strings for a code: its message, and its name without prefix
 * ("EINVAL"); "unknown error" and "UNKNOWN" for anything not in the list. */
const char *status_message(int code);
const char *status_name(int code);

#endif
