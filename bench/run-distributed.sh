#!/usr/bin/env bash
# Data-parallel figures (issue 26) on this machine, medians of alternating
# rounds, recorded in bench/RESULTS.md:
#   scripts/setup.sh --bench && bench/run-distributed.sh [rounds]
# Each process computes on one thread (EMBER_NUM_THREADS / OMP_NUM_THREADS);
# ranks are processes started by ember-run on this machine (TCP over
# 127.0.0.1). LibTorch's side: c10d's ProcessGroupGloo on the same Gloo.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${EMBER_BUILD_DIR:-$root/build}
"$root/scripts/build.sh" -DEMBER_BUILD_BENCH=ON > /dev/null
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 EMBER_NUM_THREADS=1
rounds=${1:-5}
out=$(mktemp)
run() { "$build/bin/ember-run" --no-prefix -n "$@"; }
for round in $(seq "$rounds"); do
  {
    run 1 "$build/bin/distributed_bench" c2
    run 2 "$build/bin/distributed_bench" c2
    run 2 "$build/bin/distributed_bench" c2-alone
    if [[ -x "$build/bin/torch_distributed_bench" ]]; then
      run 1 "$build/bin/torch_distributed_bench"
      run 2 "$build/bin/torch_distributed_bench"
    fi
    run 2 "$build/bin/distributed_bench" allreduce | grep -v '^round[12]\.'
  } | sed "s/^round0\.//; s/^/round$round./" >> "$out"
done
# median NAME: the median over the rounds of NAME's value.
median() {
  grep "^round[0-9]*\.$1 " "$out" | awk '{print $2}' | sort -g |
    awk '{v[NR]=$1} END {if (NR) print (NR % 2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }
cpu=$(grep -m1 "model name" /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
echo "Machine: $cpu, $(getconf _NPROCESSORS_ONLN) CPUs; medians of $rounds rounds"
e1=$(median ranks1.ember.c2_step); e2=$(median ranks2.ember.c2_step)
a2=$(median ranks2.no_all_reduce.ember.c2_step)
printf "%-44s 1 rank %.2f ms, 2 ranks %.2f ms, 2 ranks without the all-reduce %.2f ms\n" \
  "C2 step, batch 32 per rank" "$e1" "$e2" "$a2"
printf "%-44s %sx (the machine alone allows %sx)\n" "C2 throughput, 2 ranks / 1 rank" \
  "$(ratio "$(awk -v a="$e1" 'BEGIN{print 2*a}')" "$e2")" \
  "$(ratio "$(awk -v a="$e1" 'BEGIN{print 2*a}')" "$a2")"
if grep -q torch "$out"; then
  t1=$(median ranks1.torch.c2_step); t2=$(median ranks2.torch.c2_step)
  printf "%-44s 1 rank %.2f ms, 2 ranks %.2f ms; ember/LibTorch at 2 ranks %sx\n" \
    "LibTorch C2 step + c10d Gloo all-reduce" "$t1" "$t2" "$(ratio "$e2" "$t2")"
fi
g=$(median gloo.allreduce_25MB); m=$(median ember.all_reduce_25MB)
p=$(median ember.all_reduce_in_place_25MB)
printf "%-44s Gloo directly %.1f ms; ember all_reduce_ (in place) %.1f ms: %sx, all_reduce (a new tensor) %.1f ms: %sx\n" \
  "all-reduce of 25 MB, 2 ranks" "$g" "$p" "$(ratio "$p" "$g")" "$m" "$(ratio "$m" "$g")"
rm -f "$out"
