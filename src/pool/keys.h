/* The scheduler's clients (sched.c): a state for each key with queued
 * jobs, and a bounded memory of the keys that have none.
 *
 * A key is an opaque 64-bit number (the submitter's keyed hash of a client
 * name); 0 is the one key shared by every job that names none. What the
 * scheduler remembers of a key is its finish tag (see sched.h): how far
 * ahead of the pool's virtual time its accepted work reaches. A key with
 * queued jobs has a state here (its jobs in arrival order, its finish);
 * when its last job leaves, a finish still ahead of virtual time goes into
 * the memory, a fixed table of KEYS_MEMORY entries (8-way sets, allocated
 * on first use), so that a client that comes straight back is not taken
 * for a newcomer. Entries whose finish virtual time has passed are free;
 * when a set is full the entry with the smallest finish (the least ahead)
 * gives way. The memory's size does not grow with the number of keys ever
 * seen: a flood from more clients than it holds has some of them
 * forgotten, which then count as newcomers.
 *
 * A data structure only: the pool's lock guards it; every operation is
 * O(1) (a hash bucket, one set of the memory). */
#ifndef POOL_KEYS_H
#define POOL_KEYS_H

#include "pool/pool.h"

#include <stdint.h>

#define KEYS_MEMORY 4096
#define KEYS_WAYS   8

typedef struct key_state {
  uint64_t id;
  struct key_state *chain; /* next in its hash bucket, or on the spare list */
  pool_job *head, *tail;   /* its queued jobs, oldest first (their tags rise) */
  unsigned queued;
  uint64_t finish; /* the finish tag of its newest queued job */
} key_state;

typedef struct {
  uint64_t id, finish; /* finish 0: a free entry */
} key_memory;

typedef struct {
  key_state **buckets;
  unsigned nbuckets, nkeys;
  key_state *spare;
  unsigned nspare;
  key_memory *memory;     /* KEYS_MEMORY entries, NULL until first used */
  uint64_t shared_finish; /* the memory of key 0 */
} keys;

/* 0, or -1 when out of memory. */
int keys_init(keys *k);
/* Frees every state; no key may have queued jobs. */
void keys_free(keys *k);

/* The state of a key with queued jobs, or NULL. */
key_state *keys_find(const keys *k, uint64_t id);
/* What the memory holds of `id`'s finish (0: nothing ahead of `vtime`). */
uint64_t keys_recall(const keys *k, uint64_t id, uint64_t vtime);
/* The key's state, made if it has none (its finish then is what the
 * memory held, which it leaves); NULL when out of memory. */
key_state *keys_open(keys *k, uint64_t id, uint64_t vtime);
/* Appends / unlinks a queued job of state `s` (job->key_state is set). */
void keys_append(key_state *s, pool_job *job);
void keys_unlink(key_state *s, pool_job *job);
/* The key has no queued job any more: its finish, if still ahead of
 * `vtime`, goes into the memory, and its state is freed. */
void keys_close(keys *k, key_state *s, uint64_t vtime);
/* Forgets everything remembered (virtual time jumped past it). */
void keys_forget(keys *k);
/* Entries of the memory still ahead of `vtime` (for tests). */
unsigned keys_remembered(const keys *k, uint64_t vtime);

#endif
