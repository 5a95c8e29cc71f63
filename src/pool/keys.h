/* The scheduler's clients (sched.c): a state for each key with queued
 * jobs, and a bounded memory of the keys that have none.
 *
 * A key is an opaque 64-bit number (the submitter's keyed hash of a client
 * name); 0 is the one key shared by every job that names none. What the
 * scheduler remembers of a client:
 *   finish  its finish tag (see sched.h): how far ahead of the pool's
 *           virtual time its accepted work reaches;
 *   use     its recent demand: the expected thread time it was served,
 *           and 1/KEYS_REFUSAL_SHARE of a job's for each call turned away
 *           (asking again and again is what a flood does), halving every
 *           KEYS_USE_HALF_LIFE_NS of real time: a client that asked lately
 *           gives way to one that did not, even once virtual time has
 *           caught up with both (sched.h);
 * A key with queued jobs has a state here; when its last job leaves, what
 * still counts (a finish ahead of virtual time, some use) goes
 * into the memory, a fixed table of KEYS_MEMORY entries (8-way sets,
 * allocated on first use), so that a client that comes back is known.
 * When a set is full, the entry that counts least (use plus lead) gives
 * way. The memory does not grow with the number of keys ever seen: a flood
 * from more clients than it holds has some of them forgotten, which then
 * count as newcomers.
 *
 * A data structure only: the pool's lock guards it; every operation is
 * O(1) (a hash bucket, one set of the memory). */
#ifndef POOL_KEYS_H
#define POOL_KEYS_H

#include "pool/pool.h"

#include <stdint.h>

#define KEYS_MEMORY           16384
#define KEYS_WAYS             8
#define KEYS_USE_HALF_LIFE_NS (5ull * 1000 * 1000 * 1000)
#define KEYS_REFUSAL_SHARE    16

/* What the pool knows of a client. */
typedef struct {
  uint64_t finish; /* 0: nothing ahead of virtual time */
  double use;      /* ns of expected thread time, as of use_at */
  uint64_t use_at; /* pool_now_ns() clock */
} key_record;

typedef struct key_state {
  uint64_t id;
  struct key_state *chain; /* next in its hash bucket, or on the spare list */
  pool_job *head, *tail;   /* its queued jobs, oldest first (their tags rise) */
  unsigned queued;
  key_record rec; /* rec.finish: the finish tag of its newest queued job */
} key_state;

typedef struct {
  uint64_t id;
  key_record rec; /* an entry counts while key_counts() says so */
} key_memory;

typedef struct {
  key_state **buckets;
  unsigned nbuckets, nkeys;
  key_state *spare;
  unsigned nspare;
  key_memory *memory; /* KEYS_MEMORY entries, NULL until first used */
  key_record shared;  /* the memory of key 0 */
} keys;

/* 0, or -1 when out of memory. */
int keys_init(keys *k);
/* Frees every state; no key may have queued jobs. */
void keys_free(keys *k);

/* A record's use at `now`. */
double keys_use(const key_record *r, uint64_t now);

/* The state of a key with queued jobs, or NULL. */
key_state *keys_find(const keys *k, uint64_t id);
/* What is known of `id` at `now`: its state's record, or what the memory
 * holds, or nothing (all zero). Changes nothing. */
key_record keys_recall(const keys *k, uint64_t id, uint64_t vtime, uint64_t now);
/* The key's state, made if it has none (its record then is what the
 * memory held, which it leaves); NULL when out of memory. */
key_state *keys_open(keys *k, uint64_t id, uint64_t vtime, uint64_t now);
/* Appends / unlinks a queued job of state `s` (job->key_state is set). */
void keys_append(key_state *s, pool_job *job);
void keys_unlink(key_state *s, pool_job *job);
/* The key has no queued job any more: what still counts of it goes into
 * the memory, and its state is freed. */
void keys_close(keys *k, key_state *s, uint64_t vtime, uint64_t now);
/* A call of `id` that would have taken `expect` ns was turned away at
 * `now` (refused at submit, displaced, shed): its use grows by
 * expect / KEYS_REFUSAL_SHARE. A key with no state is noted in the memory. */
void keys_refused(keys *k, uint64_t id, uint64_t expect, uint64_t vtime, uint64_t now);
/* Adds `ns` to a record's use at `now`. */
void keys_charge(key_record *r, double ns, uint64_t now);
/* Entries of the memory that still count (for stats and tests). */
unsigned keys_remembered(const keys *k, uint64_t vtime, uint64_t now);

#endif
