//===- KernelCompiler.cpp - one ember op as a compiled kernel -------------===//
//
// Builds `func.func @kernel(inputs) -> result` holding the single op, verifies
// it (the op's own verifier and type inference produce the user's error
// message, located at the user's source line) and compiles it.
//
//===----------------------------------------------------------------------===//

#include "ember/JIT/KernelCompiler.h"

#include "ember/Dialect/Ember/IR/EmberOps.h"
#include "ember/JIT/ModuleCompiler.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <chrono>
#include <cstdlib>

using namespace mlir;
using namespace ::ember::jit;

namespace {
constexpr llvm::StringLiteral kKernelName = "kernel";

/// Each compiling thread owns a context: contexts are not shared across
/// threads, and compiles on different threads never wait for each other.
MLIRContext &threadContext() {
  thread_local MLIRContext context(compilerRegistry(), MLIRContext::Threading::DISABLED);
  thread_local bool loaded = [] {
    context.loadDialect<mlir::ember::EmberDialect, func::FuncDialect>();
    return true;
  }();
  (void)loaded;
  return context;
}

/// Records every error diagnostic as "file:line:col: error: message".
struct DiagnosticCollector {
  DiagnosticCollector(MLIRContext &context, std::string &out)
      : handler(&context, [&out](Diagnostic &diag) {
          if (diag.getSeverity() != DiagnosticSeverity::Error)
            return success();
          llvm::raw_string_ostream os(out);
          if (!out.empty())
            os << "\n";
          if (auto loc = dyn_cast<FileLineColLoc>(diag.getLocation()))
            os << loc.getFilename().getValue() << ":" << loc.getLine() << ":" << loc.getColumn()
               << ": ";
          os << "error: " << diag.str();
          for (Diagnostic &note : diag.getNotes())
            os << "\n  note: " << note.str();
          return success();
        }) {}
  ScopedDiagnosticHandler handler;
};

Type elementType(MLIRContext &context, ::ember::DType dtype) {
  Builder b(&context);
  switch (dtype) {
  case ::ember::DType::Bool:
    return b.getI1Type();
  case ::ember::DType::Int32:
    return b.getI32Type();
  case ::ember::DType::Int64:
    return b.getI64Type();
  case ::ember::DType::Float32:
    return b.getF32Type();
  case ::ember::DType::Float64:
    return b.getF64Type();
  }
  return {};
}

RankedTensorType tensorType(MLIRContext &context, const TensorSpec &spec) {
  return RankedTensorType::get(ArrayRef<int64_t>(spec.dims, spec.rank),
                               elementType(context, spec.dtype));
}

bool toSpec(Type type, TensorSpec &spec) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || tensor.getRank() > kMaxRank)
    return false;
  Type element = tensor.getElementType();
  if (element.isInteger(1))
    spec.dtype = ::ember::DType::Bool;
  else if (element.isInteger(32))
    spec.dtype = ::ember::DType::Int32;
  else if (element.isInteger(64))
    spec.dtype = ::ember::DType::Int64;
  else if (element.isF32())
    spec.dtype = ::ember::DType::Float32;
  else if (element.isF64())
    spec.dtype = ::ember::DType::Float64;
  else
    return false;
  spec.rank = tensor.getRank();
  for (int d = 0; d < spec.rank; ++d)
    spec.dims[d] = tensor.getDimSize(d);
  return true;
}

/// Decodes the request's attribute words into named attributes.
NamedAttrList decodeAttributes(MLIRContext &context, const KernelRequest &request) {
  Builder b(&context);
  NamedAttrList attrs;
  size_t word = 0;
  for (const AttrSchema &schema : request.attrSchema) {
    switch (schema.kind) {
    case AttrKind::Int64:
      attrs.append(schema.name, b.getI64IntegerAttr(request.attrWords[word++]));
      break;
    case AttrKind::Enum32:
      attrs.append(schema.name, b.getI32IntegerAttr(request.attrWords[word++]));
      break;
    case AttrKind::Unit:
      if (request.attrWords[word++])
        attrs.append(schema.name, b.getUnitAttr());
      break;
    case AttrKind::Int64Array: {
      int64_t count = request.attrWords[word++];
      attrs.append(schema.name,
                   b.getDenseI64ArrayAttr(request.attrWords.subspan(word, count)));
      word += count;
      break;
    }
    }
  }
  return attrs;
}

/// Builds the kernel module; null (with diagnostics emitted) if the op is
/// invalid for these operands.
OwningOpRef<ModuleOp> buildKernelModule(MLIRContext &context, const KernelRequest &request) {
  Location loc = FileLineColLoc::get(&context, request.loc.file, request.loc.line,
                                     request.loc.column);
  OpBuilder b(&context);
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  b.setInsertionPointToEnd(module->getBody());

  SmallVector<Type> inputTypes;
  for (const TensorSpec &spec : request.inputs)
    inputTypes.push_back(tensorType(context, spec));
  auto func = func::FuncOp::create(b, loc, kKernelName, b.getFunctionType(inputTypes, {}));
  func->setAttr("llvm.emit_c_interface", b.getUnitAttr());
  Block *body = func.addEntryBlock();
  b.setInsertionPointToStart(body);

  // Create the op generically with a placeholder result type, then ask the op
  // itself for the real one: its inference checks the operands and reports
  // errors in the op's own words.
  OperationState state(loc, request.opName);
  state.addOperands(body->getArguments());
  state.addAttributes(decodeAttributes(context, request));
  Type placeholder = b.getNoneType();
  state.addTypes(request.resultType ? Type(tensorType(context, *request.resultType))
                                    : placeholder);
  Operation *op = b.create(state);
  if (!request.resultType) {
    auto infer = dyn_cast<InferTypeOpInterface>(op);
    if (!infer) {
      emitError(loc) << "internal error: '" << request.opName
                     << "' needs an explicit result type";
      return nullptr;
    }
    SmallVector<Type> inferred;
    if (failed(infer.inferReturnTypes(&context, loc, op->getOperands(),
                                      op->getRawDictionaryAttrs(), op->getPropertiesStorage(),
                                      op->getRegions(), inferred)))
      return nullptr;
    op->getResult(0).setType(inferred.front());
  }
  func::ReturnOp::create(b, loc, op->getResults());
  func.setType(b.getFunctionType(inputTypes, op->getResultTypes()));
  if (failed(verify(*module)))
    return nullptr;
  return module;
}
} // namespace

namespace ember::jit {

bool compileKernel(const KernelRequest &request, CompiledKernel &out,
                               std::string &error) {
  auto start = std::chrono::steady_clock::now();
  MLIRContext &context = threadContext();
  DiagnosticCollector collector(context, error);
  OwningOpRef<ModuleOp> module = buildKernelModule(context, request);
  if (!module)
    return false;
  auto func = module->lookupSymbol<func::FuncOp>(kKernelName);
  if (!toSpec(func.getResultTypes().front(), out.result)) {
    error += "internal error: unsupported kernel result type";
    return false;
  }
  // Facts only the eager caller knows, added once the module is in the LLVM
  // dialect: an eager kernel's output is a fresh buffer and its inputs are
  // only read, so no pointer argument aliases a written one (LLVM vectorizes
  // without runtime overlap checks); and only the packed entry point is ever
  // called, so the function and its C wrapper become internal and always
  // inlined: LLVM optimizes one function, not three (callgrind, six
  // elementwise compiles: 832M instructions, 490M with internal linkage,
  // 442M adding always-inline).
  auto prepareKernel = [](ModuleOp lowered) {
    auto kernel = lowered.lookupSymbol<LLVM::LLVMFuncOp>(kKernelName);
    auto wrapper = lowered.lookupSymbol<LLVM::LLVMFuncOp>(("_mlir_ciface_" + kKernelName).str());
    if (!kernel || !wrapper)
      return;
    UnitAttr unit = UnitAttr::get(lowered.getContext());
    for (unsigned i = 0, e = kernel.getNumArguments(); i < e; ++i)
      if (isa<LLVM::LLVMPointerType>(kernel.getArgument(i).getType()))
        kernel.setArgAttr(i, LLVM::LLVMDialect::getNoAliasAttrName(), unit);
    for (LLVM::LLVMFuncOp inner : {kernel, wrapper}) {
      inner.setLinkage(LLVM::Linkage::Internal);
      inner.setAlwaysInline(true);
    }
  };
  std::unique_ptr<ExecutionEngine> engine = compileModule(*module, error, prepareKernel);
  if (!engine)
    return false;
  auto entry = engine->lookup(("ember_entry_" + kKernelName).str());
  if (!entry) {
    error += llvm::toString(entry.takeError());
    return false;
  }
  out.entry = reinterpret_cast<emberrt_entry_fn>(*entry);
  // EMBER_KERNEL_OBJECT_DIR=<dir>: write each kernel's machine code to
  // <dir>/<op>-<n>.o, to read with objdump (e.g. to see that it vectorized).
  if (const char *dir = std::getenv("EMBER_KERNEL_OBJECT_DIR")) {
    static std::atomic<int> counter{0};
    std::string name = (llvm::Twine(dir) + "/" + request.opName + "-" +
                        llvm::Twine(counter.fetch_add(1)) + ".o")
                           .str();
    engine->dumpToObjectFile(name);
  }
  out.owner = std::shared_ptr<ExecutionEngine>(std::move(engine));
  out.compileSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return true;
}

std::string kernelSource(const KernelRequest &request) {
  MLIRContext &context = threadContext();
  std::string text;
  DiagnosticCollector collector(context, text);
  OwningOpRef<ModuleOp> module = buildKernelModule(context, request);
  if (module) {
    llvm::raw_string_ostream os(text);
    module->print(os);
  }
  return text;
}

} // namespace ember::jit
