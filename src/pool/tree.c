/* The intrusive AVL tree of tree.h. Rotations keep every node's height,
 * count and weight sum; insert and remove restore balance and those
 * aggregates on the whole path up to the root, which is what the order
 * statistics need anyway (O(log n) nodes). */
#include "pool/tree.h"

#include "pool/steps.h"

#include <stddef.h>

static int height(const tree_node *n) { return n != NULL ? n->height : 0; }
static uint64_t sum(const tree_node *n) { return n != NULL ? n->sum : 0; }
static unsigned count(const tree_node *n) { return n != NULL ? n->count : 0; }

/* Recomputes n's aggregates from its children. */
static void pull(tree_node *n) {
  int l = height(n->left), r = height(n->right);
  n->height = 1 + (l > r ? l : r);
  n->sum = n->weight + sum(n->left) + sum(n->right);
  n->count = 1 + count(n->left) + count(n->right);
}

static int before(const tree_node *a, const tree_node *b) {
  return a->k1 < b->k1 || (a->k1 == b->k1 && a->k2 < b->k2);
}

static void replace_child(tree *t, tree_node *parent, tree_node *old, tree_node *repl) {
  if (parent == NULL)
    t->root = repl;
  else if (parent->left == old)
    parent->left = repl;
  else
    parent->right = repl;
  if (repl != NULL) repl->parent = parent;
}

/* x's right child takes x's place; returns it. */
static tree_node *rotate_left(tree *t, tree_node *x) {
  tree_node *y = x->right;
  replace_child(t, x->parent, x, y);
  x->right = y->left;
  if (x->right != NULL) x->right->parent = x;
  y->left = x;
  x->parent = y;
  pull(x);
  pull(y);
  return y;
}

static tree_node *rotate_right(tree *t, tree_node *x) {
  tree_node *y = x->left;
  replace_child(t, x->parent, x, y);
  x->left = y->right;
  if (x->left != NULL) x->left->parent = x;
  y->right = x;
  x->parent = y;
  pull(x);
  pull(y);
  return y;
}

/* Restores n's balance and aggregates; returns the node now in its place. */
static tree_node *rebalance(tree *t, tree_node *n) {
  pull(n);
  int balance = height(n->left) - height(n->right);
  if (balance > 1) {
    if (height(n->left->left) < height(n->left->right)) rotate_left(t, n->left);
    return rotate_right(t, n);
  }
  if (balance < -1) {
    if (height(n->right->right) < height(n->right->left)) rotate_right(t, n->right);
    return rotate_left(t, n);
  }
  return n;
}

static void fix_up(tree *t, tree_node *n) {
  while (n != NULL) {
    POOL_STEP();
    n = rebalance(t, n)->parent;
  }
}

void tree_insert(tree *t, tree_node *n) {
  n->left = n->right = NULL;
  n->height = 1;
  n->sum = n->weight;
  n->count = 1;
  tree_node *parent = NULL, **link = &t->root;
  while (*link != NULL) {
    POOL_STEP();
    parent = *link;
    link = before(n, parent) ? &parent->left : &parent->right;
  }
  *link = n;
  n->parent = parent;
  if (t->first == NULL || before(n, t->first)) t->first = n;
  if (t->last == NULL || before(t->last, n)) t->last = n;
  fix_up(t, parent);
}

static tree_node *leftmost(tree_node *n) {
  while (n != NULL && n->left != NULL) {
    POOL_STEP();
    n = n->left;
  }
  return n;
}

static tree_node *rightmost(tree_node *n) {
  while (n != NULL && n->right != NULL) {
    POOL_STEP();
    n = n->right;
  }
  return n;
}

void tree_remove(tree *t, tree_node *z) {
  /* An end's neighbour is its child's subtree or its parent: O(1) steps. */
  if (t->first == z) t->first = tree_next(z);
  if (t->last == z) t->last = tree_prev(z);
  tree_node *fix_from;
  if (z->left != NULL && z->right != NULL) {
    /* z's successor y (no left child) takes z's place. */
    tree_node *y = leftmost(z->right);
    if (y->parent == z) {
      fix_from = y;
    } else {
      fix_from = y->parent;
      y->parent->left = y->right;
      if (y->right != NULL) y->right->parent = y->parent;
      y->right = z->right;
      z->right->parent = y;
    }
    replace_child(t, z->parent, z, y);
    y->left = z->left;
    z->left->parent = y;
  } else {
    tree_node *child = z->left != NULL ? z->left : z->right;
    fix_from = z->parent;
    replace_child(t, z->parent, z, child);
  }
  z->left = z->right = z->parent = NULL;
  fix_up(t, fix_from);
}

tree_node *tree_next(const tree_node *n) {
  if (n->right != NULL) return leftmost(n->right);
  while (n->parent != NULL && n->parent->right == n) {
    POOL_STEP();
    n = n->parent;
  }
  return n->parent;
}

tree_node *tree_prev(const tree_node *n) {
  if (n->left != NULL) return rightmost(n->left);
  while (n->parent != NULL && n->parent->left == n) {
    POOL_STEP();
    n = n->parent;
  }
  return n->parent;
}

void tree_before(const tree *t, uint64_t k1, uint64_t k2, uint64_t *total, unsigned *nodes) {
  uint64_t s = 0;
  unsigned c = 0;
  for (const tree_node *n = t->root; n != NULL;) {
    POOL_STEP();
    if (n->k1 < k1 || (n->k1 == k1 && n->k2 < k2)) {
      s += sum(n->left) + n->weight;
      c += count(n->left) + 1;
      n = n->right;
    } else {
      n = n->left;
    }
  }
  *total = s;
  *nodes = c;
}
