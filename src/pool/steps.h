/* Tests count the steps each scheduler operation takes (tree nodes, hash
 * chain links, memory ways), to check that nothing on a per-call path walks
 * more than O(log n): the plain-C tests (test/native) and test builds of
 * the addon (native.testing.schedSteps). Compiled out elsewhere. */
#ifndef POOL_STEPS_H
#define POOL_STEPS_H

#ifdef POOL_COUNT_STEPS
extern unsigned long pool_steps; /* defined by whoever counts */
/* Relaxed atomic: several pool threads may step at once. */
#define POOL_STEP() ((void)__atomic_fetch_add(&pool_steps, 1, __ATOMIC_RELAXED))
#else
#define POOL_STEP() ((void)0)
#endif

#endif
