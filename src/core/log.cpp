#include "core/log.hpp"

#include <sys/resource.h>
#include <unistd.h>

namespace hyalign {

Log& Log::instance() {
  static Log log;
  return log;
}

void Log::set_copy(Sink sink) {
  std::lock_guard lock(mutex_);
  copy_ = std::move(sink);
}

void Log::message(std::string_view text) { write(fmt::format("{}\n", text), 3); }

void Log::warning(std::string_view text) { write(fmt::format("warning: {}\n", text), 2); }

// The copy gets every line; stderr those of the verbosity asked for.
void Log::write(std::string_view line, int level) {
  std::lock_guard lock(mutex_);
  // stderr is where errors are reported, so a failed write there has nowhere to go: ignored.
  if (!quiet_ && verbosity_ >= level) std::fwrite(line.data(), 1, line.size(), stderr);
  if (copy_) {
    try {
      copy_(line);
    } catch (...) {
      copy_ = {};
    }
  }
}

double peak_memory_mib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

Progress::Progress(std::string label, std::size_t total)
    : label_(std::move(label)), total_(total), start_(std::chrono::steady_clock::now()),
      enabled_(isatty(STDERR_FILENO) != 0) {}

Progress::~Progress() {
  if (enabled_) std::fputs("\r\033[K", stderr);
}

void Progress::advance(std::size_t n) {
  std::size_t done = done_.fetch_add(n) + n;
  if (!enabled_) return;
  auto now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start_).count();
  auto last = last_draw_ms_.load();
  if (now_ms - last < 200 && done != total_) return;
  if (last_draw_ms_.compare_exchange_strong(last, now_ms)) draw(done);
}

void Progress::draw(std::size_t done) {
  double seconds = static_cast<double>(last_draw_ms_.load()) / 1000.0;
  const std::string line =
      fmt::format("\r{}: {}/{} ({:.0f}%) {:.1f}s", label_, done, total_,
                  total_ ? 100.0 * static_cast<double>(done) / static_cast<double>(total_) : 100.0, seconds);
  std::fwrite(line.data(), 1, line.size(), stderr);
  std::fflush(stderr);
}

}  // namespace hyalign
