#!/usr/bin/env bash
# Runs the foundation benchmarks against the peers in one go and prints the
# ratios recorded in bench/RESULTS.md:
#   scripts/setup.sh --bench && bench/run.sh
# The peer is LibTorch (Debian libtorch-dev, 1 thread, no-grad). On CPUs with
# AVX-512 it runs "tuned" (OPENBLAS_CORETYPE=SkylakeX ATEN_CPU_CAPABILITY=avx512,
# see ../shared/docs/PEERS.md); elsewhere those settings crash (SIGILL), so it
# runs with LibTorch's own CPU detection and the report says so.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${EMBER_BUILD_DIR:-$root/build}
"$root/scripts/build.sh" -DEMBER_BUILD_BENCH=ON > /dev/null

# One thread unless a row says otherwise (the "Threads" rows run 1 and 2).
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 EMBER_NUM_THREADS=1
# A fresh disk cache: first-call figures measure real compiles.
cache=$(mktemp -d)
export EMBER_CACHE_DIR=$cache
if grep -q avx512f /proc/cpuinfo; then
  peer_env=(OPENBLAS_CORETYPE=SkylakeX ATEN_CPU_CAPABILITY=avx512)
else
  peer_env=()
fi
cpu=$(grep -m1 "model name" /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
out=$(mktemp)
{
  env "${peer_env[@]}" "$build/bin/torch_bench"
  "$build/bin/ember_bench"
  "$build/bin/function_bench"
  "$build/bin/matmul_bench"
  "$build/bin/compile_bench"
  # The training step, alternating with LibTorch's so that both see the same
  # load; the figures are the medians of 5 rounds, the ratios per round.
  for round in 1 2 3 4 5; do
    env "${peer_env[@]}" "$build/bin/torch_bench" mlp | sed "s/^/round$round./"
    "$build/bin/train_bench" | sed "s/^/round$round./"
  done
  "$build/bin/hand_loops"
  # Threads (issue 10): ember and its peers at 1 and at 2 threads.
  for t in 1 2; do
    # SGEMM: 3 rounds taking turns with the peers (medians below): one
    # round can run 20-30% slow on a shared host.
    for round in 1 2 3; do
      EMBER_NUM_THREADS=$t "$build/bin/matmul_bench" sgemm | sed "s/^/t$t.round$round./"
      if [ -x "$build/bin/blas_bench" ]; then
        env "${peer_env[@]}" OPENBLAS_NUM_THREADS=$t "$build/bin/blas_bench" | sed "s/^/t$t.round$round./"
      fi
      env "${peer_env[@]}" OMP_NUM_THREADS=$t OPENBLAS_NUM_THREADS=$t "$build/bin/torch_bench" sgemm | sed "s/^/t$t.round$round./"
    done
    EMBER_NUM_THREADS=$t "$build/bin/function_bench" | sed "s/^/t$t./"
    OMP_NUM_THREADS=$t "$build/bin/hand_loops" | sed "s/^/t$t./"
    for round in 1 2 3; do
      env "${peer_env[@]}" OMP_NUM_THREADS=$t OPENBLAS_NUM_THREADS=$t "$build/bin/torch_bench" mlp | sed "s/^/t$t.round$round./"
      EMBER_NUM_THREADS=$t "$build/bin/train_bench" | sed "s/^/t$t.round$round./"
    done
    # Story C2's training step (issue 11), alternating with LibTorch's.
    for round in 1 2 3; do
      env "${peer_env[@]}" OMP_NUM_THREADS=$t OPENBLAS_NUM_THREADS=$t "$build/bin/torch_c2_bench" | sed "s/^/t$t.round$round./"
      EMBER_NUM_THREADS=$t "$build/bin/c2_bench" | sed "s/^/t$t.round$round./"
    done
  done
  # float16 and bfloat16 (1 thread), LibTorch's beside ember's.
  env "${peer_env[@]}" "$build/bin/torch_bench" half 2> /dev/null
  "$build/bin/matmul_bench" half
  # SGEMM against OpenBLAS in one process, taking turns: 20 paired rounds
  # at 1 and 2 threads for the issue's squares, 5 at 1 thread for the rest.
  if [ -x "$build/bin/sgemm_vs_blas" ]; then
    env "${peer_env[@]}" "$build/bin/sgemm_vs_blas" -t 1,2 20 1024 1024 1024 4096 4096 4096 2> /dev/null
    env "${peer_env[@]}" "$build/bin/sgemm_vs_blas" 5 2048 2048 2048 4096 512 4096 4096 1024 4096 2> /dev/null
  fi
  cacheOnly=$(mktemp -d)
  EMBER_CACHE_DIR=$cacheOnly "$build/bin/cache_bench" # compiles, fills the cache
  EMBER_CACHE_DIR=$cacheOnly "$build/bin/cache_bench" # a second process: loads from it
  rm -rf "$cacheOnly"
} > "$out"
rm -rf "$cache"

value() { awk -v k="$1" '$1 == k { print $2 }' "$out"; }
# The median over the rounds of `name`, or of the ratio `name` / `peer`.
median() {
  for round in 1 2 3 4 5; do
    a=$(value "round$round.$1")
    if [ -n "${2:-}" ]; then awk -v a="$a" -v b="$(value "round$round.$2")" 'BEGIN { print a / b }'; else echo "$a"; fi
  done | sort -g | sed -n 3p
}
# The median of 3 rounds of `name` (the thread rows), empty where there is none.
median3() {
  for round in 1 2 3; do value "${1%%.*}.round$round.${1#*.}"; done | sort -g | sed -n 2p
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b == 0) print "n/a"; else printf "%.2f", a / b }'; }

echo "CPU: $cpu; AVX-512: $(grep -q avx512f /proc/cpuinfo && echo yes || echo no)"
echo "Peer settings: ${peer_env[*]:-LibTorch defaults (no AVX-512 on this CPU)}, 1 thread"
echo
printf "%-36s %12s %12s %10s\n" "benchmark" "ember" "peer" "peer/ember"
for op in add_f32_1 add_f32_10x10 matmul_f32_10x10; do
  e=$(value "ember.$op"); t=$(value "torch.$op")
  printf "%-36s %9.3f us %9.3f us %9sx\n" "eager dispatch $op" "$e" "$t" "$(ratio "$t" "$e")"
done
for op in add_f32_16M mul_f32_16M exp_f32_16M tanh_f32_16M; do
  e=$(value "ember.$op"); h=$(value "hand.$op"); t=$(value "torch.$op")
  printf "%-36s %9.2f ms %9.2f ms %9sx  (hand loop %.2f ms: ember/hand %sx)\n" \
    "elementwise $op" "$e" "$t" "$(ratio "$t" "$e")" "$h" "$(ratio "$e" "$h")"
done
printf "%-36s %9.1f ms\n" "first call, elementwise (median)" "$(value ember.compile_elementwise_median)"
printf "%-36s %9.1f ms\n" "first call, matmul (median)" "$(value ember.compile_matmul_median)"
printf "%-36s %9.0f / %.0f\n" "kernel cache hits / misses" "$(value ember.cache_hits)" "$(value ember.cache_misses)"
echo
echo "Traced functions (issue 3)"
pt=$(value ember.power_traced); pe=$(value ember.power_eager); ph=$(value hand.power); pT=$(value torch.power_eager)
printf "%-36s traced %.4f ms, eager %.4f ms, hand %.4f ms, LibTorch %.4f ms/call\n" "power(x, 100) 10x10 int32" "$pt" "$pe" "$ph" "$pT"
printf "%-36s traced/hand %sx, LibTorch/traced %sx, first call %.0f ms\n" "" "$(ratio "$pt" "$ph")" "$(ratio "$pT" "$pt")" "$(value ember.power_first_call)"
ct=$(value ember.chain_traced); ce=$(value ember.chain_eager); ch=$(value hand.chain); cT=$(value torch.chain_eager)
printf "%-36s traced %.2f ms, eager %.2f ms, hand-fused %.2f ms, LibTorch %.2f ms\n" "8-op chain + broadcast, 16M f32" "$ct" "$ce" "$ch" "$cT"
printf "%-36s traced/hand %sx, LibTorch/traced %sx\n" "" "$(ratio "$ct" "$ch")" "$(ratio "$cT" "$ct")"
printf "%-36s %.1f ms compiling, %.1f ms from the disk cache (second process)\n" "first call of power() in a process" \
  "$(value ember.first_call_compiled)" "$(value ember.first_call_disk_cache)"
echo
echo "float16 and bfloat16, 1 thread (LibTorch 1.13 has no float16 matmul on the CPU)"
for dtype in float32 float16 bfloat16; do
  e=$(value "ember.matmul_gflops_1024_$dtype"); T=$(value "torch.matmul_gflops_1024_$dtype")
  T=${T:+$(printf "%.1f" "$T")}
  ea=$(value "ember.add_16M_$dtype"); Ta=$(value "torch.add_16M_$dtype")
  printf "%-36s matmul 1024 ember %6.1f, LibTorch %6s GFLOP/s; add 16M ember %.2f ms, LibTorch %.2f ms\n" \
    "$dtype" "$e" "${T:--}" "$ea" "$Ta"
done
echo
echo "Threads (issue 10): 1 and 2 threads, the peer at the same count"
for t in 1 2; do
  for n in 256 1024 4096; do
    e=$(median3 "t$t.ember.sgemm_gflops_$n"); b=$(median3 "t$t.blas.sgemm_gflops_$n"); T=$(median3 "t$t.torch.sgemm_gflops_$n")
    printf "%-36s ember %6.1f, OpenBLAS %6.1f, LibTorch %6.1f GFLOP/s, ember/OpenBLAS %sx\n" \
      "SGEMM $n, $t thread(s)" "$e" "${b:-0}" "$T" "$(ratio "$e" "${b:-1}")"
  done
  if [ "$t" = 2 ]; then
    printf "%-36s ember %sx, OpenBLAS %sx (medians of 3 rounds)\n" "SGEMM 4096, 2-thread speed-up" \
      "$(ratio "$(median3 t2.ember.sgemm_gflops_4096)" "$(median3 t1.ember.sgemm_gflops_4096)")" \
      "$(ratio "$(median3 t2.blas.sgemm_gflops_4096)" "$(median3 t1.blas.sgemm_gflops_4096)")"
  fi
  ct=$(value "t$t.ember.chain_traced"); ch=$(value "t$t.hand.chain_omp")
  # It moves 128 MB (16M floats in, 16M out): its bandwidth beside STREAM's copy's.
  cc=$(value "t$t.hand.copy_16M_omp")
  printf "%-36s traced %.2f ms, hand-written OpenMP loop %.2f ms, traced/hand %sx\n" \
    "8-op chain 16M f32, $t thread(s)" "$ct" "$ch" "$(ratio "$ct" "$ch")"
  printf "%-36s traced %.1f GB/s, copy %.1f GB/s (%.2f ms): traced at %.0f%% of copy\n" "" \
    "$(awk -v t="$ct" 'BEGIN { print 0.134217728 / t * 1e3 }')" "$(awk -v t="$cc" 'BEGIN { print 0.134217728 / t * 1e3 }')" \
    "$cc" "$(awk -v a="$ct" -v b="$cc" 'BEGIN { print b / a * 100 }')"
  rs=$(value "t$t.ember.reduce_sum_16M"); rh=$(value "t$t.hand.reduce_sum_16M_omp")
  printf "%-36s ember %.2f ms, hand-written OpenMP loop %.2f ms\n" "reduce_sum 16M f32, $t thread(s)" "$rs" "$rh"
  mt=$(median3 "t$t.ember.mlp_traced_step"); mg=$(median3 "t$t.ember.mlp_tape_step"); mT=$(median3 "t$t.torch.mlp_step")
  printf "%-36s traced %.2f ms (%sx LibTorch), tape %.2f ms (%sx), LibTorch %.2f ms\n" \
    "MLP step, $t thread(s)" "$mt" "$(ratio "$mt" "$mT")" "$mg" "$(ratio "$mg" "$mT")" "$mT"
  c2t=$(median3 "t$t.ember.c2_traced_step"); c2g=$(median3 "t$t.ember.c2_tape_step"); c2T=$(median3 "t$t.torch.c2_step")
  printf "%-36s traced %.2f ms (%sx LibTorch), tape %.2f ms (%sx), LibTorch %.2f ms\n" \
    "C2 conv step (batch 32), $t thread(s)" "$c2t" "$(ratio "$c2t" "$c2T")" "$c2g" "$(ratio "$c2g" "$c2T")" "$c2T"
  printf "%-36s ember %.0f MiB, LibTorch %.0f MiB; steps/s with data %.0f, without %.0f\n" \
    "C2 peak RSS, input pipeline, $t thr." "$(median3 "t$t.ember.c2_peak_rss")" "$(median3 "t$t.torch.c2_peak_rss")" \
    "$(median3 "t$t.ember.c2_steps_per_second_with_data")" "$(median3 "t$t.ember.c2_steps_per_second_without_data")"
done
for shape in 1024x1024x1024_t1 1024x1024x1024_t2 4096x4096x4096_t1 4096x4096x4096_t2 \
  2048x2048x2048 4096x512x4096 4096x1024x4096; do
  r=$(value "sgemm_vs_blas.ratio_$shape")
  if [ -n "$r" ]; then
    printf "%-36s ember/OpenBLAS %.3fx (95%% interval %.3f-%.3f; ahead in %s rounds of %s)\n" \
      "SGEMM $shape, one process" "$r" "$(value "sgemm_vs_blas.ratio_low_$shape")" \
      "$(value "sgemm_vs_blas.ratio_high_$shape")" "$(value "sgemm_vs_blas.wins_$shape")" \
      "$(grep "^sgemm_vs_blas.wins_$shape " "$out" | awk '{print $4}')"
  fi
done
for shape in 1024x1024x1024 4096x4096x4096; do
  se=$(value "sgemm_vs_blas.speedup_${shape}_t1_t2_ember"); so=$(value "sgemm_vs_blas.speedup_${shape}_t1_t2_openblas")
  if [ -n "$se" ]; then
    printf "%-36s ember %.2fx, OpenBLAS %.2fx (medians of per-round ratios)\n" \
      "SGEMM $shape 2-thread speed-up" "$se" "$so"
  fi
done
i10=$(value t1.ember.incache_chain_10); h10=$(value t1.hand.incache_chain_10)
i100=$(value t1.ember.incache_chain_100); h100=$(value t1.hand.incache_chain_100)
printf "%-36s N=10 %.1f us (hand %.1f, %sx), N=100 %.0f us (hand %.0f, %sx)\n" \
  "in-cache chain 256x256, 1 thread" "$i10" "$h10" "$(ratio "$i10" "$h10")" "$i100" "$h100" "$(ratio "$i100" "$h100")"
echo
echo "Compile time against size (issue 9): first call, trace + compile, fresh disk cache"
printf "%-36s N=300 %.0f ms, N=1000 %.0f ms, N=3000 %.0f ms\n" "elementwise chain, 64x64 f32" \
  "$(value ember.compile_chain_300)" "$(value ember.compile_chain_1000)" "$(value ember.compile_chain_3000)"
printf "%-36s N=100 %.0f ms, N=300 %.0f ms\n" "32x32 f32 matmuls in a row" \
  "$(value ember.compile_matmuls_100)" "$(value ember.compile_matmuls_300)"
echo
echo "Training (issue 4): MLP 784-256-256-10, batch 64, SGD step (medians of 5 alternating rounds)"
mt=$(median ember.mlp_traced_step); mg=$(median ember.mlp_tape_step); mT=$(median torch.mlp_step)
mu=$(median ember.mlp_grad_eager_update_step)
printf "%-36s traced %.2f ms, tape %.2f ms, LibTorch autograd %.2f ms\n" "step time" "$mt" "$mg" "$mT"
printf "%-36s traced/LibTorch %.2fx, tape/LibTorch %.2fx, compiles after the first tape step: %.0f\n" "" \
  "$(median ember.mlp_traced_step torch.mlp_step)" "$(median ember.mlp_tape_step torch.mlp_step)" \
  "$(median ember.mlp_tape_compiles_after_first_step)"
printf "%-36s %.2f ms (%.2fx LibTorch)\n" "value_and_grad, then eager update" "$mu" \
  "$(median ember.mlp_grad_eager_update_step torch.mlp_step)"
echo
echo "Float32 matmuls of that step, GFLOP/s (m x k x n)"
for shape in 64x784x256 64x256x256 64x256x10 784x64x256 256x64x256 64x256x784; do
  e=$(value "ember.matmul_gflops_$shape"); t=$(value "torch.matmul_gflops_$shape")
  printf "%-36s ember %6.1f, LibTorch %6.1f, ember/LibTorch %sx\n" "$shape" "$e" "$t" "$(ratio "$e" "$t")"
done
rm -f "$out"
