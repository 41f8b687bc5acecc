//===- ExposeInitializers.cpp - constructors as exported functions --------===//
//
// CompileOptions::exposeInitializers, for loaders that run no constructors
// (the JIT's ORC linking).
//
//===----------------------------------------------------------------------===//

#include "LLVMModuleSteps.h"

#include "ember/Compiler/Compiler.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"

#include <algorithm>
#include <utility>
#include <vector>

using namespace ember::compiler;

/// Replaces `llvm.global_ctors` / `llvm.global_dtors` (a GPU module's kernel
/// loads and unloads) by two exported functions that call them in order,
/// kModuleInit and kModuleFini: ORC runs no constructors of an object file
/// added to it, and the executable calls these at the right moments instead.
void ember::compiler::exposeInitializers(llvm::Module &module) {
  auto expose = [&](llvm::StringRef global, llvm::StringRef name, bool reverse) {
    llvm::GlobalVariable *list = module.getGlobalVariable(global);
    if (!list)
      return;
    std::vector<std::pair<uint64_t, llvm::Function *>> entries;
    if (auto *array = llvm::dyn_cast_or_null<llvm::ConstantArray>(list->getInitializer()))
      for (llvm::Value *element : array->operands()) {
        auto *entry = llvm::cast<llvm::ConstantStruct>(element);
        auto *priority = llvm::cast<llvm::ConstantInt>(entry->getOperand(0));
        if (auto *function = llvm::dyn_cast<llvm::Function>(entry->getOperand(1))) {
          // In order of priority; equal priorities in the list's order.
          std::pair<uint64_t, llvm::Function *> item(priority->getZExtValue(), function);
          entries.insert(std::upper_bound(entries.begin(), entries.end(), item,
                                          [](auto &a, auto &b) { return a.first < b.first; }),
                         item);
        }
      }
    if (reverse)
      std::reverse(entries.begin(), entries.end());
    list->eraseFromParent();
    llvm::LLVMContext &context = module.getContext();
    auto *type = llvm::FunctionType::get(llvm::Type::getVoidTy(context), false);
    auto *function = llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage, name, module);
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(context, "entry", function));
    for (auto &[priority, callee] : entries)
      b.CreateCall(callee);
    b.CreateRetVoid();
  };
  expose("llvm.global_ctors", kModuleInit, /*reverse=*/false);
  expose("llvm.global_dtors", kModuleFini, /*reverse=*/true);
}
