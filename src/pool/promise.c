/* Places promised with a refusal (promise.h). */
#include "pool/promise.h"

#include <stddef.h>

void promise_window(uint64_t now, uint64_t hint_ns, unsigned seconds, uint64_t *due_ns,
                    uint64_t *until_ns) {
  uint64_t early = hint_ns / 2 < PROMISE_EARLY_NS ? hint_ns / 2 : PROMISE_EARLY_NS;
  uint64_t late = hint_ns / 2 > PROMISE_LATE_NS ? hint_ns / 2 : PROMISE_LATE_NS;
  *due_ns = now + hint_ns - early;
  *until_ns = now + hint_ns + late;
  if (seconds != 0) {
    uint64_t told = now + (uint64_t)seconds * 1000000000ull + PROMISE_SECONDS_LATE_NS;
    if (told > *until_ns) *until_ns = told;
  }
}

static int find(const promises *ps, uint64_t key) {
  for (unsigned i = 0; i < ps->n; i++)
    if (ps->keys[i] == key) return (int)i;
  return -1;
}

static void drop_at(promises *ps, unsigned i) {
  ps->n--;
  ps->keys[i] = ps->keys[ps->n];
  ps->entries[i] = ps->entries[ps->n];
}

static int placed_after(const promise *a, const promise *b) {
  return a->tag > b->tag || (a->tag == b->tag && a->order > b->order);
}

void promises_keep(promises *ps, const promise *p, uint64_t now) {
  int at = find(ps, p->key);
  if (at < 0 && ps->n < PROMISE_MAX) at = (int)ps->n++;
  if (at < 0) {
    /* Full: one whose window has passed, else the one placed last. */
    unsigned last = 0;
    for (unsigned i = 0; i < ps->n; i++) {
      if (ps->entries[i].until_ns < now) {
        at = (int)i;
        break;
      }
      if (placed_after(&ps->entries[i], &ps->entries[last])) last = i;
    }
    if (at < 0) {
      if (!placed_after(&ps->entries[last], p)) return;
      at = (int)last;
    }
  }
  ps->keys[at] = p->key;
  ps->entries[at] = *p;
}

const promise *promises_due(promises *ps, uint64_t key, uint64_t now, int *early) {
  *early = 0;
  if (ps->n == 0) return NULL;
  int i = find(ps, key);
  if (i < 0) return NULL;
  const promise *p = &ps->entries[i];
  if (now < p->due_ns || now > p->until_ns) {
    *early = now < p->due_ns;
    drop_at(ps, (unsigned)i);
    return NULL;
  }
  return p;
}

void promises_drop(promises *ps, const promise *p) {
  unsigned i = (unsigned)(p - ps->entries);
  if (i < ps->n) drop_at(ps, i);
}
