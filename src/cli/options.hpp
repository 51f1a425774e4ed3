#pragma once
// Option checks shared by the subcommands.
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

namespace hyalign::cli {

// Worker threads for -t/-j: 0 means every hardware thread (with several MPI ranks on a node, the
// rank's share of them); more than kMaxThreadsPerCore per hardware thread is capped there with a
// notice (more only adds contention, and the OS would refuse them long before the ask reached a
// six-digit count).
inline constexpr unsigned kMaxThreadsPerCore = 4;
unsigned worker_threads(unsigned requested, std::string_view flag);

// A number in [low, high]; unlike CLI::Range, NaN is refused (no comparison with it is true).
CLI::Validator number_in(double low, double high);

// --device on every command: which processors do the work ("auto" by default, `help` says what it
// means there; the command's callback reads it with engine::parse_device_choice).
void add_device_option(CLI::App& cmd, std::string& device,
                       const std::string& help = "Devices: auto (every usable GPU plus the CPU cores), cpu, gpu (GPUs "
                                                 "only), all");

}  // namespace hyalign::cli
