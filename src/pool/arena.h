/* Scratch memory kept by a thread that is not a pool worker: kdfpool's
 * *Sync calls run on the JS thread that makes them (main thread or a
 * worker_thread), and each of those keeps one arena between calls, as each
 * pool worker does, because faulting fresh pages costs more than hashing
 * them. The pages come from the same OS seam as the workers' (pool/os.h:
 * pre-faulted, huge pages where the system has them).
 *
 * An arena belongs to one thread at a time: nothing here locks it. What is
 * shared is the process-wide count of bytes that every arena holds, so that
 * keeping them stays bounded however many threads have one:
 *   - pool_arena_take() maps exactly what the call needs (page-rounded),
 *     never more, so a call never uses more fresh memory than its own limit
 *     (scrypt's maxmem) let it ask for; a kept arena that is already large
 *     enough is reused as it is.
 *   - pool_arena_keep() runs when the call has ended: the arena stays only
 *     if all arenas of the process together hold at most `limit` bytes;
 *     otherwise it is unmapped now (a one-off large call pins nothing).
 * The KDFs wipe what they used before returning, so a kept arena holds no
 * secret between calls; unmapped pages go back to the OS. */
#ifndef POOL_ARENA_H
#define POOL_ARENA_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
  void *mem;
  size_t size;   /* bytes mapped (0 when mem is NULL) */
  int busy;      /* handed out by take(), not yet kept or dropped */
  uint64_t maps; /* times this arena mapped new memory */
} pool_arena;

/* At least `size` bytes, 64-byte aligned, for the calling thread's next
 * run; NULL if they cannot be mapped, or if the arena is already handed
 * out (a nested call: the caller must then find memory elsewhere). */
void *pool_arena_take(pool_arena *a, size_t size);

/* The run that took the arena has ended: keep it for the next one if every
 * arena of the process together holds at most `limit` bytes, else unmap it. */
void pool_arena_keep(pool_arena *a, uint64_t limit);

/* Unmaps the arena unless it is handed out (then the caller's keep()
 * decides later). Safe on an empty arena. */
void pool_arena_drop(pool_arena *a);

/* Bytes every pool_arena of the process holds right now. */
uint64_t pool_arena_bytes(void);

#endif
