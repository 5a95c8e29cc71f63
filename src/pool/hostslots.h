/* Host slots: a bound on running jobs shared by every pool on the host that
 * names the same directory (lib/ derives it from the user's key), in this
 * process or any other. Each slot is a lock file, `slot-<i>`; a pool holds
 * slot i while the worker that took it runs a job. The kernel drops a lock
 * when its file is closed, and a dying process closes every file, so a
 * crashed process never keeps a slot.
 *
 * Each pool that uses a directory is a member, shown by a lock it holds on
 * `member-<i>` for as long as it uses it; counting the member files whose
 * lock is held gives the live members (a dead member's lock is gone), which
 * the pool's wait estimate uses to find its share of the host's slots.
 *
 * A pool that polls for a slot says so with a shared lock on `want`: a
 * pool that gives a slot back can then tell, with one non-blocking
 * exclusive try, whether any other pool is waiting, and step aside for a
 * moment only then (see pool.c, Host slots).
 *
 * One object per pool and setting. It is shared by the pool and by every
 * worker that holds one of its slots (reference counted), so a pool may be
 * reconfigured while its running jobs keep the slots they took. Its own
 * mutex guards its files; callers hold no other lock around the calls that
 * touch files (every call here but host_slots_count/key). */
#ifndef POOL_HOSTSLOTS_H
#define POOL_HOSTSLOTS_H

#include "pool/pool.h"

typedef struct host_slots host_slots;

/* Opens the directory `dir` (which lib/ made, owner-only) and checks it
 * is private to this user (os_dir_open: the files are then opened through
 * that handle, never through the path again), opens the member and slot
 * files of `slots` slots in it and joins as a member. `key` is kept for
 * stats only. 0, or STATUS_EINVAL (bad numbers), STATUS_ENOMEM, STATUS_EIO
 * (the directory is missing or not private, or a file could not be opened
 * or locked). */
int host_slots_open(host_slots **out, const char *dir, const char *key, unsigned slots);
void host_slots_ref(host_slots *h);
/* The last reference closes every file: held slots and the membership go. */
void host_slots_unref(host_slots *h);

/* Takes a free slot without waiting, trying each slot once from a start
 * that moves on after every success (so that the pools of a host do not all
 * queue on slot 0). The slot's index, or -1 if none is free right now. */
int host_slots_take(host_slots *h);
void host_slots_give(host_slots *h, int slot);

/* This pool waits for a slot (1) or no longer does (0): holds or drops its
 * shared lock on `want`. Idempotent. */
void host_slots_want(host_slots *h, int wanting);
/* Whether a pool other than this one waits for a slot right now. */
int host_slots_others_want(host_slots *h);

/* Live members (pools using this directory, this one included), at least
 * 1. Counted at most every HOST_SLOTS_MEMBERS_TTL_MS; cached in between. */
unsigned host_slots_members(host_slots *h);
#define HOST_SLOTS_MEMBERS_TTL_MS 250

/* Slots taken through this object and not yet given back. */
unsigned host_slots_held(host_slots *h);
unsigned host_slots_count(const host_slots *h);
const char *host_slots_key(const host_slots *h);
/* Whether `h` is already this setting (so reconfiguring to it keeps it). */
int host_slots_is(const host_slots *h, const char *dir, unsigned slots);

#endif
