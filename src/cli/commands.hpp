#pragma once
// One function per subcommand: registers its options on the main app and returns the action to run.
#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace hyalign::cli {

using Action = std::function<void()>;
// A command that writes one file for later runs (an index, a database): in a job of several MPI
// ranks only rank 0 runs it, since every rank would write the same file.
Action on_rank_zero(Action action);

// `command_line` is the whole invocation, for logs.
void add_papara_command(CLI::App& app, Action& action, const std::string& command_line);
void add_search_command(CLI::App& app, Action& action);
void add_mem_command(CLI::App& app, Action& action);
void add_map_command(CLI::App& app, Action& action, const std::string& command_line);
// The arguments with MUMmer's single-dash words (-mum, -maxmatch, ...) of `hyalign mem` as the
// --words CLI11 reads.
std::vector<std::string> mummer_style_arguments(int argc, char** argv);

}  // namespace hyalign::cli
