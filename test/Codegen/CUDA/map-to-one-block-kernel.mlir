// RUN: ember-opt %s --ember-map-to-one-block-kernel --split-input-file | FileCheck %s

// power(x, 100) as ember-reuse-loop-buffers leaves it (two iterations a
// step, two temporaries): one launch of one block of 128 threads (100
// elements a nest), the temporaries in shared memory, the loop inside. Each
// nest is a guarded iteration a thread; zeroing a matrix and accumulating
// into it touch each element from the same thread (no barrier between),
// reading the other matrix across threads needs one after each product.
// The accumulation runs in a register.
// CHECK-LABEL: func.func @power(
// CHECK-SAME:      %[[X:.*]]: memref<10x10xf32>, %[[OUT:.*]]: memref<10x10xf32>)
// CHECK-NOT:     memref.alloc
// CHECK:         gpu.launch blocks({{.*}}) in ({{.*}} = %c1{{.*}}, {{.*}} = %c1{{.*}}, {{.*}} = %c1{{.*}}) threads(%[[TID:[^,]*]], {{.*}}) in ({{.*}} = %c128{{.*}}, {{.*}} = %c1{{.*}}, {{.*}} = %c1{{.*}}) workgroup(%[[ACC:.*]] : memref<10x10xf32, #gpu.address_space<workgroup>>, %[[T:.*]] : memref<10x10xf32, #gpu.address_space<workgroup>>)
// CHECK:           %[[IN:.*]] = arith.cmpi ult, %[[TID]], %c100{{.*}} : index
// CHECK:           scf.if %[[IN]] {
// CHECK:             %[[J:.*]] = arith.remui %[[TID]], %c10{{.*}} : index
// CHECK:             %[[I:.*]] = arith.divui %[[TID]], %c10{{.*}} : index
// CHECK:             memref.store %{{.*}}, %[[ACC]][%[[I]], %[[J]]]
// CHECK:           gpu.barrier
// CHECK:           scf.for %{{.*}} = %c0{{.*}} to %c100{{.*}} step %c2
// CHECK:             scf.if
// CHECK:               memref.store %{{.*}}, %[[T]]
// CHECK-NOT:         gpu.barrier
// CHECK:             scf.if
// CHECK:               %[[C:.*]] = memref.load %[[T]]
// CHECK:               %[[SUM:.*]] = scf.for {{.*}} iter_args(%[[S:.*]] = %[[C]]) -> (f32)
// CHECK:                 memref.load %[[ACC]]
// CHECK:                 memref.load %[[X]]
// CHECK-NOT:             memref.store
// CHECK:                 scf.yield
// CHECK:               memref.store %[[SUM]], %[[T]]
// CHECK:             gpu.barrier
// CHECK:             scf.if
// CHECK:               memref.store %{{.*}}, %[[ACC]]
// CHECK-NOT:         gpu.barrier
// CHECK:             scf.if
// CHECK:               memref.load %[[T]]
// CHECK:             gpu.barrier
// CHECK-NEXT:      }
// CHECK:           scf.if
// CHECK:             %[[R:.*]] = memref.load %[[ACC]]
// CHECK:             memref.store %[[R]], %[[OUT]]
// CHECK-NOT:       gpu.barrier
// CHECK:           gpu.terminator
// CHECK-NOT:     memref.dealloc
// CHECK:         return
func.func @power(%x: memref<10x10xf32>, %out: memref<10x10xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c10 = arith.constant 10 : index
  %c100 = arith.constant 100 : index
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %acc = memref.alloc() : memref<10x10xf32>
  scf.parallel (%i, %j) = (%c0, %c0) to (%c10, %c10) step (%c1, %c1) {
    %same = arith.cmpi eq, %i, %j : index
    %v = arith.select %same, %one, %zero : f32
    memref.store %v, %acc[%i, %j] : memref<10x10xf32>
    scf.reduce
  }
  %t = memref.alloc() : memref<10x10xf32>
  scf.for %k = %c0 to %c100 step %c2 {
    scf.parallel (%i, %j) = (%c0, %c0) to (%c10, %c10) step (%c1, %c1) {
      memref.store %zero, %t[%i, %j] : memref<10x10xf32>
      scf.reduce
    }
    scf.parallel (%i, %j) = (%c0, %c0) to (%c10, %c10) step (%c1, %c1) {
      scf.for %l = %c0 to %c10 step %c1 {
        %a = memref.load %acc[%i, %l] : memref<10x10xf32>
        %b = memref.load %x[%l, %j] : memref<10x10xf32>
        %c = memref.load %t[%i, %j] : memref<10x10xf32>
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %c, %p : f32
        memref.store %s, %t[%i, %j] : memref<10x10xf32>
      }
      scf.reduce
    }
    scf.parallel (%i, %j) = (%c0, %c0) to (%c10, %c10) step (%c1, %c1) {
      memref.store %zero, %acc[%i, %j] : memref<10x10xf32>
      scf.reduce
    }
    scf.parallel (%i, %j) = (%c0, %c0) to (%c10, %c10) step (%c1, %c1) {
      scf.for %l = %c0 to %c10 step %c1 {
        %a = memref.load %t[%i, %l] : memref<10x10xf32>
        %b = memref.load %x[%l, %j] : memref<10x10xf32>
        %c = memref.load %acc[%i, %j] : memref<10x10xf32>
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %c, %p : f32
        memref.store %s, %acc[%i, %j] : memref<10x10xf32>
      }
      scf.reduce
    }
  }
  memref.copy %acc, %out : memref<10x10xf32> to memref<10x10xf32>
  memref.dealloc %acc : memref<10x10xf32>
  memref.dealloc %t : memref<10x10xf32>
  return
}

// -----

// A while loop whose condition reads a sum (a traced while_loop): the
// sequential reduction and the scalar store run in thread 0, each followed
// by a barrier; every thread reads the sum and computes the condition, and a
// barrier keeps the body's writes after everyone's reads.
// CHECK-LABEL: func.func @halve(
// CHECK:         gpu.launch {{.*}} threads(%[[TID:[^,]*]], {{.*}}) in ({{.*}} = %c32{{.*}}, {{.*}}) workgroup(%[[V:.*]] : memref<16xf32, #gpu.address_space<workgroup>>, %[[SUM:.*]] : memref<f32, #gpu.address_space<workgroup>>)
// CHECK:           scf.if
// CHECK:             memref.store %{{.*}}, %[[V]][%[[TID]]]
// CHECK:           gpu.barrier
// CHECK:           scf.while : () -> () {
// CHECK:             %[[FIRST:.*]] = arith.cmpi eq, %[[TID]], %c0
// CHECK:             scf.if %[[FIRST]] {
// CHECK:               memref.store %{{.*}}, %[[SUM]][]
// CHECK:             gpu.barrier
// CHECK:             scf.if
// CHECK:               scf.for
// CHECK:             gpu.barrier
// CHECK:             %[[S:.*]] = memref.load %[[SUM]][]
// CHECK:             %[[MORE:.*]] = arith.cmpf ogt, %[[S]]
// CHECK:             gpu.barrier
// CHECK:             scf.condition(%[[MORE]])
// CHECK:           } do {
// CHECK:             scf.if
// CHECK:               arith.mulf
// CHECK:             gpu.barrier
// CHECK:             scf.yield
func.func @halve(%x: memref<16xf32>, %out: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %half = arith.constant 0.5 : f32
  %limit = arith.constant 1.0 : f32
  %zero = arith.constant 0.0 : f32
  %v = memref.alloc() : memref<16xf32>
  memref.copy %x, %v : memref<16xf32> to memref<16xf32>
  %sum = memref.alloc() : memref<f32>
  scf.while : () -> () {
    memref.store %zero, %sum[] : memref<f32>
    scf.for %i = %c0 to %c16 step %c1 {
      %a = memref.load %v[%i] : memref<16xf32>
      %s = memref.load %sum[] : memref<f32>
      %n = arith.addf %a, %s : f32
      memref.store %n, %sum[] : memref<f32>
    }
    %s = memref.load %sum[] : memref<f32>
    %more = arith.cmpf ogt, %s, %limit : f32
    scf.condition(%more)
  } do {
    scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
      %a = memref.load %v[%i] : memref<16xf32>
      %h = arith.mulf %a, %half : f32
      memref.store %h, %v[%i] : memref<16xf32>
      scf.reduce
    }
    scf.yield
  }
  memref.copy %v, %out : memref<16xf32> to memref<16xf32>
  memref.dealloc %v : memref<16xf32>
  memref.dealloc %sum : memref<f32>
  return
}

// -----

// Nests larger than the block (256 threads) stride over it; a transposed
// read keeps the barrier between two nests. Temporaries beyond 48 KiB of
// shared memory are device buffers allocated before the launch.
// CHECK-LABEL: func.func @strided(
// CHECK:         %[[DEVICE:.*]] = memref.alloc() : memref<64x64xf32>
// CHECK:         gpu.launch {{.*}} threads(%[[TID:[^,]*]], {{.*}}) in ({{.*}} = %c256{{.*}}, {{.*}}) workgroup(%[[A:.*]] : memref<64x64xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<64x64xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<64x64xf32, #gpu.address_space<workgroup>>)
// CHECK:           scf.for %{{.*}} = %c0{{.*}} to %c3
// CHECK:             scf.for %[[L:.*]] = %[[TID]] to %{{.*}} step %c256
// CHECK:               memref.load %[[A]]
// CHECK:               memref.store %{{.*}}, %[[DEVICE]]
// CHECK:             gpu.barrier
// CHECK:             scf.for %{{.*}} = %[[TID]] to %{{.*}} step %c256
// CHECK:               memref.load %[[DEVICE]]
// CHECK:               memref.store %{{.*}}, %[[A]]
// CHECK:             gpu.barrier
// CHECK:           gpu.terminator
// CHECK:         memref.dealloc %[[DEVICE]]
// CHECK-NEXT:    return
func.func @strided(%x: memref<64x64xf32>, %out: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c64 = arith.constant 64 : index
  %a = memref.alloc() : memref<64x64xf32>
  %b = memref.alloc() : memref<64x64xf32>
  %c = memref.alloc() : memref<64x64xf32>
  %d = memref.alloc() : memref<64x64xf32>
  memref.copy %x, %a : memref<64x64xf32> to memref<64x64xf32>
  scf.for %k = %c0 to %c3 step %c1 {
    scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c64) step (%c1, %c1) {
      %v = memref.load %a[%j, %i] : memref<64x64xf32>
      memref.store %v, %b[%i, %j] : memref<64x64xf32>
      memref.store %v, %c[%i, %j] : memref<64x64xf32>
      memref.store %v, %d[%i, %j] : memref<64x64xf32>
      scf.reduce
    }
    scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c64) step (%c1, %c1) {
      %u = memref.load %b[%i, %j] : memref<64x64xf32>
      %v = memref.load %d[%i, %j] : memref<64x64xf32>
      %s = arith.addf %u, %v : f32
      memref.store %s, %a[%i, %j] : memref<64x64xf32>
      scf.reduce
    }
  }
  memref.copy %a, %out : memref<64x64xf32> to memref<64x64xf32>
  memref.dealloc %a : memref<64x64xf32>
  memref.dealloc %b : memref<64x64xf32>
  memref.dealloc %c : memref<64x64xf32>
  memref.dealloc %d : memref<64x64xf32>
  return
}

// -----

// Left to ember-map-to-gpu-kernels: a buffer of more than 4096 elements, no
// control flow around the nests, a call.
// CHECK-LABEL: func.func @too_big(
// CHECK-NOT:     gpu.launch
// CHECK:         scf.for
// CHECK:           scf.parallel
// CHECK-LABEL: func.func @no_control_flow(
// CHECK-NOT:     gpu.launch
// CHECK-LABEL: func.func @call(
// CHECK-NOT:     gpu.launch
func.func @too_big(%x: memref<64x128xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  scf.for %k = %c0 to %c4 step %c1 {
    scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c128) step (%c1, %c1) {
      %v = memref.load %x[%i, %j] : memref<64x128xf32>
      %s = arith.addf %v, %v : f32
      memref.store %s, %x[%i, %j] : memref<64x128xf32>
      scf.reduce
    }
  }
  return
}

func.func @no_control_flow(%x: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
    %v = memref.load %x[%i] : memref<16xf32>
    %s = arith.addf %v, %v : f32
    memref.store %s, %x[%i] : memref<16xf32>
    scf.reduce
  }
  return
}

func.func private @helper(memref<16xf32>)

func.func @call(%x: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  scf.for %k = %c0 to %c4 step %c1 {
    scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
      %v = memref.load %x[%i] : memref<16xf32>
      memref.store %v, %x[%i] : memref<16xf32>
      scf.reduce
    }
    func.call @helper(%x) : (memref<16xf32>) -> ()
  }
  return
}

// -----

// Three nests in a row, no control flow (a chain traced from a C++ loop):
// one kernel. The first two touch only their own elements of each other's
// buffers (no barrier between them); the third reads the first one's writes
// across threads, so a barrier comes before it: every nest since the last
// barrier is checked, not only the one just before.
// CHECK-LABEL: func.func @three_nests(
// CHECK:         gpu.launch
// CHECK:           memref.store %{{.*}}, %[[A:[a-zA-Z0-9_]+]][
// CHECK-NOT:       gpu.barrier
// CHECK:           memref.store %{{.*}}, %[[B:[a-zA-Z0-9_]+]][
// CHECK:           gpu.barrier
// CHECK:           memref.load %[[A]][
// CHECK:           gpu.terminator
func.func @three_nests(%x: memref<16xf32>, %out: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c15 = arith.constant 15 : index
  %c16 = arith.constant 16 : index
  %a = memref.alloc() : memref<16xf32>
  %b = memref.alloc() : memref<16xf32>
  scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
    %v = memref.load %x[%i] : memref<16xf32>
    %s = arith.addf %v, %v : f32
    memref.store %s, %a[%i] : memref<16xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
    %v = memref.load %x[%i] : memref<16xf32>
    %s = arith.mulf %v, %v : f32
    memref.store %s, %b[%i] : memref<16xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
    %j = arith.subi %c15, %i : index
    %v = memref.load %a[%j] : memref<16xf32>
    %w = memref.load %b[%i] : memref<16xf32>
    %s = arith.addf %v, %w : f32
    memref.store %s, %out[%i] : memref<16xf32>
    scf.reduce
  }
  memref.dealloc %a : memref<16xf32>
  memref.dealloc %b : memref<16xf32>
  return
}
