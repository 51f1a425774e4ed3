#pragma once
// One function per subcommand: registers its options on the main app and returns the action to run.
#include <functional>
#include <string>

#include <CLI/CLI.hpp>

namespace hyalign::cli {

using Action = std::function<void()>;

// `command_line` is the whole invocation, for logs.
void add_papara_command(CLI::App& app, Action& action, const std::string& command_line);
void add_search_command(CLI::App& app, Action& action);

}  // namespace hyalign::cli
