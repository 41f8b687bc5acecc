//===- FunctionBuilder.cpp - trace an ember function ----------------------===//
//
// Each op is created generically (name, operands, attributes) with a
// placeholder result type, and the op itself then infers the real one: its
// inference checks the operands and reports errors in the op's own words, at
// the user's source line. The finished function is compiled by the JIT
// (lib/JIT/FunctionCompiler.cpp).
//
//===----------------------------------------------------------------------===//

#include "ember/Trace/FunctionBuilder.h"

#include "ember/Dialect/Ember/IR/EmberOps.h"
#include "ember/Init/InitAll.h"
#include "ember/Trace/FinishedFunction.h"
#include "ember/Trace/TensorTypes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>

using namespace mlir;
using namespace ::ember::trace;

const DialectRegistry & ::ember::trace::dialectRegistry() {
  static const DialectRegistry *registry = [] {
    auto *r = new DialectRegistry();
    ::ember::registerAllDialects(*r);
    return r;
  }();
  return *registry;
}

namespace {
/// Each compiling thread owns a context: contexts are not shared across
/// threads, and compiles on different threads never wait for each other.
MLIRContext &threadContext() {
  thread_local MLIRContext context(dialectRegistry(), MLIRContext::Threading::DISABLED);
  thread_local bool loaded = [] {
    context.loadDialect<mlir::ember::EmberDialect, func::FuncDialect, scf::SCFDialect,
                        tensor::TensorDialect, arith::ArithDialect>();
    return true;
  }();
  (void)loaded;
  return context;
}

/// Decodes the request's attribute words into named attributes.
NamedAttrList decodeAttributes(MLIRContext &context, const OpCall &request) {
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
    case AttrKind::String: {
      int64_t size = request.attrWords[word++];
      std::string text(static_cast<size_t>(size), '\0');
      std::memcpy(text.data(), request.attrWords.data() + word, static_cast<size_t>(size));
      word += (size + 7) / 8;
      attrs.append(schema.name, b.getStringAttr(text));
      break;
    }
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

} // namespace

struct FunctionBuilder::Impl {
  MLIRContext &context = threadContext();
  std::string name;
  OwningOpRef<ModuleOp> module;
  func::FuncOp func;
  Block *body = nullptr;
  SmallVector<Value> values;
  int64_t givenForwardValues = 0; ///< ops marked ember.forward_value so far
  int gradientCalls = 0;           ///< value_and_grad calls traced so far
  SmallVector<Block *> valueBlocks; ///< the block defining each value
  SmallVector<Block *> scopes;      ///< open blocks, innermost last
  /// Regions being built or ended, and what each ended one yields.
  std::vector<std::unique_ptr<Region>> regions;
  std::vector<SmallVector<int>> regionYields;

  /// Regions a failed trace left (no op took them) use values of enclosing
  /// ones; the vector frees outer ones first, and an inner one's ~Region then
  /// unlinks its uses from freed values. Unlink every use before any frees.
  ~Impl() {
    if (llvm::any_of(regions, [](const auto &region) { return !region->empty(); })) {
      for (auto &region : regions)
        region->dropAllReferences();
      module->getOperation()->dropAllReferences();
    }
  }

  Block *current() { return scopes.back(); }

  /// Frees regions `handles` (none taken by an op), unlinking all their uses
  /// first; closes those open; retires their values (valueBlocks null).
  void dropRegions(ArrayRef<int> handles) {
    llvm::SmallPtrSet<Block *, 16> dead;
    for (int handle : handles)
      regions[handle]->walk([&](Block *block) { dead.insert(block); });
    llvm::erase_if(scopes, [&](Block *block) { return dead.contains(block); });
    for (int handle : handles)
      regions[handle]->dropAllReferences();
    for (int handle : handles)
      regions[handle]->getBlocks().clear();
    for (Block *&block : valueBlocks)
      if (dead.contains(block))
        block = nullptr;
  }

  /// A builder at the end of `block`. (OpBuilder::atBlockEnd asks the block's
  /// region for the context, which a region under construction cannot give.)
  OpBuilder builderAtEnd(Block *block) {
    OpBuilder b(&context);
    b.setInsertionPointToEnd(block);
    return b;
  }

  int addValue(Value value, Block *block) {
    values.push_back(value);
    valueBlocks.push_back(block);
    return static_cast<int>(values.size()) - 1;
  }

  /// Whether value `id` may be used in the current block.
  bool inScope(int id) {
    return id >= 0 && id < static_cast<int>(values.size()) &&
           llvm::is_contained(scopes, valueBlocks[id]);
  }

  /// Takes ended region `handle` into `target`, ending it with the
  /// terminator `makeTerminator` builds from its yielded values.
  void attach(int handle, Region &target,
              llvm::function_ref<void(OpBuilder &, ValueRange)> makeTerminator) {
    Region &region = *regions[handle];
    SmallVector<Value> yields;
    for (int id : regionYields[handle])
      yields.push_back(values[id]);
    OpBuilder b = builderAtEnd(&region.front());
    makeTerminator(b, yields);
    target.takeBody(region);
  }

  SmallVector<Value> valuesOf(std::span<const int> ids) {
    SmallVector<Value> result;
    for (int id : ids)
      result.push_back(values[id]);
    return result;
  }

  SmallVector<Type> yieldTypes(int handle) {
    SmallVector<Type> types;
    for (int id : regionYields[handle])
      types.push_back(values[id].getType());
    return types;
  }

  /// Completes the function so that it returns `results`.
  bool finish(std::span<const int> results) {
    OpBuilder b(&context);
    if (Operation *terminator = body->empty() ? nullptr : &body->back();
        terminator && isa<func::ReturnOp>(terminator))
      terminator->erase();
    b.setInsertionPointToEnd(body);
    SmallVector<Value> returned;
    for (int id : results) {
      if (id < 0 || id >= static_cast<int>(values.size()) || !valueBlocks[id])
        return false;
      returned.push_back(values[id]);
    }
    func::ReturnOp::create(b, func.getLoc(), returned);
    func.setType(b.getFunctionType(body->getArgumentTypes(), ValueRange(returned).getTypes()));
    return true;
  }
};

FunctionBuilder::FunctionBuilder(std::string_view name) : impl_(std::make_unique<Impl>()) {
  Impl &impl = *impl_;
  impl.name = std::string(name);
  Location loc = NameLoc::get(StringAttr::get(&impl.context, impl.name));
  impl.module = ModuleOp::create(loc);
  OpBuilder b(&impl.context);
  b.setInsertionPointToEnd(impl.module->getBody());
  impl.func = func::FuncOp::create(b, loc, impl.name, b.getFunctionType({}, {}));
  impl.func->setAttr("llvm.emit_c_interface", b.getUnitAttr());
  impl.body = impl.func.addEntryBlock();
  impl.scopes.push_back(impl.body);
}

FunctionBuilder::~FunctionBuilder() = default;

int FunctionBuilder::addArgument(const TensorSpec &spec) {
  Impl &impl = *impl_;
  return impl.addValue(impl.body->addArgument(tensorType(impl.context, spec), impl.func.getLoc()),
                       impl.body);
}

int FunctionBuilder::addDim(int id, int dim) {
  Impl &impl = *impl_;
  OpBuilder b = impl.builderAtEnd(impl.current());
  Location loc = impl.func.getLoc();
  Value size = tensor::DimOp::create(b, loc, impl.values[id],
                                     arith::ConstantIndexOp::create(b, loc, dim).getResult());
  return impl.addValue(size, impl.current());
}

int FunctionBuilder::addConstant(const TensorSpec &spec, const void *data) {
  Impl &impl = *impl_;
  RankedTensorType type = tensorType(impl.context, spec);
  size_t count = static_cast<size_t>(spec.numElements());
  DenseElementsAttr value;
  if (spec.dtype == ::ember::DType::Bool) {
    SmallVector<bool> bits(static_cast<const bool *>(data), static_cast<const bool *>(data) + count);
    value = DenseElementsAttr::get(type, ArrayRef<bool>(bits));
  } else {
    value = DenseElementsAttr::getFromRawBuffer(
        type, ArrayRef<char>(static_cast<const char *>(data), count * ::ember::dtypeSize(spec.dtype)));
  }
  // Constants go to the top of the function, so that they are usable in
  // every region.
  OpBuilder b = OpBuilder::atBlockBegin(impl.body);
  return impl.addValue(mlir::ember::ConstantOp::create(b, impl.func.getLoc(), value), impl.body);
}

void FunctionBuilder::nameWeight(int id, std::string_view name) {
  Impl &impl = *impl_;
  if (id < 0 || id >= static_cast<int>(impl.values.size()))
    return;
  auto constant = impl.values[id].getDefiningOp<mlir::ember::ConstantOp>();
  if (!constant)
    return;
  constant->setAttr("ember.weight", StringAttr::get(&impl.context, llvm::StringRef(name)));
  // Large weights as dense_resource blobs named after the variable (MLIR's
  // form for large constants: raw bytes in the file's dialect_resources
  // section, not uniqued in the context); small ones stay readable.
  auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
  if (!dense || dense.isSplat() || dense.getNumElements() < kResourceWeightMinElements ||
      dense.getElementType().isInteger(1))
    return;
  ArrayRef<char> bytes = dense.getRawData();
  size_t alignment = dense.getElementType().getIntOrFloatBitWidth() / 8;
  auto resource = DenseResourceElementsAttr::get(
      dense.getType(), llvm::StringRef(name),
      HeapAsmResourceBlob::allocateAndCopyWithAlign(bytes, alignment));
  constant.setValueAttr(cast<ElementsAttr>(resource));
}

int FunctionBuilder::addOp(const OpCall &call, std::span<const int> operands, TensorSpec &result,
                           std::string &error) {
  Impl &impl = *impl_;
  MLIRContext &context = impl.context;
  DiagnosticCollector collector(context, error);
  Location loc = FileLineColLoc::get(&context, call.loc.file, call.loc.line, call.loc.column);
  for (int id : operands)
    if (!impl.inScope(id)) {
      emitError(loc) << "'" << call.opName
                     << "' op uses a tensor computed inside a branch or loop body that has "
                        "ended; return it from the cond/while_loop/fori_loop instead";
      return -1;
    }
  OpBuilder b = impl.builderAtEnd(impl.current());
  OperationState state(loc, call.opName);
  for (int id : operands)
    state.addOperands(impl.values[id]);
  state.addAttributes(decodeAttributes(context, call));
  if (!call.noResults)
    state.addTypes(call.resultType ? Type(tensorType(context, *call.resultType))
                                   : Type(b.getNoneType()));
  Operation *op = b.create(state);
  auto fail = [&] {
    op->erase();
    return -1;
  };
  if (call.noResults)
    return failed(op->getName().verifyInvariants(op)) ? fail() : 0;
  if (!call.resultType) {
    auto infer = dyn_cast<InferTypeOpInterface>(op);
    if (!infer) {
      emitError(loc) << "internal error: '" << call.opName << "' needs an explicit result type";
      return fail();
    }
    SmallVector<Type> inferred;
    if (failed(infer.inferReturnTypes(&context, loc, op->getOperands(),
                                      op->getRawDictionaryAttrs(), op->getPropertiesStorage(),
                                      op->getRegions(), inferred)))
      return fail();
    op->getResult(0).setType(inferred.front());
  }
  // The op's own checks (ODS constraints, traits, verifier). mlir::verify
  // would also walk the op's ancestors, which a branch under construction
  // does not have yet; the whole function is verified before compiling.
  if (failed(op->getName().verifyInvariants(op)) || !toSpec(op->getResult(0).getType(), result))
    return fail();
  return impl.addValue(op->getResult(0), impl.current());
}

std::vector<int> FunctionBuilder::beginRegion(std::span<const TensorSpec> argumentTypes) {
  Impl &impl = *impl_;
  auto region = std::make_unique<Region>();
  Block *block = new Block();
  region->push_back(block);
  std::vector<int> ids;
  for (const TensorSpec &spec : argumentTypes)
    ids.push_back(impl.addValue(
        block->addArgument(tensorType(impl.context, spec), impl.func.getLoc()), block));
  impl.regions.push_back(std::move(region));
  impl.regionYields.emplace_back();
  impl.scopes.push_back(block);
  return ids;
}

int FunctionBuilder::endRegion(std::span<const int> yields) {
  Impl &impl = *impl_;
  // The innermost open region is the last one whose block is still in scope.
  int handle = static_cast<int>(impl.regions.size()) - 1;
  while (handle >= 0 && (impl.regions[handle]->empty() || // taken or dropped
                         &impl.regions[handle]->front() != impl.current()))
    --handle;
  impl.regionYields[handle].assign(yields.begin(), yields.end());
  impl.scopes.pop_back();
  return handle;
}

void FunctionBuilder::appendYields(int handle, std::span<const int> yields) {
  impl_->regionYields[handle].append(yields.begin(), yields.end());
}

void FunctionBuilder::discardRegion(int handle) { impl_->dropRegions({handle}); }

int FunctionBuilder::regionCount() const { return static_cast<int>(impl_->regions.size()); }

void FunctionBuilder::abandonRegions(int mark) {
  SmallVector<int> pending;
  for (int handle = mark; handle < regionCount(); ++handle)
    if (!impl_->regions[handle]->empty())
      pending.push_back(handle);
  impl_->dropRegions(pending);
}

/// "file:line:col: error: 'op' ", the start of a control-flow diagnostic.
static std::string diagnosticPrefix(const SourceLocation &where, llvm::StringRef op) {
  return llvm::formatv("{0}:{1}:{2}: error: '{3}' ", where.file, where.line, where.column, op)
      .str();
}

/// Empty if region `handle` yields values of the `expected` types; else a
/// message naming `what` and both type lists.
static std::string yieldMismatch(FunctionBuilder::Impl &impl, int handle, TypeRange expected,
                                 llvm::StringRef what) {
  SmallVector<Type> actual = impl.yieldTypes(handle);
  if (llvm::equal(actual, expected))
    return "";
  std::string message;
  llvm::raw_string_ostream os(message);
  os << what << " yields (";
  llvm::interleaveComma(actual, os);
  os << ") where (";
  llvm::interleaveComma(expected, os);
  os << ") is expected";
  return message;
}

static bool isScalarBool(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.getRank() == 0 && tensor.getElementType().isInteger(1);
}

static void collectResults(FunctionBuilder::Impl &impl, Operation *op, std::vector<int> &results,
                           std::vector<TensorSpec> &resultTypes) {
  for (Value result : op->getResults()) {
    results.push_back(impl.addValue(result, impl.current()));
    resultTypes.emplace_back();
    toSpec(result.getType(), resultTypes.back());
  }
}

static Location locationOf(MLIRContext &context, const SourceLocation &loc) {
  return FileLineColLoc::get(&context, loc.file, loc.line, loc.column);
}

bool FunctionBuilder::addIf(int condition, int thenRegion, int elseRegion,
                            const SourceLocation &where, std::vector<int> &results,
                            std::vector<TensorSpec> &resultTypes, std::string &error) {
  Impl &impl = *impl_;
  Location loc = locationOf(impl.context, where);
  SmallVector<Type> types = impl.yieldTypes(thenRegion);
  std::string prefix = diagnosticPrefix(where, "ember.cond");
  if (!isScalarBool(impl.values[condition].getType())) {
    error += prefix + "needs a 0-d bool condition";
    return false;
  }
  if (std::string mismatch = yieldMismatch(impl, elseRegion, types, "the else branch");
      !mismatch.empty()) {
    error += prefix + mismatch;
    return false;
  }
  OpBuilder b = impl.builderAtEnd(impl.current());
  Value predicate = tensor::ExtractOp::create(b, loc, impl.values[condition], ValueRange{});
  auto ifOp = scf::IfOp::create(b, loc, types, predicate, /*withElseRegion=*/true);
  auto yield = [&](OpBuilder &yb, ValueRange values) { scf::YieldOp::create(yb, loc, values); };
  ifOp.getThenRegion().getBlocks().clear();
  ifOp.getElseRegion().getBlocks().clear();
  impl.attach(thenRegion, ifOp.getThenRegion(), yield);
  impl.attach(elseRegion, ifOp.getElseRegion(), yield);
  collectResults(impl, ifOp, results, resultTypes);
  return true;
}

bool FunctionBuilder::addWhile(std::span<const int> init, int before, int after,
                               const SourceLocation &where, std::vector<int> &results,
                               std::vector<TensorSpec> &resultTypes, std::string &error) {
  Impl &impl = *impl_;
  Location loc = locationOf(impl.context, where);
  SmallVector<Value> inits = impl.valuesOf(init);
  TypeRange types = ValueRange(inits).getTypes();
  std::string prefix = diagnosticPrefix(where, "ember.while_loop");
  SmallVector<Type> conditionTypes = impl.yieldTypes(before);
  if (conditionTypes.size() != 1 || !isScalarBool(conditionTypes[0])) {
    error += prefix + "condition must return one 0-d bool tensor";
    return false;
  }
  if (std::string mismatch = yieldMismatch(impl, after, types, "the body"); !mismatch.empty()) {
    error += prefix + mismatch;
    return false;
  }
  OpBuilder b = impl.builderAtEnd(impl.current());
  auto whileOp = scf::WhileOp::create(b, loc, types, inits);
  Block &beforeBlock = impl.regions[before]->front();
  impl.attach(before, whileOp.getBefore(), [&](OpBuilder &yb, ValueRange values) {
    // Continue with the loop variables unchanged: the body computes the next.
    Value predicate = tensor::ExtractOp::create(yb, loc, values[0], ValueRange{});
    scf::ConditionOp::create(yb, loc, predicate, beforeBlock.getArguments());
  });
  impl.attach(after, whileOp.getAfter(),
              [&](OpBuilder &yb, ValueRange values) { scf::YieldOp::create(yb, loc, values); });
  collectResults(impl, whileOp, results, resultTypes);
  return true;
}

bool FunctionBuilder::addFor(int64_t lower, int64_t upper, std::span<const int> init, int body,
                             const SourceLocation &where, std::vector<int> &results,
                             std::vector<TensorSpec> &resultTypes, std::string &error) {
  Impl &impl = *impl_;
  Location loc = locationOf(impl.context, where);
  SmallVector<Value> inits = impl.valuesOf(init);
  TypeRange types = ValueRange(inits).getTypes();
  if (std::string mismatch = yieldMismatch(impl, body, types, "the body"); !mismatch.empty()) {
    error += diagnosticPrefix(where, "ember.fori_loop") + mismatch;
    return false;
  }
  OpBuilder b = impl.builderAtEnd(impl.current());
  Value lowerValue = arith::ConstantIndexOp::create(b, loc, lower);
  Value upperValue = arith::ConstantIndexOp::create(b, loc, upper);
  Value step = arith::ConstantIndexOp::create(b, loc, 1);
  auto forOp = scf::ForOp::create(b, loc, lowerValue, upperValue, step, inits);
  forOp.getRegion().getBlocks().clear();
  impl.attach(body, forOp.getRegion(),
              [&](OpBuilder &yb, ValueRange values) { scf::YieldOp::create(yb, loc, values); });
  // The body's first argument was built as a 0-d int64 tensor; scf.for
  // passes an index: convert at the top of the body.
  Block &block = forOp.getRegion().front();
  BlockArgument iv = block.getArgument(0);
  OpBuilder ib = OpBuilder::atBlockBegin(&block);
  iv.setType(ib.getIndexType());
  Value asI64 = arith::IndexCastOp::create(ib, loc, ib.getI64Type(), iv);
  Value asTensor = tensor::FromElementsOp::create(
      ib, loc, RankedTensorType::get({}, ib.getI64Type()), ValueRange{asI64});
  iv.replaceAllUsesExcept(asTensor, asI64.getDefiningOp());
  collectResults(impl, forOp, results, resultTypes);
  return true;
}

std::string FunctionBuilder::text(std::span<const int> results) {
  std::string out;
  if (!impl_->finish(results))
    return "<invalid result ids>";
  llvm::raw_string_ostream os(out);
  // With locations: every op names the user's source line that made it.
  impl_->module->print(os, OpPrintingFlags().enableDebugInfo());
  return out;
}

MLIRContext & ::ember::trace::contextOf(FunctionBuilder &builder) { return builder.impl().context; }

bool ::ember::trace::finish(FunctionBuilder &builder, std::span<const int> results,
                            FinishedFunction &out) {
  FunctionBuilder::Impl &impl = builder.impl();
  if (!impl.finish(results))
    return false;
  out = {*impl.module, impl.func, impl.name};
  return true;
}

/// A new, empty function `<name>_grad<n>` at the end of the module, to be
/// differentiated. Public until ember-autodiff has differentiated it (the
/// inliner would delete a private function nothing calls yet).
static func::FuncOp newDifferentiatedFunction(FunctionBuilder::Impl &impl, Location loc) {
  OpBuilder mb(&impl.context);
  mb.setInsertionPointToEnd(impl.module->getBody());
  std::string name = impl.name + "_grad" + std::to_string(impl.gradientCalls++);
  return func::FuncOp::create(mb, loc, name, mb.getFunctionType({}, {}));
}

/// Makes `differentiated` (whose body is complete, returning what is to be
/// differentiated) a function marked ember.differentiate = `wrt`, called in
/// the current block through its derivative `<name>_vjp` on `arguments`
/// with cotangents of ones. Values it reads from the function being built
/// become extra arguments, not differentiated.
static void callDerivative(FunctionBuilder::Impl &impl, func::FuncOp differentiated,
                           SmallVector<Value> arguments, std::span<const int64_t> wrt,
                           Location loc, std::vector<int> &results,
                           std::vector<TensorSpec> &resultTypes) {
  OpBuilder mb(&impl.context);
  mb.setInsertionPointToEnd(impl.module->getBody());
  StringRef name = differentiated.getSymName();
  Block &entry = differentiated.getBody().front();
  // What the function reads from this one (captured tensors, variables)
  // becomes extra arguments, not differentiated.
  llvm::SetVector<Value> captured;
  Region &own = differentiated.getBody();
  differentiated.walk([&](Operation *op) {
    for (Value operand : op->getOperands())
      if (!own.isAncestor(operand.getParentRegion()))
        captured.insert(operand);
  });
  for (Value value : captured) {
    BlockArgument argument = entry.addArgument(value.getType(), loc);
    value.replaceUsesWithIf(argument, [&](OpOperand &use) {
      return differentiated->isProperAncestor(use.getOwner());
    });
  }
  auto returned = cast<func::ReturnOp>(entry.getTerminator());
  SmallVector<Type> returnTypes(returned.getOperandTypes());
  differentiated.setType(mb.getFunctionType(entry.getArgumentTypes(), returnTypes));
  differentiated->setAttr("ember.differentiate", DenseI64ArrayAttr::get(&impl.context, wrt));

  SmallVector<Type> vjpInputs(entry.getArgumentTypes()), vjpResults(returnTypes);
  vjpInputs.append(returnTypes.begin(), returnTypes.end());
  for (int64_t index : wrt)
    vjpResults.push_back(entry.getArgument(index).getType());
  auto vjp = func::FuncOp::create(mb, loc, (name + "_vjp").str(),
                                  mb.getFunctionType(vjpInputs, vjpResults));
  vjp.setPrivate();

  OpBuilder b = impl.builderAtEnd(impl.current());
  arguments.append(captured.begin(), captured.end());
  for (Type type : returnTypes) { // d(sum of each result) / d(arguments)
    auto tensor = cast<RankedTensorType>(type);
    Type element = tensor.getElementType();
    TypedAttr seed = isa<FloatType>(element) ? TypedAttr(b.getFloatAttr(element, 1))
                                            : TypedAttr(b.getIntegerAttr(element, 0));
    arguments.push_back(mlir::ember::ConstantOp::create(b, loc, DenseElementsAttr::get(tensor, seed)));
  }
  auto call = func::CallOp::create(b, loc, vjp, arguments);
  collectResults(impl, call, results, resultTypes);
}

bool FunctionBuilder::addGradientCall(int function, std::span<const int> operands,
                                      std::span<const int64_t> wrt, const SourceLocation &where,
                                      std::vector<int> &results,
                                      std::vector<TensorSpec> &resultTypes, std::string &error) {
  Impl &impl = *impl_;
  DiagnosticCollector collector(impl.context, error);
  for (int64_t index : wrt)
    if (index < 0 || index >= static_cast<int64_t>(operands.size())) {
      error += "internal error: differentiating with respect to a missing argument";
      return false;
    }
  Location loc = locationOf(impl.context, where);
  func::FuncOp differentiated = newDifferentiatedFunction(impl, loc);
  impl.attach(function, differentiated.getBody(),
              [&](OpBuilder &rb, ValueRange values) { func::ReturnOp::create(rb, loc, values); });
  callDerivative(impl, differentiated, impl.valuesOf(operands), wrt, loc, results, resultTypes);
  return true;
}

int FunctionBuilder::valueCount() const { return static_cast<int>(impl_->values.size()); }

bool FunctionBuilder::addTapeGradient(int target, std::span<const int> sources,
                                      std::span<const int64_t> wrt, int begin, int end,
                                      const SourceLocation &where, std::vector<int> &results,
                                      std::vector<TensorSpec> &resultTypes, std::string &error,
                                      std::vector<bool> *connected) {
  Impl &impl = *impl_;
  DiagnosticCollector collector(impl.context, error);
  Location loc = locationOf(impl.context, where);
  std::string prefix = diagnosticPrefix(where, "ember.gradient");
  auto inScope = [&](int id) {
    if (impl.inScope(id))
      return true;
    error += prefix + "uses a tensor computed inside a branch or loop body that has ended; "
                      "take the gradient inside it, or return the tensor from the "
                      "cond/while_loop/fori_loop";
    return false;
  };
  if (!inScope(target) || !llvm::all_of(sources, inScope))
    return false;
  for (int64_t index : wrt)
    if (index < 0 || index >= static_cast<int64_t>(sources.size())) {
      error += "internal error: differentiating with respect to a missing source";
      return false;
    }

  // The position at which each op's results were added: the tape recorded
  // the ops added in [begin, end). Ops without values of their own (the
  // bounds of a loop, the read of a branch's predicate) go with their user.
  llvm::DenseMap<Operation *, int> position;
  for (int id = 0; id < static_cast<int>(impl.values.size()); ++id)
    if (Operation *op = impl.valueBlocks[id] ? impl.values[id].getDefiningOp() : nullptr)
      position.try_emplace(op, id);
  auto recorded = [&](Operation *op) {
    auto it = position.find(op);
    return it == position.end() || (it->second >= begin && it->second < end);
  };

  // The backward slice of the target through recorded ops, stopping at the
  // sources (each use of a source reads the argument given for it) and at
  // values the tape did not record (constants to the derivative).
  llvm::DenseSet<Value> isSource;
  for (int id : sources)
    isSource.insert(impl.values[id]);
  llvm::SetVector<Operation *> slice;
  llvm::DenseSet<Value> reached; // the sources the target depends on
  SmallVector<Value> worklist{impl.values[target]};
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    Operation *op = value.getDefiningOp();
    if (isSource.contains(value))
      reached.insert(value);
    if (isSource.contains(value) || !op || slice.contains(op) || !recorded(op))
      continue;
    slice.insert(op);
    worklist.append(op->operand_begin(), op->operand_end());
    // ... and what its regions read from outside it.
    op->walk([&](Operation *inner) {
      if (inner == op)
        return;
      for (Value operand : inner->getOperands()) {
        Operation *owner = operand.getParentRegion()->getParentOp();
        if (!owner || !op->isAncestor(owner))
          worklist.push_back(operand);
      }
    });
  }
  // In the order they run: each is in a block of the scope chain (outer
  // blocks first), ordered within its block.
  auto depth = [&](Operation *op) {
    return static_cast<int>(llvm::find(impl.scopes, op->getBlock()) - impl.scopes.begin());
  };
  SmallVector<Operation *> ordered(slice.begin(), slice.end());
  for (Operation *op : ordered)
    if (depth(op) == static_cast<int>(impl.scopes.size())) {
      error += "internal error: a recorded op outside the open blocks";
      return false;
    }
  // A total order (one block per depth; distinct ops), so the sort need not
  // be stable (std::stable_sort's temporary buffer is deprecated in C++20).
  llvm::sort(ordered, [&](Operation *a, Operation *b) {
    if (a->getBlock() != b->getBlock())
      return depth(a) < depth(b);
    return a->isBeforeInBlock(b);
  });

  // A function of the sources computing the target from them.
  func::FuncOp differentiated = newDifferentiatedFunction(impl, loc);
  Block *entry = differentiated.addEntryBlock();
  IRMapping mapping;
  SmallVector<Value> arguments;
  for (int id : sources) {
    Value source = impl.values[id];
    mapping.map(source, entry->addArgument(source.getType(), loc));
    arguments.push_back(source);
  }
  OpBuilder b = impl.builderAtEnd(entry);
  for (Operation *op : ordered)
    b.clone(*op, mapping);
  func::ReturnOp::create(b, loc, ValueRange{mapping.lookupOrDefault(impl.values[target])});
  callDerivative(impl, differentiated, arguments, wrt, loc, results, resultTypes);
  if (connected) {
    connected->clear();
    for (int id : sources)
      connected->push_back(reached.contains(impl.values[id]));
  }
  return true;
}

int FunctionBuilder::giveForwardValue(int value) {
  Impl &impl = *impl_;
  if (value < 0 || value >= static_cast<int>(impl.values.size()))
    return -1;
  Operation *op = impl.values[value].getDefiningOp();
  if (!op || op->getNumResults() != 1 || op->hasAttr("ember.forward_value") ||
      op->getParentOp() != impl.func.getOperation())
    return -1;
  op->setAttr("ember.forward_value",
              IntegerAttr::get(IntegerType::get(&impl.context, 64), impl.givenForwardValues));
  // Listed on the function too: clean-ups before ember-autodiff may fold the
  // op away, and the derivative must still take every value it is given.
  SmallVector<Attribute> types;
  if (auto listed = impl.func->getAttrOfType<ArrayAttr>("ember.forward_value_types"))
    types.assign(listed.begin(), listed.end());
  types.push_back(TypeAttr::get(op->getResult(0).getType()));
  impl.func->setAttr("ember.forward_value_types", ArrayAttr::get(&impl.context, types));
  return impl.givenForwardValues++;
}

int FunctionBuilder::addCustomGradient(int value, std::span<const int> inputs, int backward,
                                       const SourceLocation &where, std::string &error) {
  Impl &impl = *impl_;
  DiagnosticCollector collector(impl.context, error);
  Location loc = locationOf(impl.context, where);
  OpBuilder b = impl.builderAtEnd(impl.current());
  OperationState state(loc, "ember.custom_gradient");
  state.addOperands(impl.values[value]);
  state.addOperands(impl.valuesOf(inputs));
  state.addTypes(impl.values[value].getType());
  state.addRegion();
  Operation *op = b.create(state);
  impl.attach(backward, op->getRegion(0), [&](OpBuilder &yb, ValueRange values) {
    OperationState yield(loc, "ember.yield");
    yield.addOperands(values);
    yb.create(yield);
  });
  if (failed(op->getName().verifyInvariants(op))) {
    op->erase();
    return -1;
  }
  return impl.addValue(op->getResult(0), impl.current());
}
