// bfloat16 matmuls on AMX tiles where the named CPU has them (amx-tile and
// amx-bf16: Sapphire Rapids), whatever this host has: tile loads, tdpbf16ps
// and the tile configuration LLVM inserts, and a call that asks the OS for
// the tiles on entry. Without them (Skylake-AVX512, or the features turned
// off), the same matmul is widened to float32 FMAs.
// RUN: ember-compile %s --mcpu=sapphirerapids --emit=asm -o - | FileCheck %s --check-prefix=AMX
// RUN: ember-compile %s --mcpu=skylake-avx512 --emit=asm -o - | FileCheck %s --check-prefix=WIDE
// RUN: ember-compile %s --mcpu=sapphirerapids --mattr=-amx-tile --emit=asm -o - | FileCheck %s --check-prefix=WIDE

// (The row blocks run in parallel: their loop is the outlined function
// first in the file.)
// AMX:         ldtilecfg
// AMX:         tileloadd
// AMX-COUNT-4: tdpbf16ps
// AMX:         tilestored
// AMX-LABEL: {{^}}ember_entry_matmul:
// AMX:         {{call.*}}emberrt_require_amx

// WIDE-NOT:    tdpbf16ps
// WIDE-NOT:    emberrt_require_amx
// WIDE:        vfmadd{{.*}}ps {{.*}}%zmm
// WIDE-NOT:    tdpbf16ps

func.func @matmul(%a: tensor<256x512xbf16>, %b: tensor<512x384xbf16>) -> tensor<256x384xbf16> {
  %0 = ember.matmul %a, %b : tensor<256x512xbf16>, tensor<512x384xbf16> -> tensor<256x384xbf16>
  return %0 : tensor<256x384xbf16>
}
