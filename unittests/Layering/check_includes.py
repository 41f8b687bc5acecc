#!/usr/bin/env python3
"""ember's include rules (docs/ARCHITECTURE.md, section 1), checked.

Every quoted #include with a path ("ember/...", "mlir/...", "emberrt/...")
in a folder must start with one of the prefixes its row allows; arrows point
only downward. The most specific row (the longest matching path) applies,
so a single header can be held to a stricter rule than its folder. A quoted
include without a folder ("Tracer.h") must name a header of the including
file's own folder: a folder's private headers stay inside it.

usage: check_includes.py SOURCE_ROOT
"""

import os
import re
import sys

COMPILER = ["mlir/", "llvm/"]

# (paths, allowed prefixes), bottom to top.
RULES = [
    (["runtime"], ["emberrt/"]),
    # The leaf vocabulary: nothing of ember, no LLVM.
    (["include/ember/Support", "lib/Support"], ["ember/Support/"]),
    (["include/ember/Dialect", "lib/Dialect"], ["ember/Dialect/"] + COMPILER),
    (["include/ember/Transforms", "lib/Transforms"],
     ["ember/Dialect/", "ember/Transforms/", "ember/Support/"] + COMPILER),
    (["include/ember/Conversion", "lib/Conversion"],
     ["ember/Dialect/", "ember/Conversion/"] + COMPILER),
    (["include/ember/Codegen/CPU", "lib/Codegen/CPU"],
     ["ember/Dialect/", "ember/Conversion/", "ember/Codegen/CPU/"] + COMPILER),
    # The GPU's code generation is MLIR's dialects, and ember's dialect for
    # the one op that reaches it (ember.fault_if, in kernels' bodies).
    (["include/ember/Codegen/CUDA", "lib/Codegen/CUDA"],
     ["ember/Dialect/", "ember/Codegen/CUDA/"] + COMPILER),
    # Pipelines name passes as text: no pass header.
    (["include/ember/Pipelines", "lib/Pipelines"], ["ember/Pipelines/"] + COMPILER),
    # The one place that knows every pass.
    (["include/ember/Init", "lib/Init"],
     ["ember/Dialect/", "ember/Transforms/", "ember/Conversion/", "ember/Codegen/",
      "ember/Pipelines/", "ember/Init/"] + COMPILER),
    (["include/ember/Compiler", "lib/Compiler"],
     ["ember/Compiler/", "ember/Init/", "ember/Pipelines/", "ember/Support/"] + COMPILER),
    # Building IR for a traced function, above the dialect (and Init, for
    # the registry of its contexts).
    (["include/ember/Trace", "lib/Trace"],
     ["ember/Trace/", "ember/Dialect/", "ember/Init/", "ember/Support/", "emberrt/"] + COMPILER),
    # The headers of Trace the front end includes take no MLIR or LLVM.
    (["include/ember/Trace/Types.h", "include/ember/Trace/FunctionBuilder.h"],
     ["ember/Trace/Types.h", "ember/Support/", "emberrt/"]),
    # The JIT, above the compiler and the trace builder.
    (["include/ember/JIT", "lib/JIT"],
     ["ember/JIT/", "ember/Trace/", "ember/Compiler/", "ember/Init/", "ember/Pipelines/",
      "ember/Dialect/", "ember/Conversion/", "ember/Support/", "emberrt/"] + COMPILER),
    # The JIT headers the front end includes take no MLIR or LLVM.
    (["include/ember/JIT/KernelCompiler.h", "include/ember/JIT/FunctionCompiler.h"],
     ["ember/JIT/KernelCompiler.h", "ember/Trace/Types.h", "ember/Trace/FunctionBuilder.h",
      "ember/Support/", "emberrt/"]),
    # The core front end reaches the compiler only through those headers.
    (["include/ember/Frontend", "lib/Frontend"],
     ["ember/Frontend/", "ember/Support/", "ember/JIT/KernelCompiler.h",
      "ember/JIT/FunctionCompiler.h", "ember/Trace/Types.h", "ember/Trace/FunctionBuilder.h",
      "emberrt/"]),
    # The libraries on the core use its public headers only (a user could
    # have written them): no JIT, no runtime, no private header of the core.
    (["include/ember/IO", "lib/IO"], ["ember/IO/", "ember/Frontend/", "ember/Support/"]),
    (["include/ember/Data", "lib/Data"], ["ember/Data/", "ember/Frontend/", "ember/Support/"]),
    (["include/ember/Train", "lib/Train"],
     ["ember/Train/", "ember/IO/", "ember/Frontend/", "ember/Support/"]),
    (["include/ember/Distributed", "lib/Distributed"],
     ["ember/Distributed/", "ember/Frontend/", "ember/Support/"]),
    (["include/ember/ONNX", "lib/ONNX"], ["ember/ONNX/", "ember/Frontend/", "ember/Support/"]),
    (["include/ember/ember.h", "lib/SharedLibrary.cpp"],
     ["ember/Frontend/", "ember/Support/", "ember/IO/", "ember/Data/", "ember/Train/",
      "ember/Distributed/", "ember/ONNX/"]),
    # The tools: the compiler, and the ONNX importer (ember-compile takes
    # .onnx models; ember-import-onnx).
    (["tools"], ["ember/Compiler/", "ember/Init/", "ember/Support/", "ember/ONNX/"] + COMPILER),
]


# Headers CMake generates into the build folder (cmake/BuildId.cmake).
GENERATED = {"EmberBuildId.h"}

SOURCE = re.compile(r"\.(h|hpp|c|cpp|inc)$")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def rule_for(path):
    best = None
    for paths, allowed in RULES:
        for p in paths:
            if path == p or path.startswith(p + "/"):
                if best is None or len(p) > len(best[0]):
                    best = (p, allowed)
    return best


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    root = sys.argv[1]
    problems, checked = [], 0
    for top in ["runtime", "include/ember", "lib", "tools"]:
        for folder, _, files in os.walk(os.path.join(root, top)):
            for name in files:
                if not SOURCE.search(name):
                    continue
                path = os.path.relpath(os.path.join(folder, name), root)
                rule = rule_for(path)
                if rule is None:
                    problems.append(f"{path}: no include rule covers this folder (add a row)")
                    continue
                checked += 1
                with open(os.path.join(root, path), encoding="utf-8") as f:
                    text = f.read()
                for included in INCLUDE.findall(text):
                    line = text[:text.find(f'"{included}"')].count("\n") + 1
                    if "/" not in included:
                        if included not in GENERATED and not os.path.exists(os.path.join(folder, included)):
                            problems.append(f"{path}:{line}: \"{included}\" is not a header of "
                                            f"this folder (private headers stay inside theirs)")
                    elif not any(included.startswith(a) for a in rule[1]):
                        problems.append(f"{path}:{line}: includes \"{included}\", which the rule "
                                        f"for {rule[0]} does not allow (allowed: "
                                        f"{', '.join(rule[1])})")
    for p in problems:
        print(p)
    print(f"{checked} files checked, {len(problems)} include rule violations")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
