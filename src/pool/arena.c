/* Arenas for threads outside a pool; see arena.h for the bound. */
#include "pool/arena.h"

#include "pool/os.h"
#include "pool/prefault.h"

/* Every arena's bytes, busy or kept. Atomic: arenas of different threads
 * map and unmap at the same time. */
static uint64_t g_bytes;

/* What the OS hands out anyway; counting it keeps g_bytes equal to what
 * the arenas really hold. */
#define ARENA_PAGE ((size_t)4096)

static void unmap(pool_arena *a) {
  if (a->mem == NULL) return;
  os_arena_unmap(a->mem, a->size);
  __atomic_sub_fetch(&g_bytes, (uint64_t)a->size, __ATOMIC_RELAXED);
  a->mem = NULL;
  a->size = 0;
}

void *pool_arena_take(pool_arena *a, size_t size) {
  if (a->busy) return NULL;
  if (size == 0) size = 1;
  if (a->mem != NULL && a->size >= size) {
    a->busy = 1;
    return a->mem;
  }
  /* Too small: it goes before the larger one is mapped, so the thread
   * never holds both. */
  unmap(a);
  if (size > SIZE_MAX - (ARENA_PAGE - 1)) return NULL;
  size_t len = (size + ARENA_PAGE - 1) & ~(ARENA_PAGE - 1);
  void *mem = os_arena_map(len);
  if (mem == NULL) return NULL;
  (void)pool_prefault(mem, len, NULL); /* the caller's own thread: nothing stops it */
  __atomic_add_fetch(&g_bytes, (uint64_t)len, __ATOMIC_RELAXED);
  a->mem = mem;
  a->size = len;
  a->maps++;
  a->busy = 1;
  return mem;
}

void pool_arena_keep(pool_arena *a, uint64_t limit) {
  a->busy = 0;
  if (__atomic_load_n(&g_bytes, __ATOMIC_RELAXED) > limit) unmap(a);
}

void pool_arena_drop(pool_arena *a) {
  if (!a->busy) unmap(a);
}

uint64_t pool_arena_bytes(void) { return __atomic_load_n(&g_bytes, __ATOMIC_RELAXED); }
