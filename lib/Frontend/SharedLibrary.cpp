//===- SharedLibrary.cpp - libember.so -------------------------------------===//
//
// libember.so is the EmberFrontend archive linked whole (see CMakeLists.txt);
// CMake needs a source of the library's own, and this is it.
//
//===----------------------------------------------------------------------===//
