//===- TcpStore.cpp - the rendezvous store over TCP ------------------------===//
//
// Requests and replies are framed as [command byte][u32 length][key]
// [u32 length][value] and [status byte][u32 length][data]. The server is one
// thread polling every connection; a get of a key not yet set is answered
// when the key is set. A connection that closes before its rank said
// goodbye marks that rank lost.
//
//===----------------------------------------------------------------------===//

#include "TcpStore.h"

#include "ember/Distributed/Distributed.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>
#include <thread>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

using namespace ember::distributed;
using namespace ember::distributed::detail;
using Clock = std::chrono::steady_clock;

namespace {

enum Command : char {
  Hello = 'H', // key: the rank
  Set = 'S',
  Get = 'G',
  Check = 'C',
  Lost = 'L', // reply: "lost ranks;left ranks", each "r,r,"
  Bye = 'B',
};

void appendWord(std::string &out, uint32_t word) {
  char bytes[4];
  std::memcpy(bytes, &word, 4);
  out.append(bytes, 4);
}

uint32_t readWord(const char *at) {
  uint32_t word;
  std::memcpy(&word, at, 4);
  return word;
}

std::string frame(char head, std::string_view first, std::string_view second) {
  std::string out(1, head);
  appendWord(out, static_cast<uint32_t>(first.size()));
  out.append(first);
  appendWord(out, static_cast<uint32_t>(second.size()));
  out.append(second);
  return out;
}

bool sendAll(int socket, std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t sent = ::send(socket, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (sent < 0 && errno == EINTR)
      continue;
    if (sent <= 0)
      return false;
    bytes.remove_prefix(static_cast<size_t>(sent));
  }
  return true;
}

std::string errnoText() { return std::strerror(errno); }

} // namespace

//===----------------------------------------------------------------------===//
// The server (rank 0's thread)
//===----------------------------------------------------------------------===//

namespace ember::distributed::detail {

class TcpStoreServer {
public:
  TcpStoreServer(bool loopbackOnly, int port, int worldSize) : worldSize_(worldSize) {
    listener_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (listener_ < 0)
      throw DistributedError("the store cannot open a socket: " + errnoText());
    int one = 1;
    ::setsockopt(listener_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<uint16_t>(port));
    address.sin_addr.s_addr = htonl(loopbackOnly ? INADDR_LOOPBACK : INADDR_ANY);
    if (::bind(listener_, reinterpret_cast<sockaddr *>(&address), sizeof address) < 0 ||
        ::listen(listener_, 128) < 0) {
      std::string why = errnoText();
      ::close(listener_);
      throw DistributedError("rank 0 cannot serve the store on port " + std::to_string(port) +
                             ": " + why + " (is another job using MASTER_PORT?)");
    }
    socklen_t length = sizeof address;
    ::getsockname(listener_, reinterpret_cast<sockaddr *>(&address), &length);
    port_ = ntohs(address.sin_port);
    if (::pipe2(wake_, O_CLOEXEC) < 0) {
      std::string why = errnoText();
      ::close(listener_);
      throw DistributedError("the store cannot open a pipe: " + why);
    }
    thread_ = std::thread([this] { serve(); });
  }

  ~TcpStoreServer() {
    stop_ = true;
    char byte = 0;
    (void)!::write(wake_[1], &byte, 1);
    thread_.join();
    for (auto &[socket, client] : clients_)
      ::close(socket);
    ::close(listener_);
    ::close(wake_[0]);
    ::close(wake_[1]);
  }

  int port() const { return port_; }

  /// Waits until every rank has said goodbye or is lost, at most `timeout`.
  void waitForEveryRankToLeave(std::chrono::milliseconds timeout) {
    auto deadline = Clock::now() + timeout;
    while (left_.load() < worldSize_ && Clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }

private:
  struct Client {
    std::string input;
    int rank = -1;
    bool saidBye = false;
    std::string waitingFor; // a get not answered yet
    bool waiting = false;
  };

  void serve() {
    while (!stop_) {
      std::vector<pollfd> polled = {{listener_, POLLIN, 0}, {wake_[0], POLLIN, 0}};
      for (auto &[socket, client] : clients_)
        polled.push_back({socket, POLLIN, 0});
      if (::poll(polled.data(), polled.size(), -1) < 0 && errno != EINTR)
        return;
      if (polled[0].revents & POLLIN) {
        int socket = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
        if (socket >= 0) {
          int one = 1;
          ::setsockopt(socket, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
          clients_[socket] = Client();
        }
      }
      for (size_t i = 2; i < polled.size(); ++i)
        if (polled[i].revents & (POLLIN | POLLHUP | POLLERR))
          readFrom(polled[i].fd);
    }
  }

  void readFrom(int socket) {
    char buffer[65536];
    ssize_t got = ::recv(socket, buffer, sizeof buffer, 0);
    if (got < 0 && errno == EINTR)
      return;
    if (got <= 0) {
      drop(socket);
      return;
    }
    Client &client = clients_[socket];
    client.input.append(buffer, static_cast<size_t>(got));
    // Whole requests: head, key length, key, value length, value.
    while (client.input.size() >= 5) {
      uint32_t keyLength = readWord(client.input.data() + 1);
      if (client.input.size() < 9 + size_t(keyLength))
        return;
      uint32_t valueLength = readWord(client.input.data() + 5 + keyLength);
      size_t total = 9 + size_t(keyLength) + valueLength;
      if (client.input.size() < total)
        return;
      char command = client.input[0];
      std::string key = client.input.substr(5, keyLength);
      std::string value = client.input.substr(9 + keyLength, valueLength);
      client.input.erase(0, total);
      if (!handle(socket, client, command, key, value)) {
        drop(socket);
        return;
      }
    }
  }

  bool handle(int socket, Client &client, char command, const std::string &key,
              const std::string &value) {
    switch (command) {
    case Hello:
      client.rank = std::atoi(key.c_str());
      return reply(socket, "");
    case Set: {
      values_[key] = value;
      // Answer the gets that waited for it.
      for (auto &[other, waiting] : clients_)
        if (waiting.waiting && waiting.waitingFor == key) {
          waiting.waiting = false;
          reply(other, value);
        }
      return reply(socket, "");
    }
    case Get: {
      auto found = values_.find(key);
      if (found != values_.end())
        return reply(socket, found->second);
      client.waiting = true;
      client.waitingFor = key;
      return true;
    }
    case Check:
      return reply(socket, values_.count(key) ? "1" : "0");
    case Lost: {
      std::string ranks;
      for (int rank : lost_)
        ranks += std::to_string(rank) + ",";
      ranks += ";";
      for (int rank : saidBye_)
        ranks += std::to_string(rank) + ",";
      return reply(socket, ranks);
    }
    case Bye:
      if (!client.saidBye && client.rank >= 0) {
        ++left_;
        saidBye_.insert(client.rank);
      }
      client.saidBye = true;
      return reply(socket, "");
    default:
      return false;
    }
  }

  static bool reply(int socket, std::string_view data) {
    return sendAll(socket, frame('O', data, ""));
  }

  void drop(int socket) {
    Client &client = clients_[socket];
    if (client.rank >= 0 && !client.saidBye) {
      lost_.insert(client.rank);
      ++left_;
    }
    ::close(socket);
    clients_.erase(socket);
  }

  int worldSize_;
  int listener_ = -1, port_ = 0;
  int wake_[2] = {-1, -1};
  std::atomic<bool> stop_{false};
  std::atomic<int> left_{0};
  std::map<int, Client> clients_;
  std::map<std::string, std::string> values_;
  std::set<int> lost_, saidBye_;
  std::thread thread_;
};

} // namespace ember::distributed::detail

//===----------------------------------------------------------------------===//
// A rank's connection
//===----------------------------------------------------------------------===//

bool ember::distributed::detail::isLoopback(const std::string &host) {
  return host == "localhost" || host.rfind("127.", 0) == 0 || host == "::1";
}

/// Connects to host:port, retrying while nothing listens there yet (rank 0
/// may start later than the others), until `deadline`.
static int connectBy(const std::string &host, int port, Clock::time_point deadline) {
  std::string lastError = "no address";
  do {
    addrinfo hints{}, *found = nullptr;
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    int status = ::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found);
    if (status != 0) {
      lastError = ::gai_strerror(status);
    } else {
      for (addrinfo *at = found; at; at = at->ai_next) {
        int socket = ::socket(at->ai_family, at->ai_socktype | SOCK_CLOEXEC, at->ai_protocol);
        if (socket < 0)
          continue;
        if (::connect(socket, at->ai_addr, at->ai_addrlen) == 0) {
          ::freeaddrinfo(found);
          int one = 1;
          ::setsockopt(socket, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
          return socket;
        }
        lastError = errnoText();
        ::close(socket);
      }
      ::freeaddrinfo(found);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  } while (Clock::now() < deadline);
  throw DistributedError("cannot reach the store at " + host + ":" + std::to_string(port) + ": " +
                         lastError);
}

std::string ember::distributed::detail::secondsText(std::chrono::milliseconds timeout) {
  char text[32];
  std::snprintf(text, sizeof text, "%g s", timeout.count() / 1000.0);
  return text;
}

TcpStore::TcpStore(const std::string &host, int port, int rank, int worldSize,
                   std::chrono::milliseconds timeout)
    : timeout_(timeout) {
  if (rank == 0) {
    server_ = std::make_unique<TcpStoreServer>(isLoopback(host), port, worldSize);
    port = server_->port();
  }
  port_ = port;
  where_ = host + ":" + std::to_string(port);
  socket_ = connectBy(host, port, Clock::now() + timeout);
  sockaddr_storage local{};
  socklen_t length = sizeof local;
  char text[INET6_ADDRSTRLEN] = {};
  if (::getsockname(socket_, reinterpret_cast<sockaddr *>(&local), &length) == 0) {
    if (local.ss_family == AF_INET)
      ::inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in *>(&local)->sin_addr, text, sizeof text);
    else if (local.ss_family == AF_INET6)
      ::inet_ntop(AF_INET6, &reinterpret_cast<sockaddr_in6 *>(&local)->sin6_addr, text,
                  sizeof text);
  }
  localAddress_ = text;
  request(Hello, std::to_string(rank), {}, timeout);
}

TcpStore::~TcpStore() {
  if (socket_ >= 0)
    ::close(socket_);
}

std::vector<char> TcpStore::request(char command, const std::string &key,
                                    const std::vector<char> &value,
                                    std::chrono::milliseconds timeout) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (socket_ < 0)
    throw DistributedError("the connection to the store at " + where_ + " is closed");
  auto fail = [&](const std::string &why) -> std::vector<char> {
    // A reply may still come: the connection is of no further use.
    ::close(socket_);
    socket_ = -1;
    throw DistributedError(why);
  };
  if (!sendAll(socket_, frame(command, key, std::string_view(value.data(), value.size()))))
    return fail("lost the connection to the store at " + where_ + ": " + errnoText());
  auto deadline = Clock::now() + timeout;
  std::string reply;
  while (true) {
    if (reply.size() >= 9) {
      uint32_t length = readWord(reply.data() + 1);
      if (reply.size() >= 9 + size_t(length))
        return std::vector<char>(reply.begin() + 5, reply.begin() + 5 + length);
    }
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    pollfd polled = {socket_, POLLIN, 0};
    int ready = left.count() > 0 ? ::poll(&polled, 1, static_cast<int>(left.count())) : 0;
    if (ready < 0 && errno == EINTR)
      continue;
    if (ready == 0)
      return fail("timed out after " + secondsText(timeout) + " waiting for the store at " +
                  where_ + (command == Get ? " to hold key '" + key + "'" : ""));
    char buffer[65536];
    ssize_t got = ::recv(socket_, buffer, sizeof buffer, 0);
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0)
      return fail("lost the connection to the store at " + where_ +
                  " (rank 0, which serves it, has gone)");
    reply.append(buffer, static_cast<size_t>(got));
  }
}

void TcpStore::set(const std::string &key, const std::vector<char> &data) {
  request(Set, key, data, timeout_);
}

std::vector<char> TcpStore::get(const std::string &key) { return request(Get, key, {}, timeout_); }

void TcpStore::wait(const std::vector<std::string> &keys,
                    const std::chrono::milliseconds &timeout) {
  auto deadline = Clock::now() + timeout;
  for (const std::string &key : keys)
    request(
        Get, key, {},
        std::max(std::chrono::milliseconds(1),
                 std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now())));
}

bool TcpStore::check(const std::string &key) {
  std::vector<char> reply = request(Check, key, {}, timeout_);
  return reply.size() == 1 && reply[0] == '1';
}

void TcpStore::departedRanks(std::vector<int> &lost, std::vector<int> &left) {
  std::vector<char> reply = request(Lost, "", {}, std::chrono::seconds(5));
  std::string text(reply.begin(), reply.end());
  size_t semicolon = text.find(';');
  auto parse = [](const std::string &list, std::vector<int> &ranks) {
    ranks.clear();
    for (size_t at = 0, comma; (comma = list.find(',', at)) != std::string::npos; at = comma + 1)
      ranks.push_back(std::atoi(list.c_str() + at));
  };
  parse(text.substr(0, semicolon), lost);
  parse(semicolon == std::string::npos ? "" : text.substr(semicolon + 1), left);
}

void TcpStore::close(bool waitForTheOthers) {
  try {
    request(Bye, "", {}, std::chrono::seconds(5));
  } catch (const DistributedError &) {
    // Rank 0 has gone: there is nobody to tell.
  }
  if (server_ && waitForTheOthers)
    server_->waitForEveryRankToLeave(timeout_);
  server_.reset();
}
