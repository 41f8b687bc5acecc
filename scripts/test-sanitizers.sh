#!/usr/bin/env bash
# Builds ember with AddressSanitizer + UndefinedBehaviorSanitizer in
# ./build-asan (or $EMBER_ASAN_BUILD_DIR) and runs the whole test suite there.
# Extra arguments go to ctest (e.g. -R Ops).
#
# What is instrumented: ember's own code (the compiler libraries, the front
# end, the runtime, the tools, the tests). Not instrumented: Debian's LLVM/MLIR
# libraries, mlir-runner (so lit's libemberrt.so is built without
# sanitizers: an uninstrumented executable cannot dlopen an ASan library) and
# the code the JIT compiles. ASan still sees everything ember's code reads and
# writes, and every heap block, whoever allocates it.
#
# Needs libclang-rt-22-dev (scripts/setup.sh installs it). Takes long on 2
# cores: sanitizer flags change every object, so ccache hits only after a
# first sanitizer build.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${EMBER_ASAN_BUILD_DIR:-$root/build-asan}

EMBER_BUILD_DIR="$build" "$root/scripts/build.sh" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DEMBER_SANITIZERS=address,undefined

# Runtime options (lit passes ASAN_OPTIONS / UBSAN_OPTIONS / LSAN_OPTIONS on
# to the tools it runs).
#  - halt_on_error / print_stacktrace: every finding fails its test, with a
#    stack (the build also has -fno-sanitize-recover=all).
#  - allow_user_poisoning=0: LLVM's headers poison and unpoison
#    BumpPtrAllocator slabs by hand when the includer is built with ASan
#    (llvm/Support/Allocator.h, LLVM_ADDRESS_SANITIZER_BUILD). ember's
#    instrumented copy of the out-of-line AllocateSlow preempts libMLIR's, so
#    MLIR's own slabs get poisoned while libMLIR's uninstrumented inline
#    Allocate never unpoisons what it hands out: a false use-after-poison at
#    the first MLIRContext (a memcpy in mlir::Dialect::addType). Heap, stack
#    and global checks are unaffected.
#  - detect_leaks=1 (LeakSanitizer, the default, said explicitly): the suite
#    has no leaks and needs no suppressions; what ember and MLIR keep until
#    exit (the kernel cache, contexts, JITs) stays reachable from globals.
#  - The UBSan check `function` is left on, but the two calls into compiled
#    code are exempt from it (callEntry in lib/Frontend/Dispatcher.cpp says
#    why: it read 8 bytes before JIT code, which faulted at a page start).
# A fresh disk cache of compiled code for each run (lit passes it on too): a
# kernel loaded from ~/.cache/ember, which a normal build of the same sources
# filled, would skip ember's compiler, which is what this run is to check.
export EMBER_CACHE_DIR="$build/kernel-cache"
rm -rf "$EMBER_CACHE_DIR"
export ASAN_SYMBOLIZER_PATH=${ASAN_SYMBOLIZER_PATH:-/usr/lib/llvm-22/bin/llvm-symbolizer}
export ASAN_OPTIONS=${ASAN_OPTIONS:-halt_on_error=1:allow_user_poisoning=0:strict_init_order=1:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
ctest --test-dir "$build" --output-on-failure -j2 "$@"
