// bfloat16 matmuls on the CPU's bfloat16 dot products, whatever this host
// has: on AMX tiles where the named CPU has them (amx-tile and amx-bf16:
// Sapphire Rapids): tile loads, tdpbf16ps and the tile configuration LLVM
// inserts, and a call that asks the OS for the tiles on entry; on
// AVX512-BF16 (Zen 4, or Sapphire Rapids with its tiles turned off)
// vdpbf16ps on AVX-512 vectors; on CPUs with neither (Skylake-AVX512), the
// same matmul is widened to float32 FMAs.
// RUN: ember-compile %s --mcpu=sapphirerapids --emit=asm -o - | FileCheck %s --check-prefix=AMX
// RUN: ember-compile %s --mcpu=znver4 --emit=asm -o - | FileCheck %s --check-prefix=DOT
// RUN: ember-compile %s --mcpu=sapphirerapids --mattr=-amx-tile --emit=asm -o - | FileCheck %s --check-prefix=DOT
// RUN: ember-compile %s --mcpu=skylake-avx512 --emit=asm -o - | FileCheck %s --check-prefix=WIDE

// (The row blocks run in parallel: their loop is the outlined function
// first in the file.)
// AMX:         ldtilecfg
// AMX:         tileloadd
// AMX-COUNT-4: tdpbf16ps
// AMX:         tilestored
// AMX-LABEL: {{^}}ember_entry_matmul:
// AMX:         {{call.*}}emberrt_require_amx

// DOT-NOT:     tdpbf16ps
// DOT-NOT:     emberrt_require_amx
// DOT:         {{vpbroadcastd|vbroadcastss}}
// DOT-COUNT-3: vdpbf16ps {{.*}}%zmm
// DOT-NOT:     tdpbf16ps

// WIDE-NOT:    dpbf16ps
// WIDE-NOT:    emberrt_require_amx
// WIDE:        vfmadd{{.*}}ps {{.*}}%zmm
// WIDE-NOT:    dpbf16ps

func.func @matmul(%a: tensor<256x512xbf16>, %b: tensor<512x384xbf16>) -> tensor<256x384xbf16> {
  %0 = ember.matmul %a, %b : tensor<256x512xbf16>, tensor<512x384xbf16> -> tensor<256x384xbf16>
  return %0 : tensor<256x384xbf16>
}
