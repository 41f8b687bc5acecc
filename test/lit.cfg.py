# -*- Python -*-
# lit configuration of ember's FileCheck tests (out-of-tree MLIR style).

import os
import sys

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "EMBER"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]

config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.ember_obj_root, "test")

config.excludes = [
    "Inputs",
    "install",  # a CMake project for check-install.sh (ctest)
    "CMakeLists.txt",
    "tools",
    "lit.cfg.py",
    "lit.site.cfg.py",
    "lit.site.cfg.py.in",
    "README.md",
    "README.txt",
    "README",
]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%python", sys.executable))
config.substitutions.append(("%shlibext", config.llvm_shlib_ext))
# What a C program calling ahead-of-time compiled code builds and links with.
config.substitutions.append(
    ("%ember_runtime_include", os.path.join(os.path.dirname(config.test_source_root), "runtime", "include")))
# A stand-in CUDA driver (unittests/runtime/FakeCudaDriver.cpp): GPU programs
# run their host side where there is no GPU (kernels do not run).
config.substitutions.append(
    ("%fake_cuda", os.path.join(config.ember_obj_root, "lib", "libember-fake-cuda" + config.llvm_shlib_ext)))
# In a sanitizer build the runtime is instrumented: programs linking it link
# the sanitizers' runtimes too.
config.substitutions.append(
    ("%emberrt_lib", os.path.join(config.ember_obj_root, "runtime", "libemberrt.a")
     + (" -fsanitize=" + config.ember_sanitizers if config.ember_sanitizers else "")))

# EMBER_CACHE_DIR: the disk cache of compiled code, when the caller chose one
# (scripts/test-sanitizers.sh gives each run a fresh one); EMBER_CPU: the CPU
# the JIT compiles for (scripts/test.sh runs the suite again for AVX2).
llvm_config.with_system_environment(
    ["HOME", "INCLUDE", "LIB", "TMP", "TEMP", "EMBER_CACHE_DIR", "EMBER_CPU"])
llvm_config.use_default_substitutions()

# The JIT runtime libraries mlir-runner loads for printMemref* and friends,
# and ember's runtime, for what compiled ember code calls (emberrt_report_fault).
config.substitutions.append(
    (
        "%mlir_runner_utils",
        ",".join(
            [
                os.path.join(config.mlir_runner_utils_dir, lib + config.llvm_shlib_ext)
                for lib in ("libmlir_runner_utils", "libmlir_c_runner_utils")
            ]
            + [os.path.join(config.ember_obj_root, "lib", "libemberrt" + config.llvm_shlib_ext)]
        ),
    )
)

config.ember_tools_dir = os.path.join(config.ember_obj_root, "bin")
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

tool_dirs = [config.ember_tools_dir, config.llvm_tools_dir]
tools = [
    ToolSubst("ember-opt", unresolved="fatal"),
    ToolSubst("ember-compile", unresolved="fatal"),
    ToolSubst("ember-run", unresolved="fatal"),
    ToolSubst("ember-import-onnx", unresolved="fatal"),
    ToolSubst("mlir-runner", unresolved="fatal"),
    # The user-story examples (examples/), whose output the Examples tests check.
    ToolSubst("a1_eager_matmul", unresolved="fatal"),
    ToolSubst("a2_print_tensor", unresolved="fatal"),
    ToolSubst("a3_broadcasting", unresolved="fatal"),
    ToolSubst("a4_operator_overloading", unresolved="fatal"),
    ToolSubst("a6_fizzbuzz", unresolved="fatal"),
    ToolSubst("b1_gradient_tape", unresolved="fatal"),
    ToolSubst("b3_line_search", unresolved="fatal"),
    ToolSubst("b4_custom_gradient", unresolved="fatal"),
    ToolSubst("b5_higher_order", unresolved="fatal"),
    ToolSubst("c1_linear_regression", unresolved="fatal"),
    ToolSubst("c2_image_classifier", unresolved="fatal"),
    ToolSubst("c4_checkpoints", unresolved="fatal"),
    ToolSubst("c5_metrics", unresolved="fatal"),
    ToolSubst("c6_summaries", unresolved="fatal"),
    ToolSubst("d1_traced_function", unresolved="fatal"),
    ToolSubst("d6_control_flow", unresolved="fatal"),
    ToolSubst("d8_power", unresolved="fatal"),
    ToolSubst("e1_device_placement", unresolved="fatal"),
    ToolSubst("f1_export", unresolved="fatal"),
    ToolSubst("eager-op-probe", unresolved="fatal"),
    ToolSubst("llvm-objdump", unresolved="fatal"),
    ToolSubst("llvm-nm", unresolved="fatal"),
    ToolSubst("llvm-readelf", unresolved="fatal"),
]
llvm_config.add_tool_substitutions(tools, tool_dirs)

# The CUDA toolkit's ptxas (CUDA 13 on ember's machines): PTX checks need it
# and are reported unsupported without it.
cuda_root = os.environ.get("CUDA_ROOT", "/usr/local/cuda")
if os.path.exists(os.path.join(cuda_root, "bin", "ptxas")):
    config.available_features.add("ptxas")
    config.substitutions.append(("%cuda_root", cuda_root))
    config.substitutions.append(("%ptxas", os.path.join(cuda_root, "bin", "ptxas")))
