/* Host slots: lock files in one directory, see hostslots.h. Portable: the
 * files themselves are behind pool/os.h (flock on POSIX, LockFileEx on
 * Windows). */
#define _POSIX_C_SOURCE 200809L
#include "pool/hostslots.h"

#include "common/fault.h"
#include "common/status.h"
#include "pool/os.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How many member files a directory may hold: one per pool that uses the
 * key at the same time (every process of a cluster, plus any createPool()
 * with the same key). Member files are never removed, so this also bounds
 * the directory. */
#define MAX_MEMBERS 4096

struct host_slots {
  pthread_mutex_t lock; /* guards everything below but the constants */
  int refs;             /* atomic */
  /* Constants after open. */
  unsigned slots;
  char *dir;
  char key[POOL_HOST_KEY_MAX + 1];
  unsigned member_index;
  os_lock member;
  /* The directory, checked private when opened: every file is opened
   * through it (os_dir_open). */
  os_lock dir_handle;
  /* `want`: held shared while this pool waits (want), and a second open
   * file to ask whether anybody else does (probe). */
  os_lock want, probe;
  int wanting;
  /* Slot files are opened on first use and kept: a pool that polls for a
   * slot then pays one lock call per try, not an open and a close. */
  os_lock *files;
  unsigned char *taken; /* taken[i]: this object holds slot i */
  unsigned held, next;
  unsigned members;
  uint64_t members_at; /* os_monotonic_ns() of the last count; 0 = never */
};

static void name_of(char *out, size_t len, const char *kind, unsigned i) {
  snprintf(out, len, "%s-%u", kind, i);
}

/* Joins as a member: the lowest member file whose lock is free becomes
 * ours. Files are created in order and never removed, so the member files
 * are always member-0 .. member-(n-1), which is what counting relies on. */
static int join(host_slots *h) {
  char name[32];
  for (unsigned i = 0; i < MAX_MEMBERS; i++) {
    os_lock f;
    name_of(name, sizeof name, "member", i);
    if (os_lock_open(h->dir_handle, name, 1, &f) != 0) return STATUS_EIO;
    int got = os_lock_try(f, 0);
    if (got == 1) {
      h->member = f;
      h->member_index = i;
      return 0;
    }
    os_lock_close(f);
    if (got < 0) return STATUS_EIO;
  }
  return STATUS_EIO;
}

int host_slots_open(host_slots **out, const char *dir, const char *key, unsigned slots) {
  *out = NULL;
  if (dir == NULL || dir[0] == '\0' || slots == 0 || slots > POOL_MAX_HOST_SLOTS)
    return STATUS_EINVAL;
  host_slots *h = KDF_CALLOC(1, sizeof *h);
  if (h == NULL) return STATUS_ENOMEM;
  size_t dir_len = strlen(dir);
  h->dir = KDF_MALLOC(dir_len + 1);
  h->files = KDF_MALLOC(slots * sizeof *h->files);
  h->taken = KDF_CALLOC(slots, 1);
  if (h->dir == NULL || h->files == NULL || h->taken == NULL ||
      pthread_mutex_init(&h->lock, NULL)) {
    KDF_FREE(h->dir);
    KDF_FREE(h->files);
    KDF_FREE(h->taken);
    KDF_FREE(h);
    return STATUS_ENOMEM;
  }
  memcpy(h->dir, dir, dir_len + 1);
  snprintf(h->key, sizeof h->key, "%s", key != NULL ? key : "");
  h->slots = slots;
  h->refs = 1;
  h->member = h->want = h->probe = h->dir_handle = OS_LOCK_NONE;
  for (unsigned i = 0; i < slots; i++) h->files[i] = OS_LOCK_NONE;
  /* Processes that start together should not all try slot 0 first. */
  h->next = (unsigned)(os_monotonic_ns() / 1000 % slots);
  int rc = os_dir_open(dir, &h->dir_handle);
  if (rc == 0) rc = join(h);
  if (rc == 0 && (os_lock_open(h->dir_handle, "want", 1, &h->want) != 0 ||
                  os_lock_open(h->dir_handle, "want", 1, &h->probe) != 0))
    rc = STATUS_EIO;
  if (rc != 0) {
    host_slots_unref(h);
    return rc;
  }
  *out = h;
  return 0;
}

void host_slots_ref(host_slots *h) { __atomic_add_fetch(&h->refs, 1, __ATOMIC_RELAXED); }

void host_slots_unref(host_slots *h) {
  if (h == NULL || __atomic_sub_fetch(&h->refs, 1, __ATOMIC_ACQ_REL) != 0) return;
  for (unsigned i = 0; i < h->slots; i++) os_lock_close(h->files[i]);
  os_lock_close(h->member);
  os_lock_close(h->want);
  os_lock_close(h->probe);
  os_lock_close(h->dir_handle);
  pthread_mutex_destroy(&h->lock);
  KDF_FREE(h->files);
  KDF_FREE(h->taken);
  KDF_FREE(h->dir);
  KDF_FREE(h);
}

/* The object's mutex is held across the lock calls: they never wait
 * (non-blocking), and only this pool's seeker and its workers that give a
 * slot back ever contend for it, never the pool's own mutex. */
int host_slots_take(host_slots *h) {
  char name[32];
  int slot = -1;
  pthread_mutex_lock(&h->lock);
  for (unsigned k = 0; k < h->slots && slot < 0; k++) {
    unsigned i = (h->next + k) % h->slots;
    if (h->taken[i]) continue; /* ours already: the same file would lock again */
    if (h->files[i] == OS_LOCK_NONE) {
      name_of(name, sizeof name, "slot", i);
      if (os_lock_open(h->dir_handle, name, 1, &h->files[i]) != 0) continue; /* try the others */
    }
    if (os_lock_try(h->files[i], 0) == 1) {
      h->taken[i] = 1;
      h->held++;
      h->next = (i + 1) % h->slots;
      slot = (int)i;
    }
  }
  pthread_mutex_unlock(&h->lock);
  return slot;
}

void host_slots_give(host_slots *h, int slot) {
  pthread_mutex_lock(&h->lock);
  if (slot >= 0 && (unsigned)slot < h->slots && h->taken[slot]) {
    os_lock_release(h->files[slot]);
    h->taken[slot] = 0;
    h->held--;
  }
  pthread_mutex_unlock(&h->lock);
}

void host_slots_want(host_slots *h, int wanting) {
  pthread_mutex_lock(&h->lock);
  if (wanting && !h->wanting)
    h->wanting = os_lock_try(h->want, 1) == 1; /* a failure only costs the others' courtesy */
  else if (!wanting && h->wanting) {
    os_lock_release(h->want);
    h->wanting = 0;
  }
  pthread_mutex_unlock(&h->lock);
}

/* An exclusive try fails while anybody holds `want` shared; our own share
 * steps out for the question, so only the others count. */
int host_slots_others_want(host_slots *h) {
  pthread_mutex_lock(&h->lock);
  if (h->wanting) os_lock_release(h->want);
  int free = os_lock_try(h->probe, 0) == 1;
  if (free) os_lock_release(h->probe);
  if (h->wanting) h->wanting = os_lock_try(h->want, 1) == 1;
  pthread_mutex_unlock(&h->lock);
  return !free;
}

/* Tries the lock of every other member file: a lock that is free belongs to
 * nobody (a pool that left, or a process that died); a held one to a live
 * member. A free lock is taken for an instant, so a pool joining at that
 * moment takes the next file instead: harmless. The count stops at the
 * first missing file (see join()). */
static unsigned count_members(const host_slots *h) {
  char name[32];
  unsigned live = 1; /* this one */
  for (unsigned i = 0; i < MAX_MEMBERS; i++) {
    if (i == h->member_index) continue;
    os_lock f;
    name_of(name, sizeof name, "member", i);
    if (os_lock_open(h->dir_handle, name, 0, &f) != 0) break;
    int got = os_lock_try(f, 0);
    if (got == 0) live++;
    os_lock_close(f); /* also gives back a lock just taken */
  }
  return live;
}

unsigned host_slots_members(host_slots *h) {
  pthread_mutex_lock(&h->lock);
  uint64_t now = os_monotonic_ns();
  if (h->members_at == 0 || now - h->members_at >= (uint64_t)HOST_SLOTS_MEMBERS_TTL_MS * 1000000u) {
    h->members = count_members(h);
    h->members_at = now;
  }
  unsigned n = h->members;
  pthread_mutex_unlock(&h->lock);
  return n;
}

unsigned host_slots_held(host_slots *h) {
  pthread_mutex_lock(&h->lock);
  unsigned n = h->held;
  pthread_mutex_unlock(&h->lock);
  return n;
}

unsigned host_slots_count(const host_slots *h) { return h->slots; }

const char *host_slots_key(const host_slots *h) { return h->key; }

int host_slots_is(const host_slots *h, const char *dir, unsigned slots) {
  return h != NULL && h->slots == slots && strcmp(h->dir, dir) == 0;
}
