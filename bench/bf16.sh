#!/usr/bin/env bash
# bfloat16 on the CPU (issue 27) against LibTorch, one thread, rounds taking
# turns in one run; prints the figures recorded in bench/RESULTS.md:
#   scripts/setup.sh --bench && bench/bf16.sh [rounds]
# - bf16 matmul 1024 on each road ember has where the host has it (AMX tiles,
#   AVX512-BF16's vdpbf16ps, widened to float32 FMAs: EMBER_BF16_MATMULS),
#   beside LibTorch's oneDNN with the same ISA cap (ONEDNN_MAX_CPU_ISA:
#   AVX512_CORE_AMX, AVX512_CORE_BF16, AVX512_CORE for the widened road).
# - Story C2's training step (batch 32) in mixed bfloat16 (c2_bench bf16)
#   beside LibTorch's under CPU autocast to bfloat16 (torch_c2_bench bf16).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${EMBER_BUILD_DIR:-$root/build}
rounds=${1:-5}
"$root/scripts/build.sh" -DEMBER_BUILD_BENCH=ON > /dev/null
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 EMBER_NUM_THREADS=1
export EMBER_CACHE_DIR=$(mktemp -d)
flags=$(grep -m1 "^flags" /proc/cpuinfo)
has() { [[ " $flags " == *" $1 "* ]]; }
echo "CPU: $(grep -m1 "model name" /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')" \
  "(amx_bf16: $(has amx_bf16 && echo yes || echo no), avx512_bf16: $(has avx512_bf16 && echo yes || echo no))"
gflops() { grep "matmul_gflops_1024_bfloat16" | awk '{print $2}'; }
median() { sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
roads=(none)
has avx512_bf16 && roads+=(avx512bf16)
has amx_bf16 && roads+=(amx)
declare -A ember torch
for road in "${roads[@]}"; do
  case $road in
    amx) isa=AVX512_CORE_AMX ;;
    avx512bf16) isa=AVX512_CORE_BF16 ;;
    *) isa=$(has avx512f && echo AVX512_CORE || echo "") ;;
  esac
  for ((r = 0; r < rounds; ++r)); do
    ember[$road]+="$(EMBER_BF16_MATMULS=$road "$build/bin/matmul_bench" half | gflops) "
    torch[$road]+="$(env ${isa:+ONEDNN_MAX_CPU_ISA=$isa DNNL_MAX_CPU_ISA=$isa} "$build/bin/torch_bench" half 2> /dev/null | gflops) "
  done
  e=$(tr ' ' '\n' <<< "${ember[$road]}" | grep . | median)
  t=$(tr ' ' '\n' <<< "${torch[$road]}" | grep . | median)
  printf "bf16 matmul 1024, %-10s ember %6.1f GFLOP/s (%s), LibTorch %6.1f (%s): %.2fx\n" "$road" "$e" \
    "${ember[$road]% }" "$t" "${torch[$road]% }" "$(awk -v a="$e" -v b="$t" 'BEGIN { print a / b }')"
done
mixed="" autocast="" e32="" t32=""
for ((r = 0; r < rounds; ++r)); do
  mixed+="$("$build/bin/c2_bench" bf16 | awk '/c2_mixed_bf16_step/ {print $2}') "
  autocast+="$("$build/bin/torch_c2_bench" bf16 2> /dev/null | awk '/c2_bf16_autocast_step/ {print $2}') "
done
e=$(tr ' ' '\n' <<< "$mixed" | grep . | median)
t=$(tr ' ' '\n' <<< "$autocast" | grep . | median)
printf "C2 step, mixed bf16     ember %.2f ms (%s), LibTorch autocast %.2f ms (%s): %.2fx\n" "$e" \
  "${mixed% }" "$t" "${autocast% }" "$(awk -v a="$e" -v b="$t" 'BEGIN { print a / b }')"
