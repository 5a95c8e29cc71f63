/* An intrusive AVL tree with order statistics: the scheduler's ordered sets
 * (queued jobs in service order, and the same jobs by deadline). A node
 * lives inside the object it orders and is found back with offsetof, so
 * inserting never allocates and cannot fail.
 *
 * Nodes are ordered by (k1, k2), which must be unique (k2 is an arrival
 * number). Each subtree knows how many nodes it holds and the sum of their
 * weights, so "how much weight, in how many nodes, comes before (k1, k2)"
 * is answered in O(log n). Every operation is O(log n); none allocates.
 * The first and last nodes are kept at hand (O(1)): a worker takes the
 * first on every job, and walking down to it touches a job per level.
 * A data structure only: no lock, no thread, no clock. */
#ifndef POOL_TREE_H
#define POOL_TREE_H

#include <stddef.h>
#include <stdint.h>

typedef struct tree_node {
  struct tree_node *left, *right, *parent;
  uint64_t k1, k2; /* the order, set before insertion and not changed while inserted */
  uint64_t weight; /* set before insertion and not changed while inserted */
  uint64_t sum;    /* weights of the subtree rooted here */
  unsigned count;  /* nodes of the subtree rooted here */
  int height;
} tree_node;

typedef struct {
  tree_node *root;
  tree_node *first, *last; /* the ends of the order; NULL when empty */
} tree;

void tree_insert(tree *t, tree_node *n);
void tree_remove(tree *t, tree_node *n);
static inline tree_node *tree_first(const tree *t) { return t->first; } /* NULL when empty */
static inline tree_node *tree_last(const tree *t) { return t->last; }
tree_node *tree_next(const tree_node *n); /* the next in order, or NULL */
tree_node *tree_prev(const tree_node *n); /* the one before in order, or NULL */
/* The weight and the number of the nodes ordered before (k1, k2). */
void tree_before(const tree *t, uint64_t k1, uint64_t k2, uint64_t *sum, unsigned *count);
static inline unsigned tree_count(const tree *t) { return t->root != NULL ? t->root->count : 0; }
static inline uint64_t tree_sum(const tree *t) { return t->root != NULL ? t->root->sum : 0; }

#endif
