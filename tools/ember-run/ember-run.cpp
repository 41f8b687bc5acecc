//===- ember-run.cpp - start the ranks of a data-parallel program ---------===//
//
// As torchrun and horovodrun: starts N processes of a program on this
// machine with RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR
// and MASTER_PORT set (what ember::distributed::init_process_group reads),
// prefixes every line they print with their rank, forwards SIGINT, SIGTERM
// and SIGHUP to them, and when one fails stops the others (after a grace
// period in which they may report the failure themselves) and exits with
// the failed rank's status.
//
//   ember-run -n 2 ./train --epochs 3
//   ember-run -n 4 --nnodes 2 --node-rank 0 --master-addr 10.0.0.1 --master-port 29500 ./train
//
// Plain POSIX: it links nothing of ember.
//
//===----------------------------------------------------------------------===//

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

namespace {

const char *const kUsage =
    "usage: ember-run -n N [options] program [args...]\n"
    "Starts N ranks of program on this machine (as torchrun).\n"
    "  -n, --nproc-per-node N  processes on this machine\n"
    "  --nnodes M              machines in the job (default 1)\n"
    "  --node-rank K           this machine's index, 0..M-1 (default 0)\n"
    "  --master-addr HOST      where rank 0 serves the rendezvous store (default 127.0.0.1)\n"
    "  --master-port PORT      its port (default: a free port; set it with --nnodes > 1)\n"
    "  --grace-period SECONDS  after a rank fails, how long the others may take to stop\n"
    "                          on their own before SIGTERM, then as long before SIGKILL\n"
    "                          (default 5)\n"
    "  --no-prefix             print the ranks' output without the \"[rankN]: \" prefix\n";

struct Rank {
  int rank = 0;
  pid_t pid = -1;
  int out = -1, err = -1; // read ends of its stdout and stderr
  std::string outLine, errLine;
  bool exited = false;
  int status = 0;
};

volatile sig_atomic_t pendingSignal = 0;
void onSignal(int signal) { pendingSignal = signal; }

// Ranks reaped the moment they end (SIGCHLD), in the order they ended: the
// first failure is the cause, the others' failures its consequence (a rank
// that exits after reporting a lost peer must not be blamed for it).
constexpr int kMaxReaped = 1 << 16;
pid_t reapedPids[kMaxReaped];
int reapedStatuses[kMaxReaped];
std::atomic<int> reapedCount{0};
void onChild(int) {
  int saved = errno, status;
  for (pid_t pid; reapedCount.load() < kMaxReaped && (pid = ::waitpid(-1, &status, WNOHANG)) > 0;) {
    int at = reapedCount.load();
    reapedPids[at] = pid;
    reapedStatuses[at] = status;
    reapedCount.store(at + 1);
  }
  errno = saved;
}

double now() {
  timespec time;
  clock_gettime(CLOCK_MONOTONIC, &time);
  return time.tv_sec + time.tv_nsec * 1e-9;
}

/// A port nothing listens on now (the store binds it a moment later).
int freePort() {
  int socket = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  if (socket < 0 || ::bind(socket, reinterpret_cast<sockaddr *>(&address), sizeof address) < 0 ||
      ::getsockname(socket, reinterpret_cast<sockaddr *>(&address), &length) < 0) {
    std::perror("ember-run: cannot find a free port");
    std::exit(2);
  }
  ::close(socket);
  return ntohs(address.sin_port);
}

std::string describeStatus(int status) {
  if (WIFEXITED(status))
    return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status))
    return "was killed by signal " + std::to_string(WTERMSIG(status)) + " (" +
           strsignal(WTERMSIG(status)) + ")";
  return "stopped";
}

bool failed(int status) { return !WIFEXITED(status) || WEXITSTATUS(status) != 0; }

/// Writes every whole line of `pending` (and, at the end, the rest) with the prefix.
void flushLines(std::string &pending, FILE *to, const std::string &prefix, bool end) {
  size_t newline;
  while ((newline = pending.find('\n')) != std::string::npos) {
    std::fprintf(to, "%s%.*s\n", prefix.c_str(), static_cast<int>(newline), pending.data());
    pending.erase(0, newline + 1);
  }
  if (end && !pending.empty()) {
    std::fprintf(to, "%s%s\n", prefix.c_str(), pending.c_str());
    pending.clear();
  }
  std::fflush(to);
}

int integerArgument(const char *flag, const char *text) {
  char *end = nullptr;
  long value = text ? std::strtol(text, &end, 10) : -1;
  if (!text || *end != '\0' || value < 0 || value > 1 << 20) {
    std::fprintf(stderr, "ember-run: %s needs a non-negative integer, not '%s'\n%s", flag,
                 text ? text : "", kUsage);
    std::exit(2);
  }
  return static_cast<int>(value);
}

} // namespace

int main(int argc, char **argv) {
  int processes = 0, nodes = 1, nodeRank = 0, port = -1;
  double grace = 5;
  std::string address = "127.0.0.1";
  bool prefix = true;
  int at = 1;
  for (; at < argc && argv[at][0] == '-'; ++at) {
    std::string flag = argv[at];
    const char *value = at + 1 < argc ? argv[at + 1] : nullptr;
    if (flag == "-h" || flag == "--help") {
      std::fputs(kUsage, stdout);
      return 0;
    } else if (flag == "--no-prefix") {
      prefix = false;
      continue;
    } else if (flag == "--") {
      ++at;
      break;
    } else if (flag == "-n" || flag == "--nproc-per-node") {
      processes = integerArgument(flag.c_str(), value);
    } else if (flag == "--nnodes") {
      nodes = integerArgument(flag.c_str(), value);
    } else if (flag == "--node-rank") {
      nodeRank = integerArgument(flag.c_str(), value);
    } else if (flag == "--master-port") {
      port = integerArgument(flag.c_str(), value);
    } else if (flag == "--master-addr" && value) {
      address = value;
    } else if (flag == "--grace-period") {
      grace = integerArgument(flag.c_str(), value);
    } else {
      std::fprintf(stderr, "ember-run: unknown option '%s'\n%s", flag.c_str(), kUsage);
      return 2;
    }
    ++at;
  }
  if (processes < 1 || nodes < 1 || nodeRank >= nodes || at >= argc || port > 65535) {
    std::fprintf(stderr, "ember-run: %s\n%s",
                 at >= argc      ? "no program given"
                 : processes < 1 ? "-n N (N >= 1) is required"
                 : nodes < 1     ? "--nnodes must be at least 1"
                 : port > 65535  ? "--master-port must be at most 65535"
                                 : "--node-rank must be less than --nnodes",
                 kUsage);
    return 2;
  }
  if (port < 0) {
    if (nodes > 1) {
      std::fprintf(stderr, "ember-run: with --nnodes > 1, give every machine the same "
                           "--master-port\n");
      return 2;
    }
    port = freePort();
  }

  struct sigaction action {};
  action.sa_handler = onSignal;
  sigemptyset(&action.sa_mask);
  for (int signal : {SIGINT, SIGTERM, SIGHUP})
    sigaction(signal, &action, nullptr);
  struct sigaction child {};
  child.sa_handler = onChild;
  sigemptyset(&child.sa_mask);
  child.sa_flags = SA_NOCLDSTOP;
  sigaction(SIGCHLD, &child, nullptr);
  std::signal(SIGPIPE, SIG_IGN);

  std::vector<Rank> ranks(processes);
  // A launch that fails half way stops the ranks already started.
  auto abandon = [&](const char *what) {
    std::perror(what);
    for (Rank &r : ranks)
      if (r.pid > 0)
        ::kill(-r.pid, SIGKILL);
    for (Rank &r : ranks) // reaped here or by onChild
      while (r.pid > 0 && ::waitpid(r.pid, nullptr, 0) < 0 && errno == EINTR) {
      }
    return 2;
  };
  for (int local = 0; local < processes; ++local) {
    Rank &r = ranks[local];
    r.rank = nodeRank * processes + local;
    int out[2], err[2];
    if (::pipe2(out, O_CLOEXEC) < 0 || ::pipe2(err, O_CLOEXEC) < 0)
      return abandon("ember-run: pipe");
    r.pid = ::fork();
    if (r.pid < 0)
      return abandon("ember-run: fork");
    if (r.pid == 0) {
      ::setpgid(0, 0); // its own process group: signals reach its children too
      ::dup2(out[1], 1);
      ::dup2(err[1], 2);
      for (int signal : {SIGINT, SIGTERM, SIGHUP, SIGPIPE})
        std::signal(signal, SIG_DFL);
      auto set = [](const char *name, const std::string &value) {
        ::setenv(name, value.c_str(), 1);
      };
      set("RANK", std::to_string(r.rank));
      set("WORLD_SIZE", std::to_string(nodes * processes));
      set("LOCAL_RANK", std::to_string(local));
      set("LOCAL_WORLD_SIZE", std::to_string(processes));
      set("GROUP_RANK", std::to_string(nodeRank));
      set("MASTER_ADDR", address);
      set("MASTER_PORT", std::to_string(port));
      ::execvp(argv[at], argv + at);
      std::fprintf(stderr, "ember-run: cannot run '%s': %s\n", argv[at], std::strerror(errno));
      ::_exit(127);
    }
    ::setpgid(r.pid, r.pid);
    ::close(out[1]);
    ::close(err[1]);
    r.out = out[0];
    r.err = err[0];
  }

  int firstFailure = -1; // index into ranks
  double failedAt = 0;
  int termSent = 0; // 0, then SIGTERM, then SIGKILL
  int handled = 0;  // entries of reapedPids seen
  // A rank's process group, while it runs or something it started still
  // holds its output.
  auto signalAll = [&](int signal) {
    for (Rank &r : ranks)
      if (!r.exited || r.out >= 0 || r.err >= 0)
        ::kill(-r.pid, signal);
  };
  while (true) {
    if (pendingSignal) {
      signalAll(pendingSignal);
      pendingSignal = 0;
    }
    // Output.
    std::vector<pollfd> polled;
    std::vector<std::pair<Rank *, bool>> owners; // rank, is stderr
    for (Rank &r : ranks) {
      if (r.out >= 0)
        polled.push_back({r.out, POLLIN, 0}), owners.push_back({&r, false});
      if (r.err >= 0)
        polled.push_back({r.err, POLLIN, 0}), owners.push_back({&r, true});
    }
    if (!polled.empty())
      ::poll(polled.data(), polled.size(), 50);
    else
      ::usleep(20000);
    for (size_t i = 0; i < polled.size(); ++i) {
      if (!(polled[i].revents & (POLLIN | POLLHUP | POLLERR)))
        continue;
      auto [r, isErr] = owners[i];
      char buffer[65536];
      ssize_t got = ::read(polled[i].fd, buffer, sizeof buffer);
      if (got < 0 && errno == EINTR)
        continue;
      std::string &pending = isErr ? r->errLine : r->outLine;
      std::string label = prefix ? "[rank" + std::to_string(r->rank) + "]: " : "";
      if (got <= 0) {
        flushLines(pending, isErr ? stderr : stdout, label, true);
        ::close(polled[i].fd);
        (isErr ? r->err : r->out) = -1;
      } else {
        pending.append(buffer, static_cast<size_t>(got));
        flushLines(pending, isErr ? stderr : stdout, label, false);
      }
    }
    // Exits, in the order they happened.
    for (int count = reapedCount.load(); handled < count; ++handled)
      for (Rank &r : ranks)
        if (r.pid == reapedPids[handled] && !r.exited) {
          int status = reapedStatuses[handled];
          r.exited = true;
          r.status = status;
          if (failed(status) && firstFailure < 0) {
            firstFailure = static_cast<int>(&r - ranks.data());
            failedAt = now();
            std::fprintf(stderr, "ember-run: rank %d (pid %d) %s\n", r.rank, r.pid,
                         describeStatus(status).c_str());
          }
        }
    bool running = false;
    for (Rank &r : ranks)
      running |= !r.exited || r.out >= 0 || r.err >= 0;
    if (!running)
      break;
    if (firstFailure >= 0 && termSent < 3 && now() - failedAt > grace * (termSent + 1)) {
      if (termSent < 2) {
        signalAll(termSent == 0 ? SIGTERM : SIGKILL);
      } else { // a grace period after SIGKILL: stop waiting for output nobody may close
        for (Rank &r : ranks)
          for (int *fd : {&r.out, &r.err})
            if (*fd >= 0) {
              ::close(*fd);
              *fd = -1;
            }
      }
      ++termSent;
    }
  }

  if (firstFailure < 0)
    return 0;
  std::string others;
  for (Rank &r : ranks)
    if (&r != &ranks[firstFailure])
      others += " " + std::to_string(r.rank) + " (" + describeStatus(r.status) + ")";
  std::fprintf(stderr, "ember-run: rank %d failed first; the others:%s\n", ranks[firstFailure].rank,
               others.empty() ? " none" : others.c_str());
  int status = ranks[firstFailure].status;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
