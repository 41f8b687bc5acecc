//===- OnceCache.h - made once per key, shared by every thread ---*- C++ -*-===//
//
// Part of ember's Support layer. The policy of ember's in-memory compile
// caches (traced functions, tape derivatives): the first caller of a key
// makes its value while later callers of the same key wait for it and share
// it; a make that throws is not cached (every waiter gets its exception and
// the next caller makes it again); hits and misses are counted. Different
// keys are made concurrently: no lock is held while a value is made.
// Published values are never removed, so a reference stays valid for the
// cache's life.
//
// Header-only; the exception passing needs -fexceptions where it is used
// (the front-end libraries).
//
//===----------------------------------------------------------------------===//
#ifndef EMBER_SUPPORT_ONCECACHE_H
#define EMBER_SUPPORT_ONCECACHE_H

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ember::support {

/// The hash of signature words (the keys of ember's compile caches: dtypes
/// and dims, attributes, devices as int64 words), one for every cache. Each
/// word is mixed with its position on its own, so that the multiplies run
/// side by side; only the sum is a chain (one add a word).
constexpr uint64_t hashWords(const int64_t *words, size_t count) {
  uint64_t h = 0x9e3779b97f4a7c15ull * (count + 1);
  for (size_t i = 0; i < count; ++i) {
    uint64_t x = static_cast<uint64_t>(words[i]) + (i + 1) * 0xc2b2ae3d27d4eb4full;
    h += (x ^ (x >> 31)) * 0xff51afd7ed558ccdull;
  }
  h ^= h >> 32;
  h *= 0x94d049bb133111ebull;
  return h ^ (h >> 29);
}

struct WordsHash {
  size_t operator()(const std::vector<int64_t> &words) const {
    return static_cast<size_t>(hashWords(words.data(), words.size()));
  }
};

struct OnceCacheStats {
  uint64_t hits = 0;     ///< calls served by a value made before (or being made)
  uint64_t misses = 0;   ///< calls that made the value (successfully or not)
  uint64_t failures = 0; ///< ... of which threw
};

template <typename Key, typename Value, typename Hash = std::hash<Key>,
          typename Equal = std::equal_to<Key>>
class OnceCache {
public:
  /// The value for `key`: published, or being made by another thread (waited
  /// for), or made here by `make()`, which returns a Value or throws. `made`,
  /// when given, tells whether this call made it. `key` may be a LookupKey
  /// that Hash and Equal take beside Key (transparent) and Key is made from
  /// on a miss, so that a hit allocates nothing.
  template <typename LookupKey = Key, typename Make>
  const Value &getOrMake(const LookupKey &key, Make &&make, bool *made = nullptr) {
    if (made)
      *made = false;
    std::shared_ptr<Slot> slot;
    {
      std::shared_lock<std::shared_mutex> lock(mutex_);
      if (auto it = slots_.find(key); it != slots_.end()) {
        if (it->second->ready.load(std::memory_order_acquire)) {
          hits_.fetch_add(1, std::memory_order_relaxed);
          return *it->second->value; // the steady state
        }
        slot = it->second;
      }
    }
    bool makeHere = false;
    if (!slot) {
      std::unique_lock<std::shared_mutex> lock(mutex_);
      auto it = slots_.find(key);
      if (it == slots_.end()) {
        it = slots_.emplace(Key(key), std::make_shared<Slot>()).first;
        makeHere = true;
      }
      slot = it->second;
    }
    if (!makeHere) { // another thread makes this key's value: wait for it
      slot->done.wait();
      if (slot->error)
        std::rethrow_exception(slot->error);
      hits_.fetch_add(1, std::memory_order_relaxed);
      return *slot->value;
    }
    misses_.fetch_add(1, std::memory_order_relaxed);
    if (made)
      *made = true;
    try {
      slot->value.emplace(make());
    } catch (...) {
      failures_.fetch_add(1, std::memory_order_relaxed);
      slot->error = std::current_exception();
      {
        std::unique_lock<std::shared_mutex> lock(mutex_);
        if (auto it = slots_.find(key); it != slots_.end())
          slots_.erase(it);
      }
      slot->finished.set_value();
      throw;
    }
    slot->ready.store(true, std::memory_order_release);
    slot->finished.set_value();
    return *slot->value;
  }

  /// The published value for `key` and its stored key (counted as a hit),
  /// or two nulls when there is none yet. Both stay valid for the cache's
  /// life, so a caller may keep them in a front cache of its own.
  template <typename LookupKey = Key>
  std::pair<const Key *, const Value *> findPublished(const LookupKey &key) {
    std::shared_lock<std::shared_mutex> lock(mutex_);
    auto it = slots_.find(key);
    if (it == slots_.end() || !it->second->ready.load(std::memory_order_acquire))
      return {nullptr, nullptr};
    hits_.fetch_add(1, std::memory_order_relaxed);
    return {&it->first, &*it->second->value};
  }

  /// How many keys have a value published or being made.
  size_t size() const {
    std::shared_lock<std::shared_mutex> lock(mutex_);
    return slots_.size();
  }

  OnceCacheStats stats() const {
    return {hits_.load(std::memory_order_relaxed), misses_.load(std::memory_order_relaxed),
            failures_.load(std::memory_order_relaxed)};
  }

private:
  struct Slot {
    std::atomic<bool> ready{false};
    std::optional<Value> value; ///< set before `ready` and `done`
    std::exception_ptr error;   ///< set before `done` when the make threw
    std::promise<void> finished;
    std::shared_future<void> done = finished.get_future().share();
  };

  /// Shared to look a key up, exclusive to add or drop a slot; never held
  /// while a value is made.
  mutable std::shared_mutex mutex_;
  std::unordered_map<Key, std::shared_ptr<Slot>, Hash, Equal> slots_;
  std::atomic<uint64_t> hits_{0}, misses_{0}, failures_{0};
};

} // namespace ember::support

#endif // EMBER_SUPPORT_ONCECACHE_H
