/* The host's OpenSSL, looked up at run time (see openssl.h).
 *
 * Why run time: a load-time reference (an undefined symbol in the .node
 * file) is resolved by the dynamic loader when the addon is opened, and an
 * unresolved one kills the process in any host that lacks it. A lookup in
 * the global scope instead finds the same functions in Node, whether Node
 * carries OpenSSL inside its binary (the usual build, which exports it) or
 * is linked against a shared libcrypto (node_shared_openssl: libcrypto is
 * then a dependency of the executable, loaded in the global scope, so
 * RTLD_DEFAULT sees it too); in Bun and Deno it finds nothing. */
#include "kdf/openssl.h"

#include <stdio.h>
#include <string.h>

#ifdef _WIN32
/* Windows: node.exe exports OpenSSL, and GetProcAddress(GetModuleHandle(NULL),
 * name) finds it (checked under wine with Node 22). */
#include <windows.h>
#else
#include <dlfcn.h>
#include <pthread.h>
#endif

/* ---- the one OS seam: a symbol of the host process, by name ------------- */

static void *host_symbol(const char *name) {
#ifdef _WIN32
  return (void *)GetProcAddress(GetModuleHandle(NULL), name);
#else
  return dlsym(RTLD_DEFAULT, name);
#endif
}

/* ---- lookup ---------------------------------------------------------------- */

static kdf_openssl_api api;
static int found; /* written once under the once-call, read after it */
static int forced_off;

/* OpenSSL 3 renamed a few functions (EVP_MD_type became a macro for
 * EVP_MD_get_type); a Node linked against a shared OpenSSL 1.1.1 still has
 * the old names. */
static void *lookup(const char *name, const char *old_name) {
  void *f = host_symbol(name);
  if (f == NULL && old_name != NULL) f = host_symbol(old_name);
  return f;
}

/* Function pointers from void *: POSIX guarantees dlsym's result converts. */
#define LOOKUP(field, name, old_name)   \
  do {                                  \
    void *f_ = lookup(name, old_name);  \
    if (f_ == NULL) return;             \
    memcpy(&api.field, &f_, sizeof f_); \
  } while (0)

static void resolve(void) {
  LOOKUP(get_digestbyname, "EVP_get_digestbyname", NULL);
  LOOKUP(md_type, "EVP_MD_get_type", "EVP_MD_type");
  LOOKUP(md_size, "EVP_MD_get_size", "EVP_MD_size");
  LOOKUP(md_block_size, "EVP_MD_get_block_size", "EVP_MD_block_size");
  LOOKUP(ctx_new, "EVP_MD_CTX_new", NULL);
  LOOKUP(ctx_free, "EVP_MD_CTX_free", NULL);
  LOOKUP(ctx_copy, "EVP_MD_CTX_copy_ex", NULL);
  LOOKUP(digest_init, "EVP_DigestInit_ex", NULL);
  LOOKUP(digest_update, "EVP_DigestUpdate", NULL);
  LOOKUP(digest_final, "EVP_DigestFinal_ex", NULL);
  LOOKUP(pbkdf2_hmac, "PKCS5_PBKDF2_HMAC", NULL);
  LOOKUP(err_get, "ERR_get_error", NULL);
  LOOKUP(err_string, "ERR_error_string_n", NULL);
  LOOKUP(err_clear, "ERR_clear_error", NULL);
  /* Optional pair: both or neither (a fetched digest must be released). */
  void *fetch = lookup("EVP_MD_fetch", NULL), *release = lookup("EVP_MD_free", NULL);
  if (fetch != NULL && release != NULL) {
    memcpy(&api.md_fetch, &fetch, sizeof fetch);
    memcpy(&api.md_free, &release, sizeof release);
  }
  found = 1; /* all or nothing, but for the optional pair above */
}

#ifdef _WIN32
static INIT_ONCE once = INIT_ONCE_STATIC_INIT;
static BOOL CALLBACK resolve_once(PINIT_ONCE o, PVOID arg, PVOID *ctx) {
  (void)o;
  (void)arg;
  (void)ctx;
  resolve();
  return TRUE;
}
#else
static pthread_once_t once = PTHREAD_ONCE_INIT;
#endif

const kdf_openssl_api *kdf_openssl(void) {
  if (__atomic_load_n(&forced_off, __ATOMIC_RELAXED)) return NULL;
#ifdef _WIN32
  InitOnceExecuteOnce(&once, resolve_once, NULL, NULL);
#else
  pthread_once(&once, resolve);
#endif
  return found ? &api : NULL;
}

int kdf_openssl_force(const char *name) {
  if (name == NULL || strcmp(name, "auto") == 0) {
    __atomic_store_n(&forced_off, 0, __ATOMIC_RELAXED);
    return 0;
  }
  if (strcmp(name, "none") == 0) {
    __atomic_store_n(&forced_off, 1, __ATOMIC_RELAXED);
    return 0;
  }
  return -1;
}

int kdf_openssl_at_cleanup(void (*fn)(void)) {
  int (*at_cleanup)(void (*)(void)) = NULL;
  void *f = host_symbol("OPENSSL_atexit"); /* OpenSSL >= 1.1.1 */
  if (f == NULL) return -1;
  memcpy(&at_cleanup, &f, sizeof f);
  return at_cleanup(fn) == 1 ? 0 : -1;
}

void kdf_openssl_error(char *buf, size_t len, const char *fallback) {
  const kdf_openssl_api *o = kdf_openssl();
  unsigned long e = o != NULL ? o->err_get() : 0;
  if (buf != NULL && len != 0) {
    if (e != 0) {
      o->err_string(e, buf, len);
    } else {
      snprintf(buf, len, "%s", fallback);
    }
  }
  if (o != NULL) o->err_clear();
}
