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

/* ---- a client's record ---- */

/* 2^-x for x >= 0, without libm: the whole halvings exactly, the rest by
 * four terms of exp's series (within 0.2 %). */
static double halved(double x) {
  if (!(x < 64)) return 0;
  unsigned whole = (unsigned)x;
  double y = (x - whole) * 0.6931471805599453;
  double part = 1 - y + y * y / 2 - y * y * y / 6 + y * y * y * y / 24;
  return part / (double)(1ull << whole);
}

double keys_use(const key_record *r, uint64_t now) {
  if (r->use <= 0) return 0;
  if (now <= r->use_at) return r->use;
  return r->use * halved((double)(now - r->use_at) / (double)KEYS_USE_HALF_LIFE_NS);
}

/* How much a record still counts: its use and its lead on virtual time. */
static double weight(const key_record *r, uint64_t vtime, uint64_t now) {
  return keys_use(r, now) + (r->finish > vtime ? (double)(r->finish - vtime) : 0);
}

static int counts(const key_record *r, uint64_t vtime, uint64_t now) {
  return weight(r, vtime, now) >= 1;
}

/* ---- the memory ---- */

static key_memory *set_of(const keys *k, uint64_t id) {
  unsigned sets = KEYS_MEMORY / KEYS_WAYS;
  return &k->memory[((mix(id) >> 40) & (sets - 1)) * KEYS_WAYS];
}

static key_memory *entry_of(const keys *k, uint64_t id, uint64_t vtime, uint64_t now) {
  if (k->memory == NULL) return NULL;
  key_memory *set = set_of(k, id);
  for (unsigned i = 0; i < KEYS_WAYS; i++) {
    POOL_STEP();
    if (set[i].id == id && counts(&set[i].rec, vtime, now)) return &set[i];
  }
  return NULL;
}

key_record keys_recall(const keys *k, uint64_t id, uint64_t vtime, uint64_t now) {
  key_record none = { 0 };
  const key_state *s = keys_find(k, id);
  if (s != NULL) return s->rec;
  if (id == 0) return counts(&k->shared, vtime, now) ? k->shared : none;
  const key_memory *e = entry_of(k, id, vtime, now);
  return e != NULL ? e->rec : none;
}

/* Remembers `rec` for `id`: its own entry, one that no longer counts, or
 * else the one that counts least. If the table cannot be allocated the
 * key is simply not remembered. */
static void remember(keys *k, uint64_t id, const key_record *rec, uint64_t vtime, uint64_t now) {
  if (id == 0) {
    k->shared = *rec;
    return;
  }
  if (k->memory == NULL && (k->memory = KDF_CALLOC(KEYS_MEMORY, sizeof *k->memory)) == NULL) return;
  key_memory *set = set_of(k, id), *slot = NULL;
  double least = 0;
  for (unsigned i = 0; i < KEYS_WAYS; i++) {
    POOL_STEP();
    key_memory *e = &set[i];
    if (e->id == id) {
      slot = e;
      break;
    }
    double w = weight(&e->rec, vtime, now);
    if (!(w >= 1)) w = -1; /* no longer counts */
    if (slot == NULL || w < least) {
      slot = e;
      least = w;
    }
  }
  slot->id = id;
  slot->rec = *rec;
}

unsigned keys_remembered(const keys *k, uint64_t vtime, uint64_t now) {
  unsigned n = counts(&k->shared, vtime, now);
  if (k->memory != NULL)
    for (unsigned i = 0; i < KEYS_MEMORY; i++) n += counts(&k->memory[i].rec, vtime, now);
  return n;
}

void keys_charge(key_record *r, double ns, uint64_t now) {
  r->use = keys_use(r, now) + ns;
  r->use_at = now;
}

void keys_refused(keys *k, uint64_t id, uint64_t expect, uint64_t vtime, uint64_t now) {
  double demand = (double)expect / KEYS_REFUSAL_SHARE;
  key_state *s = keys_find(k, id);
  if (s != NULL) {
    keys_charge(&s->rec, demand, now);
  } else if (id == 0) {
    keys_charge(&k->shared, demand, now);
  } else {
    key_memory *e = entry_of(k, id, vtime, now);
    if (e != NULL) {
      keys_charge(&e->rec, demand, now);
    } else {
      key_record rec = { 0 };
      keys_charge(&rec, demand, now);
      remember(k, id, &rec, vtime, now);
    }
  }
}

/* ---- opening and closing a key ---- */

key_state *keys_open(keys *k, uint64_t id, uint64_t vtime, uint64_t now) {
  key_state *s = keys_find(k, id);
  if (s != NULL) return s;
  if (k->spare != NULL) {
    s = k->spare;
    k->spare = s->chain;
    k->nspare--;
  } else if ((s = KDF_MALLOC(sizeof *s)) == NULL) {
    return NULL;
  }
  /* What the memory holds of it moves into its state, in one look. */
  key_record rec = { 0 };
  if (id == 0) {
    if (counts(&k->shared, vtime, now)) rec = k->shared;
    k->shared = (key_record){ 0 };
  } else {
    key_memory *e = entry_of(k, id, vtime, now);
    if (e != NULL) {
      rec = e->rec;
      e->rec = (key_record){ 0 };
    }
  }
  *s = (key_state){ .id = id, .rec = rec };
  if (s->rec.finish < vtime) s->rec.finish = vtime;
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

void keys_close(keys *k, key_state *s, uint64_t vtime, uint64_t now) {
  if (counts(&s->rec, vtime, now)) remember(k, s->id, &s->rec, vtime, now);
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
