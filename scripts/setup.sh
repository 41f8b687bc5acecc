#!/usr/bin/env bash
# Installs every Debian package ember needs (idempotent; run as root on Debian 12).
#   scripts/setup.sh            build and test dependencies
#   scripts/setup.sh --bench    also the benchmark peers (LibTorch, OpenBLAS)
set -euo pipefail

packages=(
  # LLVM/MLIR 22: libraries, mlir-tblgen/mlir-opt/mlir-runner, lit and FileCheck
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools clang-22 lld-22
  # ASan/UBSan runtimes (scripts/test-sanitizers.sh)
  libclang-rt-22-dev
  # LLVM's OpenMP runtime (libomp.so.5): the threads of compiled parallel loops
  libomp-22-dev
  # build
  cmake ninja-build ccache zlib1g-dev libzstd-dev
  # training stack: checkpoint headers (JSON), IDX data (zlib), the
  # Fashion-MNIST data set, and protoc (tests decode TensorBoard events with it)
  nlohmann-json3-dev dataset-fashion-mnist protobuf-compiler
  # collectives across processes (ember::distributed)
  libgloo-dev
  # the ONNX importer (ember::onnx): ONNX's protobuf, checker and shape
  # inference; python3-onnx generates the ONNX node tests (scripts/onnx-node-tests.sh),
  # torch exports the real models the importer is tested on (scripts/onnx-real-models.sh)
  libonnx-dev python3-onnx python3-torch python3-torchvision
  # tests and benchmarks; valgrind checks what MLIR's uninstrumented code frees;
  # numpy prints the text the tensor printer must match
  libgtest-dev libbenchmark-dev valgrind python3-numpy
)
if [[ "${1:-}" == "--bench" ]]; then
  packages+=(libtorch-dev libopenblas-dev)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  SUDO=""
  [[ $(id -u) -ne 0 ]] && SUDO="sudo"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
echo "ember: all packages present"
