// hyalign: sequence alignment on every processor in the box.
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <optional>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli/commands.hpp"
#include "core/error.hpp"
#include "dist/job.hpp"
#include "engine/devices.hpp"
#include "hyalign/version.hpp"

namespace {

constexpr std::chrono::milliseconds kOtherRanksReportAfter{1500};

int report(const char* kind, const char* what, int code) {
  // An error every rank meets (an option, a missing or damaged input) is reported once: rank 0's
  // report ends the job (dist::abort_job) before the others', held back a moment, are written.
  if (hyalign::dist::size() > 1 && hyalign::dist::rank() != 0) std::this_thread::sleep_for(kOtherRanksReportAfter);
  std::fprintf(stderr, "hyalign: %s: %s%s\n", kind, hyalign::dist::error_prefix().c_str(), what);
  return code;
}

// Help and version text go to standard output: a failed write there is an error too.
int close_stdout(int code) {
  const bool failed_before = std::ferror(stdout);
  errno = 0;
  if ((std::fclose(stdout) != 0 || failed_before) && code == 0)
    return report("error", (std::string("standard output: cannot write: ") + std::strerror(errno ? errno : EIO)).c_str(), 1);
  return code;
}

int run(int argc, char** argv) {
  std::string command_line;
  for (int i = 0; i < argc; ++i) command_line += (i ? " " : "") + std::string(argv[i]);

  CLI::App app("hyalign: fast, exact sequence alignment on CPU SIMD and GPU", "hyalign");
  app.set_version_flag("--version", std::string("hyalign ") + hyalign::kVersion);
  app.require_subcommand(1);
  hyalign::cli::Action action;
  hyalign::cli::add_papara_command(app, action, command_line);
  hyalign::cli::add_search_command(app, action);
  hyalign::cli::add_mem_command(app, action);
#ifdef HYALIGN_HAVE_MAP
  hyalign::cli::add_map_command(app, action, command_line);
#endif
  // No tool, or one hyalign lacks: say which there are (CLI11 says only that one is required).
  std::string tools;
  bool known = false;
  for (const CLI::App* tool : app.get_subcommands([](CLI::App*) { return true; })) {
    tools += (tools.empty() ? "" : ", ") + tool->get_name();
    known |= argc > 1 && tool->get_name() == argv[1];
  }
  if (argc < 2) return report("error", fmt::format("name a tool: hyalign TOOL [options] ({})", tools).c_str(), 2);
  if (argv[1][0] != '-' && !known)
    return report("error", fmt::format("unknown tool '{}' (the tools: {})", argv[1], tools).c_str(), 2);
  try {
    std::vector<std::string> args = hyalign::cli::mummer_style_arguments(argc, argv);
    std::vector<char*> arg_pointers;
    for (auto& a : args) arg_pointers.push_back(a.data());
    app.parse(static_cast<int>(arg_pointers.size()), arg_pointers.data());
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {  // one line, as every error
    return report("error", (std::string(e.what()) + " (--help lists the options)").c_str(), 2);
  } catch (const std::exception& e) {
    return report("error", e.what(), 2);
  }
  try {
    if (action) action();
  } catch (const hyalign::InputError& e) {
    return report("error", e.what(), 1);
  } catch (const hyalign::OutputError& e) {
    return report("error", e.what(), 1);
  } catch (const hyalign::UsageError& e) {
    return report("error", e.what(), 2);
  } catch (const std::filesystem::filesystem_error& e) {  // a path that cannot be looked at
    return report("error", e.what(), 1);
  } catch (const std::bad_alloc&) {
    return report("error", "out of memory", 3);
  } catch (const std::system_error& e) {  // the system refused a resource (threads, handles)
    return report("error", (std::string("out of system resources: ") + e.what()).c_str(), 3);
  } catch (const std::exception& e) {
    return report("internal error", e.what(), 4);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // Past a file size limit (ulimit -f) a write then fails with EFBIG and is reported, instead of
  // the signal ending the process with a temporary file left behind.
  std::signal(SIGXFSZ, SIG_IGN);
  std::optional<hyalign::dist::Job> job;  // MPI, when mpirun or srun started this process
  try {
    job.emplace(argc, argv);
  } catch (const hyalign::UsageError& e) {
    return report("error", e.what(), 2);
  } catch (const std::exception& e) {
    return report("error", (std::string("cannot start the MPI job: ") + e.what()).c_str(), 3);
  }
  const int code = close_stdout(run(argc, argv));
  // A rank that failed ends the job: the others may wait for its units, and rank 0 must not put
  // an output in place without them (a signal makes rank 0 remove its temporary files).
  if (code != 0 && hyalign::dist::size() > 1) {
    std::fflush(stderr);
    hyalign::dist::abort_job(code);
  }
  job.reset();
  // A CUDA start that a small job did not wait for is not waited for now either: everything is
  // written and closed, and the system ends the CUDA start with the process.
  if (hyalign::engine::background_work_under_way()) {
    std::fflush(nullptr);
    std::_Exit(code);
  }
  return code;
}
