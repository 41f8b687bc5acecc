//===- ember-compile.cpp - ember's ahead-of-time compiler ------------------===//
//
//   ember-compile model.mlir -o model.o [--header model.h]
//   ember-compile model.mlir --target=cuda:sm_90 -o model_gpu.o
//   ember-compile model.mlir --emit=llvm-ir -o -
//   ember-compile model.mlir --mtriple=aarch64-linux-gnu --mcpu=neoverse-n1 -o model_arm.o
//
// A thin driver over the compiler library (ember/Compiler/Compiler.h): every
// public function of the module gets the entry point `ember_entry_<name>`
// (the ABI of emberrt/runtime.h: pointers to memref descriptors, the
// arguments then the results, which the caller allocates), and --header
// writes a C99 header declaring them. Files are written whole or not at all.
//
//===----------------------------------------------------------------------===//

#include "ember/Compiler/Compiler.h"
#include "ember/Init/InitAll.h"
#include "ember/ONNX/ONNX.h"
#include "ember/Support/AtomicFile.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <cctype>
#include <dlfcn.h>
#include <string>
#include <vector>

using namespace mlir;
namespace cl = llvm::cl;
using ember::compiler::Phase;

// --help lists these alone, not the hundreds of options LLVM's backends
// register (the command line still takes them).
static cl::OptionCategory compileCategory("ember-compile options");

static cl::opt<std::string> onnxDims(
    "onnx-dim",
    cl::desc("An ONNX model's symbolic dims given sizes, NAME=SIZE,... (e.g. batch=8)"),
    cl::init(""), cl::cat(compileCategory));
static cl::opt<std::string> inputPath(cl::Positional, cl::desc("<input .mlir or .onnx>"), cl::Required,
                                      cl::cat(compileCategory));
static cl::opt<std::string> outputPath("o", cl::desc("Output file ('-': standard output)"),
                                       cl::value_desc("file"), cl::Required,
                                       cl::cat(compileCategory));
static cl::opt<std::string> targetName("target", cl::desc("host (default), cuda or cuda:sm_XX"),
                                       cl::init("host"), cl::cat(compileCategory));
static cl::opt<std::string> cudaFormat(
    "cuda-format",
    cl::desc("GPU binary embedded with --target=cuda: isa (PTX, compiled by the driver when "
             "the program loads it; the default), bin (a cubin, through the CUDA toolkit's "
             "ptxas: $CUDA_ROOT or /usr/local/cuda) or fatbin"),
    cl::init("isa"), cl::cat(compileCategory));
static cl::opt<bool> tensorFloat32(
    "tf32",
    cl::desc("With --target=cuda: float32 matmuls on tensor cores, their operands rounded to "
             "TF32 (sm_80 and later; TensorFlow's enable_tensor_float_32_execution, which "
             "ember's front end follows; off here unless given)"),
    cl::init(false), cl::cat(compileCategory));
static cl::opt<std::string> triple("mtriple", cl::desc("CPU target triple (cross-compiling)"),
                                   cl::cat(compileCategory));
static cl::opt<std::string> cpu("mcpu", cl::desc("CPU name: x86-64-v3, skylake-avx512, ..."),
                                cl::cat(compileCategory));
static cl::opt<std::string> features("mattr", cl::desc("CPU features: +avx2,-avx512f, ..."),
                                     cl::cat(compileCategory));
static cl::opt<unsigned> optLevel("O", cl::desc("Optimization level, 0 to 3"), cl::Prefix,
                                  cl::init(3), cl::cat(compileCategory));
static cl::opt<std::string> emit("emit",
                                 cl::desc("What to write: optimized, linalg, llvm, llvm-ir, asm "
                                          "or obj (default)"),
                                 cl::init("obj"), cl::cat(compileCategory));
static cl::opt<std::string> headerPath("header",
                                       cl::desc("Also write a C header declaring "
                                                "the entry points"),
                                       cl::value_desc("file"), cl::cat(compileCategory));
static cl::opt<bool> printIRAfterAll("print-ir-after-all",
                                     cl::desc("Print the IR after every pass (stderr)"),
                                     cl::cat(compileCategory));
static cl::opt<bool> timing("mlir-timing", cl::desc("Report the time every pass took (stderr)"),
                            cl::cat(compileCategory));
static cl::opt<std::string> crashReproducer(
    "mlir-pass-pipeline-crash-reproducer",
    cl::desc("When a pass fails or crashes, write the IR it started from and its stage's "
             "pipeline to this file (run it with ember-opt <file> --run-reproducer)"),
    cl::value_desc("file"), cl::cat(compileCategory));
static cl::opt<bool> shared("shared",
                            cl::desc("Write a shared library (-o libmodel.so), linked "
                                     "by ld.lld"),
                            cl::cat(compileCategory));
static cl::opt<ember::compiler::Unrolling> unrolling(
    "unroll", cl::desc("How LLVM may unroll loops"), cl::init(ember::compiler::Unrolling::Full),
    cl::values(clEnumValN(ember::compiler::Unrolling::Full, "full", "as LLVM decides (default)"),
               clEnumValN(ember::compiler::Unrolling::CompileTimeFirst, "compile-time-first",
                          "only tiny innermost loops, as the JIT compiles")),
    cl::cat(compileCategory));
static cl::opt<std::string> dumpDir("dump-ir-dir",
                                    cl::desc("Write every phase's IR into this directory"),
                                    cl::value_desc("dir"), cl::cat(compileCategory));

namespace {
/// Writes `contents` to `path` whole or not at all ("-": standard output).
bool writeWhole(const std::string &path, llvm::StringRef contents, std::string &error) {
  if (path == "-") {
    llvm::outs() << contents;
    return true;
  }
  return ember::compiler::writeFileAtomically(path, {contents}, error);
}

/// Whether `path` names something other than a regular file (/dev/null, a
/// FIFO): written into, never replaced by a rename.
bool isSpecialFile(const std::string &path) {
  llvm::sys::fs::file_status status;
  return !llvm::sys::fs::status(path, status) && llvm::sys::fs::exists(status) &&
         !llvm::sys::fs::is_regular_file(status);
}

/// Writes `contents` to a new file where the output for `path` is staged:
/// beside it, to be renamed over it, or for /dev/null and the like in the
/// temporary folder, to be copied into it. Empty contents leave an empty
/// file for a tool to fill (the linker). Sets `temporary`; "" or the reason.
std::string stage(const std::string &path, llvm::StringRef contents, std::string &temporary) {
  std::string beside = path;
  if (isSpecialFile(path)) {
    llvm::SmallString<128> folder;
    llvm::sys::path::system_temp_directory(/*ErasedOnReboot=*/true, folder);
    llvm::sys::path::append(folder, "ember-compile-output");
    beside = folder.str().str();
  }
  std::string_view pieces[] = {std::string_view(contents.data(), contents.size())};
  return ember::support::writeBeside(beside, pieces, temporary);
}

/// The outputs of one run (the object or library, the header), there
/// together or not at all: each is written to its temporary (stage),
/// and they are put in place only once all are written. A temporary still
/// here when this is destroyed (a later output failed) is removed.
class Outputs {
public:
  ~Outputs() {
    for (const auto &[temporary, path] : staged_)
      if (!temporary.empty())
        llvm::sys::fs::remove(temporary);
  }
  /// `contents`, for `path` ("-": standard output, at commit).
  bool add(const std::string &path, llvm::StringRef contents, std::string &error) {
    if (path == "-") {
      stdout_ += contents;
      return true;
    }
    std::string temporary;
    if (std::string why = stage(path, contents, temporary); !why.empty()) {
      error = "cannot write " + path + ": " + why;
      return false;
    }
    staged_.emplace_back(temporary, path);
    return true;
  }
  /// A temporary of stage(path) written already (a linked library).
  void addWritten(const std::string &temporary, const std::string &path) {
    staged_.emplace_back(temporary, path);
  }
  /// Puts every output in place: renamed over a regular file (or none),
  /// copied into anything else (a rename would replace the node itself).
  bool commit(std::string &error) {
    for (auto &[temporary, path] : staged_) {
      bool committed = true;
      if (!isSpecialFile(path)) {
        if (std::string why = ember::support::commitBeside(temporary, path); !why.empty()) {
          error = "cannot write " + path + ": " + why;
          committed = false;
        }
      } else {
        if (std::error_code failure = llvm::sys::fs::copy_file(temporary, path)) {
          error = "cannot write " + path + ": " + failure.message();
          committed = false;
        }
        llvm::sys::fs::remove(temporary);
      }
      temporary.clear(); // renamed or removed: nothing for the destructor
      if (!committed)
        return false;
    }
    staged_.clear();
    llvm::outs() << stdout_;
    return true;
  }

private:
  std::vector<std::pair<std::string, std::string>> staged_; // temporary, final path
  std::string stdout_;
};

/// "ember.dtype[4, 8]" text of a tensor type for the header's comments.
std::string typeText(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  type.print(os);
  return text;
}

/// A C identifier made of `name` (other characters become '_').
std::string cIdentifier(llvm::StringRef name) {
  std::string out;
  for (char c : name)
    out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0])))
    out = "_" + out;
  return out;
}

/// `text` as a C string literal.
std::string cString(llvm::StringRef text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\')
      out += '\\';
    out += c;
  }
  return out + "\"";
}

/// Whether `source` is computed from sizes (a product, one scaled or
/// divided, a sum), which may not fit in int64.
bool computes(const ember::DimSource &source) { return !ember::isPlain(source); }

/// The C expression of a plan's size: a constant or a descriptor's size; a
/// computed one (a reshape's, a concatenation's) through emberrt_size_mul
/// and its kin, which give EMBERRT_SIZE_OVERFLOW where it does not fit.
std::string cSize(const ember::DimSource &source) {
  auto plain = [](const ember::DimSource &term) {
    if (term.argument < 0)
      return std::to_string(term.size);
    return "arg" + std::to_string(term.argument) + "->sizes_and_strides[" +
           std::to_string(term.dim) + "]";
  };
  std::string text = plain(source);
  for (const ember::DimSource &factor : source.times)
    text = "emberrt_size_mul(" + text + ", " + plain(factor) + ")";
  if (source.argument >= 0 && source.scale != 1) // (a constant is never scaled)
    text = "emberrt_size_mul(" + text + ", " + std::to_string(source.scale) + ")";
  if (source.argument >= 0 && source.divisor != 1)
    text = "emberrt_size_div(" + text + ", " + std::to_string(source.divisor) + ")";
  for (const ember::DimSource &term : source.plus)
    text = "emberrt_size_add(" + text + ", " + plain(term) + ")";
  return text;
}

/// What `source` is, in a message.
std::string sizeText(const ember::DimSource &source) {
  return ember::formatSize(source, [](const ember::DimSource &term) {
    if (term.argument < 0)
      return std::to_string(term.size);
    return "dim " + std::to_string(term.dim) + " of arg" + std::to_string(term.argument);
  });
}

/// The wrappers of a function with `?` dims in its arguments: <f>_result_sizes
/// checks the arguments' sizes (the static dims, then the plan's checks) and
/// gives the results', and <f> checks them too, then calls the entry point.
/// Both return NULL, or (having run nothing) a message saying what does not fit.
void writeDynamicWrappers(llvm::raw_ostream &os, const std::string &name, FunctionType type,
                          const ember::DimPlan &plan) {
  size_t inputs = type.getNumInputs(), results = type.getNumResults();
  auto resultRank = [&](size_t r) { return cast<RankedTensorType>(type.getResult(r)).getRank(); };
  os << "/* The sizes of " << name << "'s results for these arguments (allocate the results\n"
     << " * so): NULL, or (nothing written) why the arguments' sizes do not fit. */\n"
     << "static inline const char *" << name << "_result_sizes(";
  for (size_t i = 0; i < inputs; ++i)
    os << (i ? ", " : "") << "const emberrt_memref_t *arg" << i;
  for (size_t r = 0; r < results; ++r)
    os << (inputs + r ? ", " : "") << "int64_t result" << r << "_sizes["
       << std::max<int64_t>(resultRank(r), 1) << "]";
  if (inputs + results == 0)
    os << "void";
  os << ") {\n";
  for (size_t i = 0; i < inputs; ++i) {
    auto argType = dyn_cast<RankedTensorType>(type.getInput(i));
    for (int64_t d = 0; argType && d < argType.getRank(); ++d)
      if (!argType.isDynamicDim(d))
        os << "  if (arg" << i << "->sizes_and_strides[" << d << "] != " << argType.getDimSize(d)
           << ")\n    return "
           << cString(name + ": dim " + std::to_string(d) + " of arg" + std::to_string(i) +
                      " must be " + std::to_string(argType.getDimSize(d)))
           << ";\n";
  }
  for (const ember::DimCheck &check : plan.checks)
    os << "  if (" << (computes(check.a) ? cSize(check.a) + " == EMBERRT_SIZE_OVERFLOW || " : "")
       << (computes(check.b) ? cSize(check.b) + " == EMBERRT_SIZE_OVERFLOW || " : "")
       << cSize(check.a)
       << (check.kind == ember::DimCheck::Kind::Divisible ? " % "
           : check.kind == ember::DimCheck::Kind::AtLeast ? " < "
                                                          : " != ")
       << cSize(check.b) << (check.kind == ember::DimCheck::Kind::Divisible ? " != 0" : "")
       << ")\n    return "
       << cString((check.location.empty() ? "" : check.location + ": ") + "'" + check.opName +
                  "' op in " + name + ": " + sizeText(check.a) + check.relation() +
                  sizeText(check.b) + check.tail())
       << ";\n";
  for (size_t r = 0; r < results; ++r)
    for (size_t d = 0; d < plan.resultDims[r].size(); ++d) {
      const ember::DimSource &size = plan.resultDims[r][d];
      os << "  result" << r << "_sizes[" << d << "] = " << cSize(size) << ";\n";
      if (computes(size))
        os << "  if (result" << r << "_sizes[" << d << "] == EMBERRT_SIZE_OVERFLOW)\n    return "
           << cString(name + ": dim " + std::to_string(d) + " of result " + std::to_string(r) +
                      ", " + sizeText(size) + ", does not fit in int64")
           << ";\n";
    }
  for (size_t i = 0; i < inputs; ++i)
    os << "  (void)arg" << i << ";\n";
  for (size_t r = 0; r < results; ++r)
    os << "  (void)result" << r << "_sizes;\n";
  os << "  return 0;\n}\n\n";
  os << "/* Runs " << name << ": NULL, or (nothing run) why the sizes of the arguments or of\n"
     << " * the results' descriptors do not fit. */\n"
     << "static inline const char *" << name << "(";
  for (size_t i = 0; i < inputs + results; ++i)
    os << (i ? ", " : "") << "emberrt_memref_t *"
       << (i < inputs ? "arg" + std::to_string(i) : "result" + std::to_string(i - inputs));
  if (inputs + results == 0)
    os << "void";
  os << ") {\n";
  for (size_t r = 0; r < results; ++r)
    os << "  int64_t result" << r << "_sizes[" << std::max<int64_t>(resultRank(r), 1) << "];\n";
  os << "  int d;\n  void *args[" << std::max<size_t>(inputs + results, 1) << "];\n"
     << "  const char *error = " << name << "_result_sizes(";
  for (size_t i = 0; i < inputs + results; ++i)
    os << (i ? ", " : "")
       << (i < inputs ? "arg" + std::to_string(i)
                      : "result" + std::to_string(i - inputs) + "_sizes");
  os << ");\n  if (error)\n    return error;\n";
  for (size_t r = 0; r < results; ++r)
    os << "  for (d = 0; d < " << resultRank(r) << "; ++d)\n    if (result" << r
       << "->sizes_and_strides[d] != result" << r << "_sizes[d])\n      return "
       << cString(name + ": result" + std::to_string(r) +
                  "'s descriptor does not have the result's sizes (see " + name + "_result_sizes)")
       << ";\n";
  for (size_t i = 0; i < inputs + results; ++i)
    os << "  args[" << i
       << "] = " << (i < inputs ? "arg" + std::to_string(i) : "result" + std::to_string(i - inputs))
       << ";\n";
  os << "  (void)d;\n  ember_entry_" << name << "(args);\n  return 0;\n}\n\n";
}

/// The C header: one entry point and one typed wrapper per public function.
std::string headerFor(ModuleOp module, const std::string &guardStem, bool gpu) {
  std::string guard = "EMBER_" + cIdentifier(guardStem) + "_H";
  for (char &c : guard)
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  std::string h;
  llvm::raw_string_ostream os(h);
  os << "/* Generated by ember-compile from " << llvm::sys::path::filename(inputPath)
     << "; do not edit.\n"
     << " * Each function takes pointers to memref descriptors (emberrt/runtime.h):\n"
     << " * its arguments, then its results, whose buffers the caller allocates.\n"
     << " * Link with ember's runtime and what it needs: -lemberrt -lstdc++ -lm -ldl\n"
     << " * -lpthread, and for loops large enough to run on several threads LLVM's\n"
     << " * OpenMP runtime (-lomp); the number of threads is emberrt_set_num_threads's\n"
     << " * (default: every CPU the process may use).\n"
     << " * A function with `?` (any size) dims in its arguments takes their sizes in\n"
     << " * the descriptors (emberrt_memref_init); its wrapper checks them (a size that\n"
     << " * breaks a constraint runs nothing and returns why, else NULL), and\n"
     << " * <name>_result_sizes gives the sizes to allocate its results with.\n";
  if (gpu)
    os << " * GPU code: the buffers are CUDA device memory (emberrt_cuda_malloc);\n"
       << " * kernels are queued on the runtime's stream (emberrt_cuda_synchronize waits).\n";
  os << " */\n#ifndef " << guard << "\n#define " << guard << "\n\n"
     << "#include \"emberrt/runtime.h\"\n\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n";
  for (auto function : module.getOps<func::FuncOp>()) {
    if (function.isPrivate() || function.isDeclaration())
      continue;
    std::string name = cIdentifier(function.getName());
    FunctionType type = function.getFunctionType();
    os << "/* " << function.getName() << "(";
    for (auto [i, input] : llvm::enumerate(type.getInputs()))
      os << (i ? ", " : "") << "arg" << i << ": " << typeText(input);
    os << ") -> (";
    for (auto [i, result] : llvm::enumerate(type.getResults()))
      os << (i ? ", " : "") << "result" << i << ": " << typeText(result);
    os << ") */\nvoid ember_entry_" << name << "(void **args);\n";
    ember::DimPlan plan = ember::compiler::dimPlanOf(function);
    if (!plan.resultDims.empty()) {
      writeDynamicWrappers(os, name, type, plan);
      continue;
    }
    os << "static inline void " << name << "(";
    size_t count = type.getNumInputs() + type.getNumResults();
    for (size_t i = 0; i < count; ++i)
      os << (i ? ", " : "") << "emberrt_memref_t *"
         << (i < type.getNumInputs() ? "arg" + std::to_string(i)
                                     : "result" + std::to_string(i - type.getNumInputs()));
    if (count == 0)
      os << "void";
    os << ") {\n  void *args[" << std::max<size_t>(count, 1) << "] = {";
    for (size_t i = 0; i < count; ++i)
      os << (i ? ", " : "")
         << (i < type.getNumInputs() ? "arg" + std::to_string(i)
                                     : "result" + std::to_string(i - type.getNumInputs()));
    if (count == 0)
      os << "0";
    os << "};\n  ember_entry_" << name << "(args);\n}\n\n";
  }
  os << "#ifdef __cplusplus\n}\n#endif\n\n#endif /* " << guard << " */\n";
  return h;
}

/// A shared library of `object` for `path`, linked by ld.lld (LLVM's linker,
/// which scripts/setup.sh installs with clang) into a temporary beside it,
/// staged in `outputs`.
/// Where the dynamic loader finds `library` (its search path: ldconfig's
/// cache, LD_LIBRARY_PATH), as it will when the library being linked is
/// loaded; "" if it finds none. `symbol` is one the library defines.
std::string loadedPathOf(const char *library, const char *symbol) {
  void *handle = dlopen(library, RTLD_LAZY | RTLD_LOCAL);
  if (!handle)
    return "";
  Dl_info info;
  void *address = dlsym(handle, symbol);
  std::string path = address && dladdr(address, &info) && info.dli_fname ? info.dli_fname : "";
  dlclose(handle);
  return path;
}

bool linkShared(llvm::StringRef object, const std::string &path, Outputs &outputs,
                std::string &error) {
  llvm::ErrorOr<std::string> linker = llvm::sys::findProgramByName("ld.lld");
  if (!linker)
    linker = llvm::sys::findProgramByName("ld.lld-22");
  if (!linker) {
    error = "--shared needs ld.lld (LLVM's linker), which is not on PATH";
    return false;
  }
  llvm::SmallString<128> objectPath;
  int fd;
  if (llvm::sys::fs::createTemporaryFile("ember-compile", "o", fd, objectPath)) {
    error = "cannot create a temporary object file";
    return false;
  }
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << object;
  }
  std::string temporary;
  if (std::string why = stage(path, "", temporary); !why.empty()) {
    llvm::sys::fs::remove(objectPath);
    error = "cannot write " + path + ": " + why;
    return false;
  }
  llvm::SmallVector<llvm::StringRef> arguments = {*linker, "-shared", "-o", temporary, objectPath};
  // Parallel loops call LLVM's OpenMP runtime: the library records it as a
  // dependency, so that loading it loads libomp.
  std::string openMP;
  if (llvm::StringRef(object).contains("__kmpc_")) {
    openMP = loadedPathOf("libomp.so.5", "__kmpc_fork_call");
    if (openMP.empty()) {
      llvm::sys::fs::remove(objectPath);
      llvm::sys::fs::remove(temporary);
      error = "--shared: the model has parallel loops, which need LLVM's OpenMP runtime "
              "(libomp.so.5, Debian's libomp5), not found";
      return false;
    }
    arguments.push_back(openMP);
  }
  std::string message;
  int status = llvm::sys::ExecuteAndWait(*linker, arguments, std::nullopt, {}, 0, 0, &message);
  llvm::sys::fs::remove(objectPath);
  if (status != 0) {
    llvm::sys::fs::remove(temporary);
    error = "linking " + path + " failed" + (message.empty() ? "" : ": " + message);
    return false;
  }
  outputs.addWritten(temporary, path);
  return true;
}

int fail(const std::string &message) {
  llvm::errs() << "ember-compile: error: " << message << "\n";
  return 1;
}
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    os << "ember-compile (ember, LLVM/MLIR " LLVM_VERSION_STRING ")\n";
  });
  cl::HideUnrelatedOptions(compileCategory);
  cl::ParseCommandLineOptions(argc, argv, "ember's ahead-of-time compiler\n");

  ember::compiler::CompileOptions options;
  std::string error;
  if (!ember::compiler::Target::parse(targetName, options.target, error))
    return fail(error);
  bool gpu = options.target.kind == ember::compiler::Target::Kind::Cuda;
  if (gpu && (!triple.empty() || !cpu.empty() || !features.empty()))
    return fail("--mtriple, --mcpu and --mattr name a CPU; GPU code's host part is for this "
                "machine");
  if (cudaFormat != "isa" && cudaFormat != "bin" && cudaFormat != "fatbin")
    return fail("unknown --cuda-format=" + cudaFormat + ": expected isa, bin or fatbin");
  if (!gpu && cudaFormat != "isa")
    return fail("--cuda-format applies to --target=cuda");
  if (!gpu && tensorFloat32)
    return fail("--tf32 applies to --target=cuda");
  options.target.cuda.format = cudaFormat;
  options.target.cuda.tf32 = tensorFloat32;
  options.target.triple = triple;
  options.target.cpu = cpu;
  options.target.features = features;
  options.optLevel = optLevel;
  options.unrolling = unrolling;
  std::optional<Phase> phase = ember::compiler::phaseNamed(emit);
  if (!phase) {
    std::string names;
    for (const ember::compiler::PhaseInfo &info : ember::compiler::phases())
      names += (names.empty() ? "" : ", ") + info.name.str();
    return fail("unknown --emit=" + emit + ": expected one of " + names);
  }
  options.stopAfter = *phase;
  options.printIRAfterAll = printIRAfterAll;
  options.timing = timing;
  options.crashReproducerPath = crashReproducer;
  if (shared && *phase != Phase::Object)
    return fail("--shared makes a library from object code: not with --emit=" + emit);
  if (*phase == Phase::Object && outputPath == "-")
    return fail("an object file goes to a file: -o <file>");

  DialectRegistry registry;
  ember::registerAllDialects(registry);
  MLIRContext context(registry);
  context.printOpOnDiagnostic(false); // one line an error: file:line:col: error: ...
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  std::unique_ptr<llvm::MemoryBuffer> input;
  if (llvm::StringRef(inputPath).ends_with(".onnx")) {
    // An ONNX model: imported (ember::onnx) into the module compiled below.
    try {
      ember::onnx::LoadOptions onnxOptions;
      if (!onnxDims.empty())
        onnxOptions.dims = ember::onnx::parse_dims(onnxDims);
      input = llvm::MemoryBuffer::getMemBufferCopy(ember::onnx::import_mlir(inputPath, onnxOptions),
                                                   inputPath + " (imported)");
    } catch (const std::exception &error) {
      return fail(error.what());
    }
  } else {
    if (!onnxDims.empty())
      return fail("--onnx-dim applies to an ONNX model (a .onnx input)");
    std::string readError;
    input = openInputFile(inputPath, &readError);
    if (!input)
      return fail(readError);
  }
  sourceMgr.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return 1; // the parser named the file and position

  // Entry points for every public function; what compiled code calls by
  // name comes from ember's runtime (memrefCopy is MLIR's runner library's
  // name for it).
  FailureOr<int> exported = ember::compiler::markEntryPoints(*module);
  if (failed(exported))
    return 1;
  if (*exported == 0)
    return fail(inputPath + " has no public function with a body: the output would export "
                "nothing (ember_entry_<name> is made for each public func.func)");
  std::string header = headerPath.empty()
                           ? ""
                           : headerFor(*module, llvm::sys::path::stem(headerPath).str(), gpu);
  auto useRuntimeNames = [](ModuleOp lowered) {
    // The object exports the entry points alone (callers may pass aliasing
    // buffers: no noalias promise).
    ember::compiler::keepOnlyEntryPoints(lowered, /*noAlias=*/false);
    // Temporaries come from the runtime's per-thread cache, as in the JIT:
    // a function called in a loop does not map and fault in its large
    // temporaries each call (ResNet-18 at batch 32: a sixth of a call). Its
    // free takes only what its allocate returned: not when malloc is used.
    std::vector<std::pair<StringRef, StringRef>> renames = {{"memrefCopy", "emberrt_memref_copy"}};
    if (!lowered.lookupSymbol("malloc"))
      renames.insert(renames.end(), {{"aligned_alloc", "emberrt_scratch_allocate"},
                                     {"free", "emberrt_scratch_free"}});
    for (auto [from, to] : renames) {
      auto function = lowered.lookupSymbol<LLVM::LLVMFuncOp>(from);
      if (!function)
        continue;
      auto name = StringAttr::get(lowered.getContext(), to);
      if (succeeded(SymbolTable::replaceAllSymbolUses(function, name, lowered)))
        function.setSymName(name.getValue());
    }
  };
  options.afterLowering = useRuntimeNames;
  std::string stem = llvm::sys::path::stem(inputPath).str();
  int dumped = 0;
  auto dump = [&](Phase produced, const std::string &text) {
    std::string path = (llvm::Twine(dumpDir) + "/" + stem + "." + llvm::Twine(dumped++) + "-" +
                        ember::compiler::infoOf(produced).name +
                        ember::compiler::infoOf(produced).extension)
                           .str();
    std::string ignored;
    if (!writeWhole(path, text, ignored))
      llvm::errs() << "ember-compile: warning: " << ignored << "\n";
  };
  if (!dumpDir.empty()) {
    if (std::error_code failure = llvm::sys::fs::create_directories(dumpDir))
      return fail("cannot create " + dumpDir + ": " + failure.message());
    options.observePhase = dump;
  }
  std::string artifact;
  if (failed(ember::compiler::compile(*module, options, artifact, error)))
    return error.empty() ? 1 : fail(error);
  Outputs outputs;
  if (!(shared ? linkShared(artifact, outputPath, outputs, error)
               : outputs.add(outputPath, artifact, error)) ||
      (!headerPath.empty() && !outputs.add(headerPath, header, error)) || !outputs.commit(error))
    return fail(error);
  return 0;
}
