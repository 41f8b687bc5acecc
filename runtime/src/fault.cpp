//===- fault.cpp - faults reported by compiled code -----------------------===//
//
// One pending fault per thread: compiled code reports, its caller takes.
//
//===----------------------------------------------------------------------===//

#include "emberrt/runtime.h"

#include <string>

namespace {
thread_local emberrt_fault_t pending = {EMBERRT_FAULT_NONE, 0};
thread_local std::string pendingMessage, takenMessage;
} // namespace

extern "C" void emberrt_report_fault(int32_t kind, int32_t site) {
  if (pending.kind == EMBERRT_FAULT_NONE && kind != EMBERRT_FAULT_NONE)
    pending = {kind, site};
}

extern "C" void emberrt_report_fault_message(int32_t kind, int32_t site, const char *message) {
  if (pending.kind == EMBERRT_FAULT_NONE && kind != EMBERRT_FAULT_NONE) {
    pending = {kind, site};
    pendingMessage = message ? message : "";
  }
}

extern "C" emberrt_fault_t emberrt_take_fault(void) {
  emberrt_fault_t fault = pending;
  pending = {EMBERRT_FAULT_NONE, 0};
  takenMessage.swap(pendingMessage);
  pendingMessage.clear();
  return fault;
}

extern "C" const char *emberrt_fault_message(void) { return takenMessage.c_str(); }
