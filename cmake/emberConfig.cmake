# find_package(ember): ember's runtime for programs that call code compiled
# ahead of time (ember::runtime, static; libemberrt.so beside it), the
# compiler that makes that code (EMBER_COMPILE), and the C++ API with its JIT
# (ember::ember, libember.so, which needs LLVM/MLIR 22's shared libraries).
include(CMakeFindDependencyMacro)
find_dependency(Threads)
include("${CMAKE_CURRENT_LIST_DIR}/emberTargets.cmake")
get_filename_component(_ember_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
set(EMBER_COMPILE "${_ember_prefix}/bin/ember-compile")
set(ember_FOUND TRUE)
