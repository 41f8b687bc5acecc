#!/usr/bin/env bash
# Issue 9's AOT figures: ember-compile time for power(x, 100), the C
# program calling the compiled object (wall time from process start to the
# result, median of 20 runs spawned from python; peak RSS from GNU time),
# and the JIT's traced power and chain compiled ahead of time and timed from C
# next to bench/function_bench (the JIT) in the same run. Linked with libemberrt
# alone (ldd shows no LLVM or MLIR). Usage: bench/aot/run.sh [build dir]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
start=$(date +%s%N)
"$build/bin/ember-compile" "$root/bench/aot/power.mlir" -o "$work/power.o" --header "$work/power.h"
echo "ember-compile power.mlir: $(( ($(date +%s%N) - start) / 1000000 )) ms"
clang-22 -std=c99 -O2 -I"$work" -I"$root/runtime/include" -c "$root/bench/aot/power_main.c" -o "$work/main.o"
clang-22 -fuse-ld=lld "$work/main.o" "$work/power.o" "$build/runtime/libemberrt.a" -lstdc++ -lm -ldl \
  -lpthread -o "$work/power"
echo "linked with: $(ldd "$work/power" | awk '{print $1}' | tr '\n' ' ')"
"$work/power"
python3 - "$work/power" <<'PY'
import statistics, subprocess, sys, time
walls = []
for _ in range(20):
    start = time.perf_counter()
    subprocess.run([sys.argv[1]], stdout=subprocess.DEVNULL, check=True)
    walls.append(time.perf_counter() - start)
print(f"process start to result: median {statistics.median(walls) * 1e3:.2f} ms wall "
      f"(min {min(walls) * 1e3:.2f}, 20 runs)")
PY
echo "peak RSS: $(/usr/bin/time -f %M "$work/power" 2>&1 >/dev/null) KiB"

# The same functions as the JIT traced them, compiled ahead of time.
for f in chain power_traced; do
  "$build/bin/ember-compile" "$root/bench/aot/$f.mlir" -o "$work/$f.o" --header "$work/$f.h"
done
clang-22 -std=c99 -O2 -I"$work" -I"$root/runtime/include" -c "$root/bench/aot/time_main.c" -o "$work/time.o"
clang-22 -fuse-ld=lld "$work/time.o" "$work/chain.o" "$work/power_traced.o" "$build/runtime/libemberrt.a" \
  -lstdc++ -lm -ldl -lpthread -o "$work/time"
"$work/time"
if [[ -x "$build/bin/function_bench" ]]; then
  EMBER_CACHE_DIR="$work/cache" "$build/bin/function_bench" | grep -E 'power_traced|chain_traced'
fi
