//===- Distributed.h - collectives across processes on Gloo ------*- C++ -*-===//
//
// Data-parallel training across processes and machines, in the names that
// PyTorch's torch.distributed and Horovod use, on Gloo (the engine under
// PyTorch's CPU collectives). Start N processes with `ember-run -n N program`
// (as torchrun), or set the environment yourself, then:
//
//   ember::distributed::init_process_group(); // RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT
//   ember::Tensor local = ember::Tensor({1.0f, 2.0f}) * float(ember::distributed::rank() + 1);
//   ember::Tensor total = ember::distributed::all_reduce(local); // the sum over ranks
//   if (ember::distributed::rank() == 0) std::cout << total << "\n";
//   ember::distributed::destroy_process_group();
//
// Collectives take CPU tensors and return new tensors (as Horovod and
// TensorFlow); every rank must call the same collectives in the same order
// with tensors of the same dtype and (except all_gather's first dim) shape.
//
// Faults: when a rank's process dies, the others' next collective raises
// DistributedError naming the lost rank (at once, when its connections
// close), and the group is broken from then on. A rank that hangs is
// reported after the timeout: ProcessGroupOptions::timeout, else
// EMBER_DISTRIBUTED_TIMEOUT (seconds), else 30 minutes (PyTorch's default).
// A rank that never arrives makes init_process_group raise after the same
// timeout, naming the ranks missing. Ranks that call different collectives
// (other sizes, dtypes, reductions or roots) may hang or fail inside Gloo:
// EMBER_DISTRIBUTED_DEBUG=DETAIL (PyTorch's TORCH_DISTRIBUTED_DEBUG) checks
// every all-reduce and broadcast first, raising DistributedError naming the
// first rank that differs, at the cost of one more small collective each.
//
//===----------------------------------------------------------------------===//
#ifndef EMBER_DISTRIBUTED_DISTRIBUTED_H
#define EMBER_DISTRIBUTED_DISTRIBUTED_H

#include "ember/Frontend/Error.h"
#include "ember/Frontend/GradientTape.h"
#include "ember/Frontend/Tensor.h"
#include "ember/Frontend/Variable.h"

#include <chrono>
#include <string>
#include <vector>

namespace ember::distributed {

// DistributedError (ember/Frontend/Error.h): what every failure here raises.

/// How all_reduce and reduce_scatter combine the ranks' values (PyTorch's
/// ReduceOp; Mean is its AVG, Horovod's Average, floating-point only).
enum class ReduceOp { Sum, Mean, Max, Min };

struct ProcessGroupOptions {
  /// Where the ranks meet: "env://" (the default: MASTER_ADDR and
  /// MASTER_PORT), "tcp://host:port" (rank 0 serves the store there) or
  /// "file:///path/to/directory" (a directory every rank can write, on one
  /// machine or a shared file system; use a new one for each run).
  std::string init_method = "env://";
  /// -1: from RANK and WORLD_SIZE.
  int rank = -1;
  int world_size = -1;
  /// 0: EMBER_DISTRIBUTED_TIMEOUT seconds if set, else 30 minutes.
  std::chrono::milliseconds timeout{0};
  /// Whether the all-reduces of compiled code (a traced step's gradient
  /// buckets) run on a communication thread while the step goes on: each
  /// starts as soon as its gradients are computed and the step waits for
  /// it only where it needs the result, so the backward pass of the layers
  /// below overlaps it (PyTorch DDP's and Horovod's overlap). false: each
  /// runs where it starts, on the calling thread.
  bool overlap_communication = true;
};

/// Joins the group: waits until every rank has arrived (or the timeout),
/// then connects every pair of ranks. Raises DistributedError if the
/// environment is incomplete, a rank does not arrive, or a group exists.
void init_process_group(const ProcessGroupOptions &options = {}, EMBER_LOC);
bool is_initialized();
/// Leaves the group (rank 0 keeps serving the store until every rank has
/// left). Nothing happens without a group.
void destroy_process_group();

/// This process's rank, 0..world_size()-1, and the number of processes.
int rank();
int world_size();
/// The rank among the processes on this machine (LOCAL_RANK; else rank()).
int local_rank();

/// Waits until every rank has called it.
void barrier(EMBER_LOC);

/// The element-wise combination of `tensor` over every rank, on every rank.
Tensor all_reduce(const Tensor &tensor, ReduceOp op = ReduceOp::Sum, EMBER_LOC);
/// all_reduce in place, as PyTorch's dist.all_reduce and Horovod's
/// allreduce_: the reduction is written into `tensor`'s own buffer (every
/// handle to it sees the new values), saving the copy a new tensor costs
/// (on a machine that moves 6 GB/s, 4 ms of a 25 MB all-reduce's 30).
/// Eager CPU tensors only; float32, float64, int32 or int64.
void all_reduce_(Tensor &tensor, ReduceOp op = ReduceOp::Sum, EMBER_LOC);
/// `root`'s tensor on every rank (the others' values are ignored; shapes
/// and dtypes must agree).
Tensor broadcast(const Tensor &tensor, int root = 0, EMBER_LOC);
/// Every rank's tensor concatenated along dim 0 in rank order (Horovod's
/// allgather): the first dims may differ, the rest must agree.
Tensor all_gather(const Tensor &tensor, EMBER_LOC);
/// all_reduce's result split along dim 0 into world_size() equal parts:
/// part rank() on each rank. Dim 0 must be a multiple of world_size().
Tensor reduce_scatter(const Tensor &tensor, ReduceOp op = ReduceOp::Sum, EMBER_LOC);

/// Assigns root's values to every rank's variables (Horovod's
/// broadcast_variables): call it once after building the model so that
/// every rank starts from the same weights. First checks that every rank
/// holds the same number of variables with the same names, dtypes and
/// shapes, raising DistributedError naming the first that differs.
void broadcast_variables(const std::vector<Variable> &variables, int root = 0, EMBER_LOC);

/// Replaces every rank's value of each variable by its reduction over the
/// ranks: metrics' states (metrics::Mean::variables(): total and count)
/// summed before reading a result over every rank's data, as Horovod's
/// MetricAverageCallback. Every rank must pass the same variables.
void all_reduce_variables(const std::vector<Variable> &variables, ReduceOp op = ReduceOp::Sum,
                          EMBER_LOC);

/// Horovod's DistributedGradientTape: a GradientTape whose gradient()
/// returns every gradient reduced over the ranks (their mean by default,
/// as Horovod and PyTorch's DDP), so that each rank applies the same update.
/// Eagerly or inside an ember::function (where the all-reduces are ops of
/// the compiled step). Gradients are sent in buckets of at most
/// `bucket_cap_mb` megabytes (PyTorch DDP's 25 by default), filled in
/// reverse order of the sources (the order the backward pass produces them:
/// the last layer's first), each bucket one all-reduce of its gradients
/// laid end to end; a gradient with a None dim goes alone.
///
///   ember::distributed::DistributedGradientTape tape; // or through a GradientTape &
///   ember::Tensor loss = lossFn(labels, model(images, true));
///   optimizer.apply_gradients(tape.gradient(loss, weights), weights);
class DistributedGradientTape : public GradientTape {
public:
  explicit DistributedGradientTape(bool persistent = false, ReduceOp op = ReduceOp::Mean,
                                   double bucket_cap_mb = 25);

  std::vector<std::optional<Tensor>> gradient(const Tensor &target, const GradientSources &sources,
                                              UnconnectedGradients::NoneChoice = {},
                                              EMBER_LOC) override;
  std::vector<Tensor> gradient(const Tensor &target, const GradientSources &sources,
                               UnconnectedGradients::ZeroChoice, EMBER_LOC) override;

private:
  ReduceOp op_;
  double bucketBytes_;
};

} // namespace ember::distributed

#endif // EMBER_DISTRIBUTED_DISTRIBUTED_H
