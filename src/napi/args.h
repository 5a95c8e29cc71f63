/* Unpacking what lib/ passes to the native functions (see args.c). */
#ifndef NAPI_ARGS_H
#define NAPI_ARGS_H

#include "kdf/kdf.h"
#include "napi/env.h"
#include "napi/registry.h"
#include "pool/pool.h"

#include <stddef.h>
#include <stdint.h>

/* Outputs up to this many bytes live in the job's input allocation, and
 * reach JS through the shared transfer memory (completions.c). */
#define INLINE_OUTPUT_MAX 256

/* The `n` arguments of an internal function called by lib/ (it always
 * passes them all), and this environment's state; NULL with an exception
 * pending otherwise. */
env_state *js_args(napi_env env, napi_callback_info info, size_t n, napi_value *argv,
                   const char *fn);
/* The same for a function that takes at least `min` arguments and reads
 * at most `max` (argv has room for them); *argc is how many it read. */
env_state *js_args_var(napi_env env, napi_callback_info info, size_t min, size_t max,
                       napi_value *argv, size_t *argc, const char *fn);

/* Handles given to JS are externals with a type tag, checked on every
 * entry that takes one: a ticket passed as a pool, or a forged object, is a
 * TypeError (ERR_KDF_INVALID_HANDLE), never a wild pointer. */
typedef enum { HANDLE_POOL, HANDLE_TICKET } handle_kind;

/* An external for `data`, tagged as `kind`; throws nothing. napi_ok, or
 * the failing call's status: if the external could not be made, *out is
 * NULL and `finalize` never runs; if only the tag failed, *out is the
 * untagged external, and its finalizer still runs. */
napi_status make_handle(napi_env env, void *data, napi_finalize finalize, handle_kind kind,
                        napi_value *out);
/* The pointer behind a handle of `kind`; NULL with a TypeError pending for
 * anything else. */
void *get_handle(napi_env env, napi_value v, handle_kind kind);
/* Pool handle from a JS value: null/undefined = the default pool. NULL
 * with *rc == 0 means a TypeError is pending (not a pool handle); *rc is
 * STATUS_ECLOSED for a closed pool (the handle is still returned). */
pool_handle *get_pool(napi_env env, napi_value v, int *rc);

/* A non-negative safe integer, or STATUS_EINVAL. */
int get_u64(napi_env env, napi_value v, uint64_t *out);
/* A call's fairKey: undefined (0, the shared key) or a client name, a
 * string of at most FAIR_KEY_MAX_BYTES bytes of UTF-8 (lib/ checks its
 * length in characters first), hashed with pool_fair_key(). 0 or -1. */
#define FAIR_KEY_MAX_BYTES 4096
int get_fair_key(napi_env env, napi_value v, uint64_t *out);

/* The JS values of one request: its algorithm, inputs, numbers, digest
 * name and output length. NULL is absent: no input (its pointer stays
 * NULL), a number 0. An undefined input is absent too; a number that is
 * given must be one (STATUS_EINVAL). */
typedef struct {
  napi_value alg;
  napi_value in[KDF_MAX_INPUTS];
  napi_value num[KDF_MAX_NUMBERS];
  napi_value name;
  napi_value outlen;
} request_values;

/* The values of (alg, inputs[], numbers[], name, outlen), read out of the
 * two arrays; this runs their getters, if any (build_request() then runs
 * no JS). A hole among the numbers reads as undefined: STATUS_EINVAL. */
int request_values_from_arrays(napi_env env, const napi_value *argv, request_values *v);
/* Fills a request from its values and copies every input into one
 * allocation (*storage) that the request then owns. Runs no JS. */
int build_request(napi_env env, const request_values *v, kdf_request *r, uint8_t **storage,
                  size_t *storage_len);
/* Room for a small output at the end of `storage`, or NULL. */
uint8_t *inline_output(const kdf_request *r, uint8_t *storage, size_t storage_len);
/* kdf_prepare() before the output exists; leaves r->out NULL. */
int prepare_request(kdf_request *r);
/* Gives a prepared request its output (`room`, or NULL to allocate one). */
int bind_output(kdf_request *r, uint8_t *room);

/* Room for the strings a pool_options points to, which must outlive the
 * pool_create()/pool_reconfigure() call (the pool copies them). */
typedef struct {
  char host_dir[4096];
  char host_key[POOL_HOST_KEY_MAX + 2]; /* + 1: a longer key shows as one that fills it */
} pool_option_text;
/* Options object -> pool_options (validated in JS; zero = keep/default). */
int read_pool_options(napi_env env, napi_value obj, pool_options *o, pool_option_text *text);

#endif
