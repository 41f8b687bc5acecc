// A test driver: runs one eager elementwise op on N float32 elements, so lit
// tests can inspect the kernel the JIT built (EMBER_KERNEL_OBJECT_DIR).
//   eager-op-probe <add|mul|exp> <N>
#include "ember/ember.h"

#include <cstdlib>
#include <iostream>
#include <string>

int main(int argc, char **argv) {
  if (argc != 3) {
    std::cerr << "usage: eager-op-probe <add|mul|exp> <N>\n";
    return 2;
  }
  std::string op = argv[1];
  int64_t n = std::atoll(argv[2]);
  ember::Tensor x = ember::full({n}, 1.5), y = ember::full({n}, 2.0);
  ember::Tensor z = op == "add" ? x + y : op == "mul" ? x * y : ember::exp(x);
  std::cout << op << " " << n << " -> " << z.to_vector<float>()[n - 1] << "\n";
  ember::KernelCacheStats stats = ember::kernel_cache_stats();
  std::cout << "kernels: " << stats.misses << ", from the disk cache: " << stats.disk_loads
            << "\n";
}
