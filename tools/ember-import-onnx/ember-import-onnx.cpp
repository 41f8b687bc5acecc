//===- ember-import-onnx.cpp - an ONNX model as ember MLIR -----------------===//
//
//   ember-import-onnx model.onnx [-o model.mlir] [--dim batch=8,...]
//
// --dim gives symbolic dims a size (for models whose ops cannot take a dim
// of any size yet).
// Writes the model as ember IR (one public function, its initializers as
// constants, its symbolic dims as `?`) for ember-opt and ember-compile
// (which also takes the .onnx file itself). Errors name the file, the node
// and its op type; nothing is written then.
//
//===----------------------------------------------------------------------===//

#include "ember/ONNX/ONNX.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include <unistd.h>

constexpr const char *kUsage =
    "usage: ember-import-onnx MODEL.onnx [-o OUTPUT.mlir] [--dim NAME=SIZE,...]\n";

int main(int argc, char **argv) {
  std::string input, output = "-", dims;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "-o" && i + 1 < argc)
      output = argv[++i];
    else if (arg == "--dim" && i + 1 < argc)
      dims += (dims.empty() ? "" : ",") + std::string(argv[++i]);
    else if (arg == "-h" || arg == "--help" || arg[0] == '-' || !input.empty()) {
      std::cerr << kUsage;
      return arg == "-h" || arg == "--help" ? 0 : 2;
    } else
      input = arg;
  }
  if (input.empty()) {
    std::cerr << kUsage;
    return 2;
  }
  std::string text;
  try {
    ember::onnx::LoadOptions options;
    if (!dims.empty())
      options.dims = ember::onnx::parse_dims(dims);
    text = ember::onnx::import_mlir(input, options);
  } catch (const std::exception &error) {
    std::cerr << "ember-import-onnx: error: " << error.what() << "\n";
    return 1;
  }
  if (output == "-") {
    std::cout << text;
    return 0;
  }
  // Written whole or not at all: a temporary name, then renamed.
  std::string temporary = output + ".tmp" + std::to_string(::getpid());
  std::ofstream file(temporary);
  file << text;
  file.close();
  if (!file) {
    std::filesystem::remove(temporary);
    std::cerr << "ember-import-onnx: error: cannot write " << output << "\n";
    return 1;
  }
  std::filesystem::rename(temporary, output);
  return 0;
}
