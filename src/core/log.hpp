#pragma once
// Logging to stderr (and optionally a copy to a log file), plus a progress line for long runs.
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>

#include <fmt/format.h>

namespace hyalign {

class Log {
 public:
  static Log& instance();
  void set_quiet(bool quiet) { quiet_ = quiet; }
  // bwa's -v scale: 1 errors only (they are not logged here), 2 warnings too, 3 and up every message.
  void set_verbosity(int level) { verbosity_ = level; }
  // Also hand every message, with its newline, to this sink (PaPaRa's papara_log.NAME); an empty
  // function stops it. A sink that throws is dropped, so logging never fails: its owner reports
  // the failure (an AtomicOutput does, when it is finished).
  using Sink = std::function<void(std::string_view)>;
  void set_copy(Sink sink);
  void message(std::string_view text);
  void warning(std::string_view text);

 private:
  void write(std::string_view line, int level);
  std::mutex mutex_;
  Sink copy_;
  bool quiet_ = false;
  int verbosity_ = 3;
};

template <typename... Args>
void log_info(fmt::format_string<Args...> format, Args&&... args) {
  Log::instance().message(fmt::format(format, std::forward<Args>(args)...));
}
template <typename... Args>
void log_warning(fmt::format_string<Args...> format, Args&&... args) {
  Log::instance().warning(fmt::format(format, std::forward<Args>(args)...));
}

// Peak resident memory of this process so far, in MiB (for the closing log line of a run).
double peak_memory_mib();

// Seconds between laps, for the phase times a run logs.
class Stopwatch {
 public:
  double lap() {
    const auto now = std::chrono::steady_clock::now();
    const double s = std::chrono::duration<double>(now - last_).count();
    last_ = now;
    return s;
  }

 private:
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

// Thread-safe "done/total" counter that redraws one stderr line at most a few times a second,
// only when stderr is a terminal.
class Progress {
 public:
  Progress(std::string label, std::size_t total);
  ~Progress();
  void advance(std::size_t n = 1);

 private:
  void draw(std::size_t done);
  std::string label_;
  std::size_t total_;
  std::atomic<std::size_t> done_{0};
  std::atomic<std::int64_t> last_draw_ms_{0};
  std::chrono::steady_clock::time_point start_;
  bool enabled_;
};

}  // namespace hyalign
