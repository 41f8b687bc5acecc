//===- LLVMModuleSteps.h - what compile() does to LLVM IR, by option -*- C++ -*-===//
#ifndef EMBER_LIB_COMPILER_LLVMMODULESTEPS_H
#define EMBER_LIB_COMPILER_LLVMMODULESTEPS_H

namespace llvm {
class Module;
} // namespace llvm

namespace ember::compiler {

/// Unrolling::CompileTimeFirst: loop metadata that keeps LLVM from unrolling
/// any loop but tiny innermost ones of constant trip count.
void limitLoopUnrolling(llvm::Module &module);

/// exposeInitializers: llvm.global_ctors and llvm.global_dtors become the
/// exported functions kModuleInit and kModuleFini.
void exposeInitializers(llvm::Module &module);

} // namespace ember::compiler

#endif // EMBER_LIB_COMPILER_LLVMMODULESTEPS_H
