// hyalign: sequence alignment on every processor in the box.
#include <cstdio>
#include <exception>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli/commands.hpp"
#include "core/error.hpp"
#include "hyalign/version.hpp"

int main(int argc, char** argv) {
  std::string command_line;
  for (int i = 0; i < argc; ++i) command_line += (i ? " " : "") + std::string(argv[i]);

  CLI::App app("hyalign: fast, exact sequence alignment on CPU SIMD and GPU", "hyalign");
  app.set_version_flag("--version", std::string("hyalign ") + hyalign::kVersion);
  app.require_subcommand(1);
  hyalign::cli::Action action;
  hyalign::cli::add_papara_command(app, action, command_line);
  hyalign::cli::add_search_command(app, action);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const std::exception& e) {
    fmt::print(stderr, "hyalign: error: {}\n", e.what());
    return 2;
  }
  try {
    if (action) action();
  } catch (const hyalign::InputError& e) {
    fmt::print(stderr, "hyalign: error: {}\n", e.what());
    return 1;
  } catch (const hyalign::UsageError& e) {
    fmt::print(stderr, "hyalign: error: {}\n", e.what());
    return 2;
  } catch (const std::bad_alloc&) {
    fmt::print(stderr, "hyalign: error: out of memory\n");
    return 3;
  } catch (const std::exception& e) {
    fmt::print(stderr, "hyalign: internal error: {}\n", e.what());
    return 4;
  }
  return 0;
}
