/* Plain-C tests (test/native) count the steps each scheduler operation
 * takes (tree nodes, hash chain links, memory ways), to check that nothing
 * on a per-call path walks more than O(log n). Compiled out elsewhere. */
#ifndef POOL_STEPS_H
#define POOL_STEPS_H

#ifdef POOL_COUNT_STEPS
extern unsigned long pool_steps; /* defined by the test that counts */
#define POOL_STEP() (pool_steps++)
#else
#define POOL_STEP() ((void)0)
#endif

#endif
