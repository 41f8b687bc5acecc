//===- amx.cpp - permission to use AMX tiles ------------------------------===//
//
// Linux hands a process the AMX tile registers only after it asks
// (arch_prctl ARCH_REQ_XCOMP_PERM, Linux 5.16 and later); a tile
// instruction before that raises SIGILL. Compiled code that uses tiles asks
// through here on entry; the answer is kept, so each later call is one load.
//
//===----------------------------------------------------------------------===//

#include "emberrt/runtime.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>

#if defined(__linux__) && defined(__x86_64__)
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace {
// 0: not asked yet, 1: granted, 2: refused.
std::atomic<int> answer{0};
} // namespace

extern "C" int32_t emberrt_request_amx(void) {
  int known = answer.load(std::memory_order_acquire);
  if (known == 0) {
    bool granted = false;
#if defined(__linux__) && defined(__x86_64__)
    constexpr long kRequestPermission = 0x1023; // ARCH_REQ_XCOMP_PERM
    constexpr long kTileData = 18;              // XFEATURE_XTILEDATA
    granted = syscall(SYS_arch_prctl, kRequestPermission, kTileData) == 0;
#endif
    known = granted ? 1 : 2;
    answer.store(known, std::memory_order_release);
  }
  return known == 1;
}

extern "C" void emberrt_require_amx(void) {
  if (emberrt_request_amx())
    return;
  // Only code compiled ahead of time for an AMX CPU gets here (the JIT
  // chooses tiles only once the OS has granted them): stop with a reason
  // rather than SIGILL at the first tile instruction.
  std::fprintf(stderr, "emberrt: this code multiplies bfloat16 matrices on AMX tiles, which the "
                       "operating system refused (Linux 5.16 or later grants them); compile it "
                       "with -mattr=-amx-tile to run it here\n");
  std::exit(70);
}
