// LibTorch's version of story C2's full run (examples/c2_image_classifier.cpp),
// for issue 11's accuracy and wall-time comparison: the same model (channels
// first, initialized as Keras does), Adam 1e-3, batch 32 (the remainder dropped), a shuffled order each
// epoch, 3 epochs on Fashion-MNIST, then the test accuracy.
//
//   torch_c2_train [DIR] [EPOCHS] [SEED]
#include "bench_util.h"
#include "torch_c2_net.h"

#include <torch/torch.h>

#include <zlib.h>

#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

namespace {
/// The bytes of a gzip (or plain) file.
std::vector<unsigned char> readGzip(const std::string &path) {
  gzFile file = gzopen(path.c_str(), "rb");
  if (!file)
    throw std::runtime_error("cannot open " + path);
  std::vector<unsigned char> bytes;
  unsigned char chunk[1 << 16];
  int got;
  while ((got = gzread(file, chunk, sizeof chunk)) > 0)
    bytes.insert(bytes.end(), chunk, chunk + got);
  gzclose(file);
  return bytes;
}

uint32_t bigEndian(const std::vector<unsigned char> &b, size_t at) {
  return (uint32_t(b[at]) << 24) | (uint32_t(b[at + 1]) << 16) | (uint32_t(b[at + 2]) << 8) | b[at + 3];
}

/// Images as float [N, 1, 28, 28] in [0, 1], labels as int64 [N].
torch::Tensor images(const std::string &path) {
  auto b = readGzip(path);
  int64_t n = bigEndian(b, 4), rows = bigEndian(b, 8), cols = bigEndian(b, 12);
  auto t = torch::from_blob(b.data() + 16, {n, 1, rows, cols}, torch::kUInt8);
  return t.to(torch::kFloat32) / 255.0;
}
torch::Tensor labels(const std::string &path) {
  auto b = readGzip(path);
  int64_t n = bigEndian(b, 4);
  return torch::from_blob(b.data() + 8, {n}, torch::kUInt8).to(torch::kInt64);
}

} // namespace

int main(int argc, char **argv) {
  std::string dir = argc > 1 ? argv[1] : "/usr/share/datasets/fashion-mnist";
  int epochs = argc > 2 ? std::stoi(argv[2]) : 3;
  torch::manual_seed(argc > 3 ? std::stoll(argv[3]) : 1);
  double start = bench::now();
  auto xTrain = images(dir + "/train-images-idx3-ubyte.gz");
  auto yTrain = labels(dir + "/train-labels-idx1-ubyte.gz");
  auto xTest = images(dir + "/t10k-images-idx3-ubyte.gz");
  auto yTest = labels(dir + "/t10k-labels-idx1-ubyte.gz");
  auto net = std::make_shared<C2Net>();
  torch::optim::Adam adam(net->parameters(), torch::optim::AdamOptions(1e-3));
  const int64_t batch = 32, steps = xTrain.size(0) / batch;
  for (int epoch = 1; epoch <= epochs; ++epoch) {
    auto order = torch::randperm(xTrain.size(0), torch::kLong);
    double lossSum = 0;
    for (int64_t s = 0; s < steps; ++s) {
      auto rows = order.slice(0, s * batch, (s + 1) * batch);
      adam.zero_grad();
      auto loss = torch::nn::functional::cross_entropy(net->forward(xTrain.index_select(0, rows)),
                                                       yTrain.index_select(0, rows));
      loss.backward();
      adam.step();
      lossSum += loss.item<double>();
    }
    std::printf("torch epoch %d: mean loss %.4f\n", epoch, lossSum / steps);
  }
  torch::NoGradGuard noGrad;
  int64_t right = 0;
  for (int64_t s = 0; s < xTest.size(0); s += 500) {
    auto logits = net->forward(xTest.slice(0, s, s + 500));
    right += (logits.argmax(1) == yTest.slice(0, s, s + 500)).sum().item<int64_t>();
  }
  bench::report("torch.c2_test_accuracy", double(right) / xTest.size(0), "");
  bench::report("torch.c2_train_seconds", bench::now() - start, "s");
}
