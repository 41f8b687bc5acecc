#!/usr/bin/env bash
# Builds ember and runs the demo: eager tensors (stories A1-A4, A6), a traced
# function (D1), power(x, 100) eager vs traced (D8), custom gradients (B4),
# gradients of gradients (B5) and a linear regression trained with a
# GradientTape (C1).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${EMBER_BUILD_DIR:-$root/build}
"$root/scripts/build.sh"
for example in a1_eager_matmul a2_print_tensor a3_broadcasting a4_operator_overloading \
               a6_fizzbuzz d1_traced_function d8_power b4_custom_gradient b5_higher_order \
               c1_linear_regression; do
  echo "== $example"
  "$build/bin/$example"
done
