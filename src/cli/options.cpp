#include "cli/options.hpp"

#include <algorithm>
#include <thread>

#include "core/log.hpp"

namespace hyalign::cli {

unsigned worker_threads(unsigned requested, std::string_view flag) {
  const unsigned hardware = std::max(1u, std::thread::hardware_concurrency());
  if (requested == 0) return hardware;
  const unsigned cap = hardware * kMaxThreadsPerCore;
  if (requested <= cap) return requested;
  log_info("notice: {} {} is more than {} threads per hardware thread ({} here); using {}", flag, requested,
           kMaxThreadsPerCore, hardware, cap);
  return cap;
}

void add_device_option(CLI::App& cmd, std::string& device, const std::string& help) {
  cmd.add_option("--device", device, help)
      ->check(CLI::IsMember({"auto", "cpu", "gpu", "all"}))
      ->capture_default_str();
}

}  // namespace hyalign::cli
