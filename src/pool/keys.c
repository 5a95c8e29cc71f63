/* Key states and the bounded memory of finish tags (keys.h). */
#include "pool/keys.h"

#include "common/fault.h"
#include "pool/steps.h"

#include <stddef.h>
#include <stdlib.h>

#define MIN_BUCKETS 64
/* Freed states kept for reuse, so that a stream of calls from keys that
 * come and go does not allocate for each. */
#define MAX_SPARE   64

/* Ids are keyed hashes already; mixing once more keeps a poor hash from
 * crowding one bucket or set. */
static uint64_t mix(uint64_t id) { return id * 0x9E3779B97F4A7C15ull; }

int keys_init(keys *k) {
  *k = (keys){ 0 };
  k->buckets = KDF_CALLOC(MIN_BUCKETS, sizeof *k->buckets);
  if (k->buckets == NULL) return -1;
  k->nbuckets = MIN_BUCKETS;
  return 0;
}

void keys_free(keys *k) {
  for (unsigned i = 0; i < k->nbuckets; i++) {
    for (key_state *s = k->buckets[i], *next; s != NULL; s = next) {
      next = s->chain;
      KDF_FREE(s);
    }
  }
  while (k->spare != NULL) {
    key_state *s = k->spare;
    k->spare = s->chain;
    KDF_FREE(s);
  }
  KDF_FREE(k->buckets);
  KDF_FREE(k->memory);
  *k = (keys){ 0 };
}

/* ---- states of keys with queued jobs ---- */

static key_state **bucket_of(const keys *k, uint64_t id) {
  return &k->buckets[(mix(id) >> 32) & (k->nbuckets - 1)];
}

key_state *keys_find(const keys *k, uint64_t id) {
  key_state *s = *bucket_of(k, id);
  while (s != NULL && s->id != id) {
    POOL_STEP();
    s = s->chain;
  }
  return s;
}

/* Doubles the buckets when keys outnumber them (amortized O(1)); if that
 * allocation fails, chains just grow longer. */
static void grow(keys *k) {
  if (k->nkeys <= k->nbuckets) return;
  unsigned n = k->nbuckets * 2;
  key_state **b = KDF_CALLOC(n, sizeof *b);
  if (b == NULL) return;
  key_state **old = k->buckets;
  unsigned oldn = k->nbuckets;
  k->buckets = b;
  k->nbuckets = n;
  for (unsigned i = 0; i < oldn; i++) {
    for (key_state *s = old[i], *next; s != NULL; s = next) {
      next = s->chain;
      key_state **slot = bucket_of(k, s->id);
      s->chain = *slot;
      *slot = s;
    }
  }
  KDF_FREE(old);
}

/* ---- the memory ---- */

static key_memory *set_of(const keys *k, uint64_t id) {
  unsigned sets = KEYS_MEMORY / KEYS_WAYS;
  return &k->memory[((mix(id) >> 40) & (sets - 1)) * KEYS_WAYS];
}

uint64_t keys_recall(const keys *k, uint64_t id, uint64_t vtime) {
  uint64_t finish = 0;
  if (id == 0) {
    finish = k->shared_finish;
  } else if (k->memory != NULL) {
    const key_memory *set = set_of(k, id);
    for (unsigned i = 0; i < KEYS_WAYS; i++) {
      POOL_STEP();
      if (set[i].finish != 0 && set[i].id == id) finish = set[i].finish;
    }
  }
  return finish > vtime ? finish : 0;
}

static void forget_one(keys *k, uint64_t id) {
  if (id == 0) {
    k->shared_finish = 0;
    return;
  }
  if (k->memory == NULL) return;
  key_memory *set = set_of(k, id);
  for (unsigned i = 0; i < KEYS_WAYS; i++)
    if (set[i].id == id) set[i].finish = 0;
}

/* Remembers `finish` for `id`: its own entry, a free one (nothing, or a
 * finish virtual time has passed), or else the entry the least ahead. If
 * the table cannot be allocated the key is simply not remembered. */
static void remember(keys *k, uint64_t id, uint64_t finish, uint64_t vtime) {
  if (id == 0) {
    k->shared_finish = finish;
    return;
  }
  if (k->memory == NULL && (k->memory = KDF_CALLOC(KEYS_MEMORY, sizeof *k->memory)) == NULL) return;
  key_memory *set = set_of(k, id), *slot = NULL;
  for (unsigned i = 0; i < KEYS_WAYS; i++) {
    POOL_STEP();
    key_memory *e = &set[i];
    if (e->finish != 0 && e->id == id) {
      slot = e;
      break;
    }
    if (e->finish <= vtime) {
      if (slot == NULL || slot->finish > vtime) slot = e;
    } else if (slot == NULL || (slot->finish > vtime && e->finish < slot->finish)) {
      slot = e;
    }
  }
  slot->id = id;
  slot->finish = finish;
}

void keys_forget(keys *k) {
  k->shared_finish = 0;
  if (k->memory != NULL)
    for (unsigned i = 0; i < KEYS_MEMORY; i++) k->memory[i].finish = 0;
}

unsigned keys_remembered(const keys *k, uint64_t vtime) {
  unsigned n = k->shared_finish > vtime;
  if (k->memory != NULL)
    for (unsigned i = 0; i < KEYS_MEMORY; i++) n += k->memory[i].finish > vtime;
  return n;
}

/* ---- opening and closing a key ---- */

key_state *keys_open(keys *k, uint64_t id, uint64_t vtime) {
  key_state *s = keys_find(k, id);
  if (s != NULL) return s;
  if (k->spare != NULL) {
    s = k->spare;
    k->spare = s->chain;
    k->nspare--;
  } else if ((s = KDF_MALLOC(sizeof *s)) == NULL) {
    return NULL;
  }
  *s = (key_state){ .id = id, .finish = keys_recall(k, id, vtime) };
  forget_one(k, id);
  if (s->finish < vtime) s->finish = vtime;
  key_state **slot = bucket_of(k, id);
  s->chain = *slot;
  *slot = s;
  k->nkeys++;
  grow(k);
  return s;
}

void keys_append(key_state *s, pool_job *job) {
  job->key_state = s;
  job->key_next = NULL;
  job->key_prev = s->tail;
  if (s->tail != NULL)
    s->tail->key_next = job;
  else
    s->head = job;
  s->tail = job;
  s->queued++;
}

void keys_unlink(key_state *s, pool_job *job) {
  if (job->key_prev != NULL)
    job->key_prev->key_next = job->key_next;
  else
    s->head = job->key_next;
  if (job->key_next != NULL)
    job->key_next->key_prev = job->key_prev;
  else
    s->tail = job->key_prev;
  job->key_prev = job->key_next = NULL;
  job->key_state = NULL;
  s->queued--;
}

void keys_close(keys *k, key_state *s, uint64_t vtime) {
  if (s->finish > vtime) remember(k, s->id, s->finish, vtime);
  key_state **slot = bucket_of(k, s->id);
  while (*slot != s) slot = &(*slot)->chain;
  *slot = s->chain;
  k->nkeys--;
  if (k->nspare < MAX_SPARE) {
    s->chain = k->spare;
    k->spare = s;
    k->nspare++;
  } else {
    KDF_FREE(s);
  }
}
