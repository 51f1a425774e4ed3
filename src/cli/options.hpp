#pragma once
// Option checks shared by the subcommands.
#include <string_view>

namespace hyalign::cli {

// Worker threads for -t/-j: 0 means every hardware thread; more than kMaxThreadsPerCore per
// hardware thread is capped there with a notice (more only adds contention, and the OS would
// refuse them long before the ask reached a six-digit count).
inline constexpr unsigned kMaxThreadsPerCore = 4;
unsigned worker_threads(unsigned requested, std::string_view flag);

}  // namespace hyalign::cli
