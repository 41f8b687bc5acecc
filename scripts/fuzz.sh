#!/usr/bin/env bash
# Fuzzes ember's readers and its compiler input for a while (as LLVM and IREE
# fuzz their parsers): the libFuzzer targets of fuzz/ (built with the
# sanitizer build, ASan+UBSan), each for $EMBER_FUZZ_SECONDS seconds
# (default 600) from its seed corpus, new inputs kept in
# build-asan/fuzz-corpus/<target>. Prints each target's executions and
# coverage; a crash, leak, hang or out-of-memory stops that target and keeps
# the input in build-asan/fuzz (add it to fuzz/corpus/<target> with the fix).
#   scripts/fuzz.sh [target...]     (npy safetensors idx checkpoint ember_mlir)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${EMBER_ASAN_BUILD_DIR:-$root/build-asan}
seconds=${EMBER_FUZZ_SECONDS:-600}
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(npy safetensors idx checkpoint ember_mlir)
EMBER_BUILD_DIR="$build" EMBER_BUILD_TARGETS="${targets[*]/%/_fuzzer}" "$root/scripts/build.sh" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DEMBER_SANITIZERS=address,undefined > /dev/null
export ASAN_OPTIONS=${ASAN_OPTIONS:-allow_user_poisoning=0:detect_leaks=1}
export ASAN_SYMBOLIZER_PATH=${ASAN_SYMBOLIZER_PATH:-/usr/lib/llvm-22/bin/llvm-symbolizer}
failed=0
for target in "${targets[@]}"; do
  corpus="$build/fuzz-corpus/$target"
  mkdir -p "$corpus" "$build/fuzz"
  echo "== $target ($seconds s)"
  log="$build/fuzz/$target.log"
  status=0
  "$build/bin/${target}_fuzzer" -max_total_time="$seconds" -timeout=25 -rss_limit_mb=4096 \
    -print_final_stats=1 -artifact_prefix="$build/fuzz/${target}-" \
    "$corpus" "$root/fuzz/corpus/$target" > "$log" 2>&1 || status=$?
  grep -E "^stat::number_of_executed_units|^stat::peak_rss_mb|DONE +cov:|ERROR|SUMMARY|Test unit written" "$log" || true
  if [ "$status" -ne 0 ]; then
    echo "$target: FAILED (exit $status), log: $log"
    failed=1
  fi
done
exit $failed
