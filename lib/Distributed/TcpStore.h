//===- TcpStore.h - the rendezvous store over TCP ---------------*- C++ -*-===//
//
// Gloo's Store (keys and values the ranks exchange while connecting) served
// by rank 0 at MASTER_ADDR:MASTER_PORT, as PyTorch's TCPStore: Debian's Gloo
// has a file store and a Redis store, no TCP one. Each rank keeps one
// connection open for the whole run, which tells the server when a rank's
// process is gone (its connection closes without a goodbye): that is how
// ember names the rank a failed collective lost, which Gloo does not.
//
//===----------------------------------------------------------------------===//
#ifndef EMBER_LIB_DISTRIBUTED_TCPSTORE_H
#define EMBER_LIB_DISTRIBUTED_TCPSTORE_H

#include <gloo/rendezvous/store.h>

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace ember::distributed::detail {

class TcpStoreServer;

/// Whether `host` names this machine's loopback (localhost, 127.x, ::1).
bool isLoopback(const std::string &host);
/// "1.5 s": how messages give a timeout.
std::string secondsText(std::chrono::milliseconds timeout);

/// A rank's connection to the store. Rank 0 also runs the server (in a
/// thread of its process) at `host`:`port`; port 0 lets the system choose
/// one (tests; see port()). Every call waits at most `timeout`, then throws
/// ember::distributed::DistributedError.
class TcpStore : public gloo::rendezvous::Store {
public:
  TcpStore(const std::string &host, int port, int rank, int worldSize,
           std::chrono::milliseconds timeout);
  ~TcpStore() override;

  void set(const std::string &key, const std::vector<char> &data) override;
  /// Waits until the key is set.
  std::vector<char> get(const std::string &key) override;
  void wait(const std::vector<std::string> &keys) override { wait(keys, timeout_); }
  void wait(const std::vector<std::string> &keys,
            const std::chrono::milliseconds &timeout) override;

  /// Whether the key is set (at once, without waiting).
  bool check(const std::string &key);
  /// The ranks whose connection closed without a goodbye, and those that
  /// said goodbye (left the group), ascending.
  void departedRanks(std::vector<int> &lost, std::vector<int> &left);
  /// This end's address of the connection to the store: the interface
  /// through which the other ranks reach this machine.
  const std::string &localAddress() const { return localAddress_; }
  /// Says goodbye: this rank leaves on purpose (destroy_process_group).
  /// Rank 0 then serves the others until they have left too (at most the
  /// timeout) if `waitForTheOthers`.
  void close(bool waitForTheOthers);
  int port() const { return port_; }

private:
  std::vector<char> request(char command, const std::string &key, const std::vector<char> &value,
                            std::chrono::milliseconds timeout);

  std::unique_ptr<TcpStoreServer> server_;
  std::string where_; // "host:port", for messages
  std::string localAddress_;
  int socket_ = -1, port_ = 0;
  std::chrono::milliseconds timeout_;
  std::mutex mutex_; // one request at a time on the connection
};

} // namespace ember::distributed::detail

#endif // EMBER_LIB_DISTRIBUTED_TCPSTORE_H
