#pragma once
// The simplest work queue: items 0..count-1 handed out one at a time through an atomic counter to
// `threads` workers. fn(item, worker) must only write to memory owned by its item or its worker.
// The first exception thrown by any worker is rethrown in the caller after all workers stop. If the
// system refuses a thread (a process or memory limit), the work runs on the threads it has.
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace hyalign {

template <typename Fn>
void parallel_for(std::size_t count, unsigned threads, Fn&& fn) {
  threads = std::max(1u, std::min<unsigned>(threads, static_cast<unsigned>(std::max<std::size_t>(count, 1))));
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr error;
  std::mutex error_mutex;
  auto work = [&](unsigned worker) {
    try {
      for (std::size_t i; !failed.load(std::memory_order_relaxed) && (i = next.fetch_add(1)) < count;) fn(i, worker);
    } catch (...) {
      std::lock_guard lock(error_mutex);
      if (!error) error = std::current_exception();
      failed = true;
    }
  };
  if (threads == 1) {
    work(0);
  } else {
    std::vector<std::jthread> pool;
    pool.reserve(threads - 1);
    try {
      for (unsigned w = 1; w < threads; ++w) pool.emplace_back(work, w);
    } catch (const std::system_error&) {  // fewer threads, same result
    }
    work(0);
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace hyalign
