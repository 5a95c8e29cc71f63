#!/usr/bin/env bash
# Plants each of the scheduler's properties wrong in a copy of src/pool and
# checks that test/native/sim_sched.c fails on it: a property the simulator
# cannot see broken is not checked. Usage: test/native/mutants.sh [seeds]
set -euo pipefail
cd "$(dirname "$0")/../.."
seeds=${1:-60}
out=build/native/mutants
parts="admit.c promise.c retry_seconds.c sched.c keys.c tree.c estimate.c"

# name | file | sed expression (each must change the file)
mutants=(
  'frozen virtual time|sched.c|s/s->vtime += step != 0 ? step : 1;/(void)step;/'
  'charge kept on a removal|sched.c|s/if (!s->deferring) {/if (0) {/; s/retag(s, k, k->head, 0);/(void)k;/'
  'equals displacing|admit.h|s/victim_tag - tag > (expect_ns != 0 ? expect_ns : 1)/1/'
  'hint past the drain|admit.c|s/((double)(start \/ 4)/((double)(3 * start)/'
  'a rider longer than its head|sched.h|s/return x->cost_ns <= head->cost_ns \&\& /return 1 || /'
  'charged keys not backlogged|keys.c|s/return k->nkeys + k->ncharged + (k->shared.mark > vtime);/return k->nkeys;/'
)

failed=0
for m in "${mutants[@]}"; do
  IFS='|' read -r name file expr <<<"$m"
  dir="$out/$(echo "$name" | tr ' ' '-')"
  rm -rf "$dir" && mkdir -p "$dir/src"
  cp -r src/pool src/common "$dir/src/"
  sed -i "$expr" "$dir/src/pool/$file"
  if cmp -s "src/pool/$file" "$dir/src/pool/$file"; then
    echo "mutants: '$name' changed nothing in $file: the planted fault is stale" >&2
    failed=1
    continue
  fi
  srcs=""
  for p in $parts; do srcs="$srcs $dir/src/pool/$p"; done
  # shellcheck disable=SC2086
  cc -std=c11 -O1 -DPOOL_COUNT_STEPS -I"$dir/src" -Itest/native -o "$dir/sim_sched" \
    test/native/sim_sched.c $srcs -lm
  if "$dir/sim_sched" "$seeds" >"$dir/log" 2>&1; then
    echo "mutants: '$name' passed the simulator ($seeds seeds): the property is not checked" >&2
    failed=1
  else
    echo "mutants: '$name' caught: $(grep -m1 FAIL "$dir/log" | sed 's/.*FAIL: //')"
  fi
done
exit $failed
