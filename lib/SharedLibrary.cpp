//===- SharedLibrary.cpp - libember.so -------------------------------------===//
//
// libember.so is the archives of the four public libraries (Frontend, Train,
// Data, IO) and Support linked whole (see CMakeLists.txt);
// CMake needs a source of the library's own, and this is it.
//
//===----------------------------------------------------------------------===//
