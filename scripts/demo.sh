#!/usr/bin/env bash
# Builds ember and runs the demo. First ember's main job, story C2: an image
# classifier (Fashion-MNIST) trained briefly in C++ with a compiled training
# step (2 epochs of a third of the images, about 20 s here, with its progress bar), its loss plot,
# checkpoint and TensorBoard logs; its inference exported, compiled ahead of
# time by ember-compile (every stage's IR dumped) and called from a plain C
# program that prints the JIT's predictions. Then the small stories: eager
# tensors (A1-A4, A6), a traced function (D1), power(x, 100) eager vs traced
# (D8), custom gradients (B4), gradients of gradients (B5) and a linear
# regression trained with a GradientTape (C1).
# Outputs go to $EMBER_DEMO_DIR (default build/demo).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${EMBER_BUILD_DIR:-$root/build}
out=${EMBER_DEMO_DIR:-$build/demo}
"$root/scripts/build.sh"
rm -rf "$out"
mkdir -p "$out"

echo "== c2_image_classifier: train briefly, export the inference"
"$build/bin/c2_image_classifier" --epochs 2 --train 19200 --test 2000 --out "$out" \
  --export "$out/classify.mlir"
echo "== ember-compile: the exported classifier, ahead of time, into a C program"
"$build/bin/ember-compile" "$out/classify.mlir" -o "$out/classify.o" --header "$out/classify.h" \
  --dump-ir-dir "$out/ir"
clang-22 -std=c99 -I"$out" -I"$root/runtime/include" "$root/examples/c2_classify_main.c" \
  "$out/classify.o" "$build/runtime/libemberrt.a" -lomp -lstdc++ -lm -ldl -lpthread -o "$out/classify"
"$out/classify" "$out/classify.mlir.images.f32"
echo "IR of each compilation stage: $out/ir ($(ls "$out/ir" | tr '\n' ' '))"
echo "Loss plot: $out/loss.svg; TensorBoard: tensorboard --logdir $out/logs"

for example in a1_eager_matmul a2_print_tensor a3_broadcasting a4_operator_overloading \
               a6_fizzbuzz d1_traced_function d8_power b4_custom_gradient b5_higher_order \
               c1_linear_regression; do
  echo "== $example"
  "$build/bin/$example"
done
