#include "cli/options.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "core/log.hpp"
#include "dist/job.hpp"

namespace hyalign::cli {

unsigned worker_threads(unsigned requested, std::string_view flag) {
  const unsigned hardware = dist::hardware_threads();  // with several ranks on a node, a share of them
  if (requested == 0) return hardware;
  const unsigned cap = hardware * kMaxThreadsPerCore;
  if (requested <= cap) return requested;
  log_info("notice: {} {} is more than {} threads per hardware thread ({} here); using {}", flag, requested,
           kMaxThreadsPerCore, hardware, cap);
  return cap;
}

Action on_rank_zero(Action action) {
  if (dist::writes_output()) return action;
  return [] {};
}

CLI::Validator number_in(double low, double high) {
  return CLI::Validator(
      [low, high](std::string& text) -> std::string {
        double value = 0;
        if (!CLI::detail::lexical_cast(text, value)) return fmt::format("'{}' is not a number", text);
        if (!(value >= low && value <= high)) return fmt::format("{} is not in {}..{}", text, low, high);
        return "";
      },
      fmt::format("NUMBER in {}..{}", low, high));
}

void add_device_option(CLI::App& cmd, std::string& device, const std::string& help) {
  cmd.add_option("--device", device, help)
      ->check(CLI::IsMember({"auto", "cpu", "gpu", "all"}))
      ->capture_default_str();
}

}  // namespace hyalign::cli
