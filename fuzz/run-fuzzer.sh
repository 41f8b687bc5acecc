#!/usr/bin/env bash
# Runs libFuzzer target $1 for $3 seconds from its seed corpus $2 (read, never
# written: new inputs go to a temporary folder). A crash, leak, hang (over
# 25 s on one input) or out-of-memory fails the run; the input that caused it
# is kept as ./<target>-crash-<hash> (where ctest runs: build-asan/fuzz), to
# be added to the seed corpus as a regression input once fixed. Prints the
# executions and the coverage reached.
set -euo pipefail
fuzzer=$1 seeds=$2 seconds=$3
name=$(basename "$fuzzer")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
"$fuzzer" -max_total_time="$seconds" -timeout=25 -rss_limit_mb=4096 -print_final_stats=1 \
  -artifact_prefix="$PWD/$name-" "$work" "$seeds" > "$work.log" 2>&1 || status=$?
grep -E "^(stat::number_of_executed_units|stat::peak_rss_mb)|(DONE|INITED) +cov:" "$work.log" || true
if [ "$status" -ne 0 ]; then
  tail -60 "$work.log"
  echo "$name: FAILED (exit $status); the input is kept beside the log: $PWD/$name-*"
fi
rm -f "$work.log"
exit "$status"
