/* The scheduler's clients (sched.c): a state for each key with queued
 * jobs, and a bounded memory of the keys that have none.
 *
 * A key is an opaque 64-bit number (the submitter's keyed hash of a client
 * name); 0 is the one key shared by every job that names none. What the
 * scheduler remembers of a client is all that places its next job:
 *   finish  its finish tag (see sched.h): how far ahead of the pool's
 *           virtual time the work it was served or queued reaches;
 *   mark    what it was charged for calls turned away (sched_refused):
 *           each moves it one job past virtual time or its last mark, at
 *           most SCHED_REFUSAL_LEAD jobs ahead of virtual time.
 * A key with queued jobs has a state here; when its last job leaves, what
 * still counts (a finish or mark ahead of virtual time) goes into the
 * memory, a fixed table of KEYS_MEMORY entries (8-way sets, allocated on
 * first use), so that a client that comes back is known. When a set is
 * full, the entry with the least lead gives way. The remembered keys
 * whose mark is ahead of virtual time (charged: turned away, still
 * asking) are also kept in a heap by mark, so that how many there are is
 * known in O(1) and virtual time passing their marks costs O(log n) each
 * (keys_backlogged). The memory does not grow with the number of keys ever seen: a flood
 * from more clients than it holds has some of them forgotten, which then
 * count as newcomers.
 *
 * A data structure only: the pool's lock guards it; every operation is
 * O(1) (a hash bucket, one set of the memory). */
#ifndef POOL_KEYS_H
#define POOL_KEYS_H

#include "pool/pool.h"

#include <stdint.h>

#define KEYS_MEMORY 16384
#define KEYS_WAYS   8

/* What the pool knows of a client: virtual times, 0 for none. */
typedef struct {
  uint64_t finish;
  uint64_t mark;
} key_record;

typedef struct key_state {
  uint64_t id;
  struct key_state *chain; /* next in its hash bucket, or on the spare list */
  pool_job *head, *tail;   /* its queued jobs, oldest first (their tags rise) */
  unsigned queued;
  key_record rec; /* rec.finish: the finish tag of its newest queued job */
  /* Expected time of its jobs started before older queued ones (batch
   * riders) after its newest queued job: carried into a finish that a
   * removal recomputes (sched.c). */
  uint64_t tail_carry;
  /* Its oldest job whose tag a bulk removal left to recompute
   * (sched_flush), or NULL. */
  pool_job *stale;
} key_state;

typedef struct {
  uint64_t id;
  key_record rec;   /* an entry counts while either time is ahead of virtual time */
  unsigned heap_at; /* its place + 1 in `charged` while its mark is ahead; 0 when not */
} key_memory;

typedef struct {
  key_state **buckets;
  unsigned nbuckets, nkeys;
  key_state *spare;
  unsigned nspare;
  key_memory *memory; /* KEYS_MEMORY entries, NULL until first used */
  /* Entries of the memory (indexes) whose mark was ahead of virtual time
   * when last looked at: a min-heap by mark, `ncharged` long. */
  unsigned *charged;
  unsigned ncharged;
  key_record shared; /* the memory of key 0 */
} keys;

/* 0, or -1 when out of memory. */
int keys_init(keys *k);
/* Frees every state; no key may have queued jobs. */
void keys_free(keys *k);

/* The state of a key with queued jobs, or NULL. */
key_state *keys_find(const keys *k, uint64_t id);
/* What is known of `id`: its state's record, or what the memory
 * holds, or nothing (all zero). Changes nothing. */
key_record keys_recall(const keys *k, uint64_t id, uint64_t vtime);
/* The key's state, made if it has none (its record then is what the
 * memory held, which it leaves); NULL when out of memory. */
key_state *keys_open(keys *k, uint64_t id, uint64_t vtime);
/* Appends / unlinks a queued job of state `s` (job->key_state is set). */
void keys_append(key_state *s, pool_job *job);
void keys_unlink(key_state *s, pool_job *job);
/* The key has no queued job any more: what still counts of it goes into
 * the memory, and its state is freed. */
void keys_close(keys *k, key_state *s, uint64_t vtime);
/* Charges `id` for a call turned away (sched_refused): its mark moves to
 * max(vtime, mark) + charge, at most `cap`, and never back; in its state,
 * or in its entry of the memory, made if it has none (nothing when the
 * memory cannot be allocated). Returns the mark it has now. */
uint64_t keys_charge(keys *k, uint64_t id, uint64_t charge, uint64_t cap, uint64_t vtime);
/* The keys the pool owes service at `vtime`: those with queued jobs, and
 * those without whose mark is ahead of it (a charged key is backlogged as
 * long as its charge lasts: sched.h). Forgets the marks `vtime` has
 * passed; O(log n) for each, O(1) otherwise. */
unsigned keys_backlogged(keys *k, uint64_t vtime);
/* Entries of the memory that still count (for stats and tests). */
unsigned keys_remembered(const keys *k, uint64_t vtime);

#endif
