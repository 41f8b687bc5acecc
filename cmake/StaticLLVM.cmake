# EMBER_STATIC_LLVM=ON: link MLIR and LLVM from their static archives instead
# of libMLIR.so / libLLVM.so, so that a program runs where LLVM 22 is not
# installed (the GPU machine; scripts/gpu-bundle.sh). Debian's exported MLIR
# targets name the `LLVM` dylib in their link interfaces; here each such
# mention becomes LLVM's component archives, and ember's own `MLIR` links
# become the registration libraries (which pull in every dialect, pass and
# translation transitively). lld with --as-needed keeps only what is used,
# so libz3 (named by LLVMSupport for its unused SMT solver) is not needed.
set(MLIR_LINK_MLIR_DYLIB OFF)
set(LLVM_LINK_LLVM_DYLIB OFF)

set(EMBER_LLVM_STATIC_LIBS "")
foreach(lib ${LLVM_AVAILABLE_LIBS})
  # Tools' libraries with their own system dependencies (libpfm, libxml2).
  if(lib MATCHES "Exegesis|WindowsManifest|CFIVerify|Diff$|OptDriver|Fuzz")
    continue()
  endif()
  if(TARGET ${lib} AND lib MATCHES "^LLVM")
    get_target_property(type ${lib} TYPE)
    # Skip archives whose own dependencies are not found here (libcurl,
    # libedit, Polly); ember uses none of them.
    get_target_property(deps ${lib} INTERFACE_LINK_LIBRARIES)
    set(usable ON)
    foreach(dep ${deps})
      if((dep MATCHES "::" AND NOT TARGET ${dep}) OR dep STREQUAL "Polly")
        set(usable OFF)
      endif()
    endforeach()
    if(type STREQUAL "STATIC_LIBRARY" AND usable)
      list(APPEND EMBER_LLVM_STATIC_LIBS ${lib})
    endif()
  endif()
endforeach()

get_directory_property(_ember_imported IMPORTED_TARGETS)
foreach(target ${_ember_imported})
  get_target_property(libs ${target} INTERFACE_LINK_LIBRARIES)
  if(libs AND ("LLVM" IN_LIST libs OR "$<LINK_ONLY:LLVM>" IN_LIST libs))
    list(REMOVE_ITEM libs LLVM "$<LINK_ONLY:LLVM>")
    list(APPEND libs ${EMBER_LLVM_STATIC_LIBS})
    set_target_properties(${target} PROPERTIES INTERFACE_LINK_LIBRARIES "${libs}")
  endif()
endforeach()

set(EMBER_MLIR_LIBS MLIRRegisterAllDialects MLIRRegisterAllPasses MLIRRegisterAllExtensions
    MLIRToLLVMIRTranslationRegistration MLIRExecutionEngineUtils MLIRTargetLLVMIRExport
    ${EMBER_LLVM_STATIC_LIBS})
add_link_options(-Wl,--as-needed -Wl,--gc-sections)
# Polly's archive is not installed; nothing ember links needs it.
set_target_properties(LLVMExtensions PROPERTIES INTERFACE_LINK_LIBRARIES LLVMSupport)
