/* OpenSSL's error queue is per thread: a failure must be read on the thread
 * where it happened (a pool worker), or the message is lost or, worse,
 * another job's. The algorithms that call OpenSSL read it here, right after
 * the failing call. */
#ifndef KDF_OPENSSL_H
#define KDF_OPENSSL_H

#include <stddef.h>

/* Writes this thread's first queued OpenSSL error into buf (len bytes), or
 * `fallback` when the queue is empty, and clears the queue. */
void kdf_openssl_error(char *buf, size_t len, const char *fallback);

#endif
