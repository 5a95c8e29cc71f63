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
  KDF_FREE(k->charged);
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

static uint64_t later(uint64_t a, uint64_t b) { return a > b ? a : b; }

/* How far a record reaches past virtual time. */
static uint64_t lead(const key_record *r, uint64_t vtime) {
  uint64_t reach = later(r->finish, r->mark);
  return reach > vtime ? reach - vtime : 0;
}

static int counts(const key_record *r, uint64_t vtime) { return lead(r, vtime) != 0; }

/* ---- the charged entries of the memory: a min-heap by mark ---- */

static uint64_t mark_at(const keys *k, unsigned pos) { return k->memory[k->charged[pos]].rec.mark; }

static void heap_put(keys *k, unsigned pos, unsigned entry) {
  k->charged[pos] = entry;
  k->memory[entry].heap_at = pos + 1;
}

static void sift_up(keys *k, unsigned pos) {
  unsigned entry = k->charged[pos];
  uint64_t mark = k->memory[entry].rec.mark;
  while (pos > 0 && mark_at(k, (pos - 1) / 2) > mark) {
    heap_put(k, pos, k->charged[(pos - 1) / 2]);
    pos = (pos - 1) / 2;
  }
  heap_put(k, pos, entry);
}

static void sift_down(keys *k, unsigned pos) {
  unsigned entry = k->charged[pos];
  uint64_t mark = k->memory[entry].rec.mark;
  for (;;) {
    unsigned c = 2 * pos + 1;
    if (c >= k->ncharged) break;
    if (c + 1 < k->ncharged && mark_at(k, c + 1) < mark_at(k, c)) c++;
    if (mark_at(k, c) >= mark) break;
    heap_put(k, pos, k->charged[c]);
    pos = c;
  }
  heap_put(k, pos, entry);
}

static void heap_drop(keys *k, key_memory *e) {
  unsigned pos = e->heap_at - 1, last = k->charged[--k->ncharged];
  e->heap_at = 0;
  if (pos == k->ncharged) return;
  heap_put(k, pos, last);
  sift_up(k, pos);
  sift_down(k, k->memory[last].heap_at - 1);
}

/* `e`'s record was just written: in the heap while its mark is ahead. */
static void heap_follow(keys *k, key_memory *e, uint64_t vtime) {
  if (e->rec.mark <= vtime) {
    if (e->heap_at != 0) heap_drop(k, e);
    return;
  }
  if (e->heap_at == 0) {
    heap_put(k, k->ncharged++, (unsigned)(e - k->memory));
    sift_up(k, k->ncharged - 1);
    return;
  }
  sift_up(k, e->heap_at - 1);
  sift_down(k, e->heap_at - 1);
}

unsigned keys_backlogged(keys *k, uint64_t vtime) {
  while (k->ncharged != 0 && mark_at(k, 0) <= vtime) {
    POOL_STEP();
    heap_drop(k, &k->memory[k->charged[0]]);
  }
  return k->nkeys + k->ncharged + (k->shared.mark > vtime);
}

/* ---- the memory ---- */

static key_memory *set_of(const keys *k, uint64_t id) {
  unsigned sets = KEYS_MEMORY / KEYS_WAYS;
  return &k->memory[((mix(id) >> 40) & (sets - 1)) * KEYS_WAYS];
}

static key_memory *entry_of(const keys *k, uint64_t id, uint64_t vtime) {
  if (k->memory == NULL) return NULL;
  key_memory *set = set_of(k, id);
  for (unsigned i = 0; i < KEYS_WAYS; i++) {
    POOL_STEP();
    if (set[i].id == id && counts(&set[i].rec, vtime)) return &set[i];
  }
  return NULL;
}

key_record keys_recall(const keys *k, uint64_t id, uint64_t vtime) {
  key_record none = { 0 };
  const key_state *s = keys_find(k, id);
  if (s != NULL) return s->rec;
  if (id == 0) return counts(&k->shared, vtime) ? k->shared : none;
  const key_memory *e = entry_of(k, id, vtime);
  return e != NULL ? e->rec : none;
}

/* Remembers `rec` for `id`: its own entry, one that no longer counts, or
 * else the one that counts least. If the table cannot be allocated the key
 * is simply not remembered. */
static void remember(keys *k, uint64_t id, const key_record *rec, uint64_t vtime) {
  if (id == 0) {
    k->shared = *rec;
    return;
  }
  if (k->memory == NULL) {
    k->memory = KDF_CALLOC(KEYS_MEMORY, sizeof *k->memory);
    k->charged = KDF_MALLOC(KEYS_MEMORY * sizeof *k->charged);
    if (k->memory == NULL || k->charged == NULL) {
      KDF_FREE(k->memory);
      KDF_FREE(k->charged);
      k->memory = NULL;
      k->charged = NULL;
      return;
    }
  }
  key_memory *set = set_of(k, id), *slot = NULL;
  uint64_t least = 0;
  for (unsigned i = 0; i < KEYS_WAYS; i++) {
    POOL_STEP();
    key_memory *e = &set[i];
    if (e->id == id) {
      slot = e;
      break;
    }
    uint64_t w = lead(&e->rec, vtime); /* 0: no longer counts */
    if (slot == NULL || w < least) {
      slot = e;
      least = w;
    }
  }
  slot->id = id;
  slot->rec = *rec;
  heap_follow(k, slot, vtime);
}

unsigned keys_remembered(const keys *k, uint64_t vtime) {
  unsigned n = counts(&k->shared, vtime);
  if (k->memory != NULL)
    for (unsigned i = 0; i < KEYS_MEMORY; i++) n += counts(&k->memory[i].rec, vtime);
  return n;
}

/* `r`'s mark after a charge (keys_charge). */
static uint64_t charged_mark(const key_record *r, uint64_t charge, uint64_t cap, uint64_t vtime) {
  uint64_t mark = later(vtime, r->mark) + charge;
  if (mark > cap) mark = cap;
  return later(mark, r->mark);
}

uint64_t keys_charge(keys *k, uint64_t id, uint64_t charge, uint64_t cap, uint64_t vtime) {
  key_state *s = keys_find(k, id);
  if (s != NULL) return s->rec.mark = charged_mark(&s->rec, charge, cap, vtime);
  if (id == 0) return k->shared.mark = charged_mark(&k->shared, charge, cap, vtime);
  key_memory *e = entry_of(k, id, vtime);
  if (e == NULL) {
    key_record none = { 0 }, rec = { .mark = charged_mark(&none, charge, cap, vtime) };
    remember(k, id, &rec, vtime);
    return rec.mark;
  }
  uint64_t mark = charged_mark(&e->rec, charge, cap, vtime);
  if (mark != e->rec.mark) {
    e->rec.mark = mark;
    heap_follow(k, e, vtime);
  }
  return mark;
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
  /* What the memory holds of it moves into its state, in one look. */
  key_record rec = { 0 };
  if (id == 0) {
    if (counts(&k->shared, vtime)) rec = k->shared;
    k->shared = (key_record){ 0 };
  } else {
    key_memory *e = entry_of(k, id, vtime);
    if (e != NULL) {
      rec = e->rec;
      e->rec = (key_record){ 0 };
      heap_follow(k, e, vtime);
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

void keys_close(keys *k, key_state *s, uint64_t vtime) {
  if (counts(&s->rec, vtime)) remember(k, s->id, &s->rec, vtime);
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
