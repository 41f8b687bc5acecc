// RUN: ember-opt %s --ember-cpu-store-bf16-as-integers | FileCheck %s

// bf16 loads and stores move i16 (LLVM would round a stored scalar bfloat
// through __truncsfbf2 on x86 without AVX512-BF16); the value is a bitcast
// where it is used. Other types are untouched; the load keeps its alignment.

// CHECK-LABEL: llvm.func @copy(
// CHECK:         %[[B:.*]] = llvm.load %{{.*}} {alignment = 2 : i64} : !llvm.ptr -> i16
// CHECK:         %[[F:.*]] = llvm.bitcast %[[B]] : i16 to bf16
// CHECK:         %[[W:.*]] = llvm.fpext %[[F]] : bf16 to f32
// CHECK:         %[[S:.*]] = llvm.bitcast %[[F]] : bf16 to i16
// CHECK:         llvm.store %[[S]], %{{.*}} : i16, !llvm.ptr
// CHECK:         %[[V:.*]] = llvm.load %{{.*}} : !llvm.ptr -> vector<8xi16>
// CHECK:         llvm.bitcast %[[V]] : vector<8xi16> to vector<8xbf16>
// CHECK:         llvm.load %{{.*}} : !llvm.ptr -> f32
// CHECK:         llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr
llvm.func @copy(%from: !llvm.ptr, %to: !llvm.ptr) -> f32 {
  %0 = llvm.load %from {alignment = 2 : i64} : !llvm.ptr -> bf16
  %1 = llvm.fpext %0 : bf16 to f32
  llvm.store %0, %to : bf16, !llvm.ptr
  %2 = llvm.load %from : !llvm.ptr -> vector<8xbf16>
  llvm.store %2, %to : vector<8xbf16>, !llvm.ptr
  %3 = llvm.load %from : !llvm.ptr -> f32
  llvm.store %3, %to : f32, !llvm.ptr
  %4 = llvm.fadd %1, %3 : f32
  llvm.return %4 : f32
}

// A select between bf16 values (where(c, a, b)) selects their bits: LLVM
// would select in float registers and round the result through the same
// missing call. Selects of other types are untouched.
// CHECK-LABEL: llvm.func @select(
// CHECK-SAME:      %[[C:.*]]: i1, %[[X:.*]]: bf16, %[[Y:.*]]: bf16, %[[M:.*]]: vector<16xi1>, %[[U:.*]]: vector<16xbf16>, %[[V:.*]]: vector<16xbf16>, %[[F:.*]]: f32
// CHECK:         %[[XB:.*]] = llvm.bitcast %[[X]] : bf16 to i16
// CHECK:         %[[YB:.*]] = llvm.bitcast %[[Y]] : bf16 to i16
// CHECK:         %[[S:.*]] = llvm.select %[[C]], %[[XB]], %[[YB]] : i1, i16
// CHECK:         llvm.bitcast %[[S]] : i16 to bf16
// CHECK:         %[[UB:.*]] = llvm.bitcast %[[U]] : vector<16xbf16> to vector<16xi16>
// CHECK:         %[[VB:.*]] = llvm.bitcast %[[V]] : vector<16xbf16> to vector<16xi16>
// CHECK:         %[[SV:.*]] = llvm.select %[[M]], %[[UB]], %[[VB]] : vector<16xi1>, vector<16xi16>
// CHECK:         llvm.bitcast %[[SV]] : vector<16xi16> to vector<16xbf16>
// CHECK:         llvm.select %[[C]], %[[F]], %[[F]] : i1, f32
llvm.func @select(%c: i1, %x: bf16, %y: bf16, %m: vector<16xi1>, %u: vector<16xbf16>,
                  %v: vector<16xbf16>, %f: f32) -> f32 {
  %0 = llvm.select %c, %x, %y : i1, bf16
  %1 = llvm.select %m, %u, %v : vector<16xi1>, vector<16xbf16>
  %2 = llvm.select %c, %f, %f : i1, f32
  %3 = llvm.fpext %0 : bf16 to f32
  %4 = llvm.extractelement %1[%c : i1] : vector<16xbf16>
  llvm.return %2 : f32
}
