#pragma once
// Shared by the libFuzzer targets: inputs reach the parsers as files (every parser reads paths),
// kept in one in-memory file per process; the errors a parser may throw for bad input are expected,
// anything else (another exception, a sanitizer report, a crash) is a finding.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "core/error.hpp"

namespace hyalign::fuzz {

// The path of an in-memory file that holds exactly `data`.
inline std::string as_file(std::string_view data) {
  static const int fd = [] {
    const int f = memfd_create("hyalign-fuzz", 0);
    if (f < 0) std::abort();
    return f;
  }();
  if (ftruncate(fd, 0) != 0 || pwrite(fd, data.data(), data.size(), 0) != static_cast<ssize_t>(data.size()))
    std::abort();
  return "/proc/self/fd/" + std::to_string(fd);
}

// Runs `parse`, swallowing the errors that bad input is meant to give.
template <typename Fn>
int expect_clean_errors(Fn&& parse) {
  try {
    parse();
  } catch (const InputError&) {
  } catch (const UsageError&) {
  }
  return 0;
}

inline std::string_view bytes(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

}  // namespace hyalign::fuzz
