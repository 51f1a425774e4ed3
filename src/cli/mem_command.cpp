#include <algorithm>
#include <cctype>
#include <iterator>
#include <memory>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "index/index_file.hpp"
#include "mem/mem.hpp"

namespace hyalign::cli {
namespace {

// MUMmer spells its match kinds as single-dash words, which CLI11 reads only as --words.
constexpr std::string_view kMummerWords[] = {"-mum", "-mumreference", "-mumcand", "-maxmatch", "-help"};
// mem's options that take a value: the word after one is that value, not an option.
constexpr std::string_view kOptionsWithValues[] = {"-l", "-o", "--out", "-t", "--threads", "--device",
                                                   "--gpu-memory", "--batch-letters"};

constexpr std::uint32_t kMaxMinLength = 1u << 30;
constexpr std::size_t kMaxGpuMemoryMib = std::size_t{1} << 24;  // 16 TiB
constexpr std::size_t kMaxBatchLetters = std::size_t{1} << 36;

template <std::size_t N>
bool is_one_of(std::string_view arg, const std::string_view (&words)[N]) {
  return std::find(std::begin(words), std::end(words), arg) != std::end(words);
}

// A single-dash word of letters, such as -bogus: CLI11 would read it as one-letter options run
// together (-b -o gus, writing a file named gus), where mummer refuses it.
bool is_single_dash_word(std::string_view arg) {
  return arg.size() > 2 && arg[0] == '-' &&
         std::all_of(arg.begin() + 1, arg.end(), [](char c) { return std::isalpha(static_cast<unsigned char>(c)); });
}

}  // namespace

std::vector<std::string> mummer_style_arguments(int argc, char** argv) {
  std::vector<std::string> args(argv, argv + argc);
  if (argc < 2 || args[1] != "mem") return args;
  for (std::size_t i = 2; i < args.size() && args[i] != "--"; ++i) {  // after --, file names
    if (is_one_of(args[i - 1], kOptionsWithValues) || args[i].starts_with("-o")) continue;  // -oFILE: -o's value
    if (is_one_of(args[i], kMummerWords)) args[i] = "-" + args[i];
    else if (is_single_dash_word(args[i]))
      throw CLI::ParseError(args[i] + ": not an option of mem (MUMmer's options are words of their own: -mum, -b, "
                                      "-l 20, not run together)",
                            CLI::ExitCodes::ExtrasError);
  }
  return args;
}

void add_mem_command(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand(
      "mem",
      "Maximal exact matches of queries against a reference, as MUMmer 3.23's mummer (same options and output; "
      "the matches of a section are printed sorted by query position, reference position and length; under -mum by "
      "reference position, as mummer prints them)");
  auto options = std::make_shared<mem::MemOptions>();
  auto threads = std::make_shared<unsigned>(0);
  auto device = std::make_shared<std::string>("auto");
  auto kind = std::make_shared<std::string>("mumreference");
  auto both = std::make_shared<bool>(false), reverse_only = std::make_shared<bool>(false);

  // Checked in the callback: CLI11 fills required positionals before it looks for the `index`
  // subcommand.
  cmd->add_option("reference", options->reference, "Reference: FASTA (may be gzipped) or an index from 'mem index'");
  cmd->add_option("queries", options->queries, "Query files: FASTA/FASTQ, may be gzipped");
  auto* mum = cmd->add_flag_callback("--mum", [kind] { *kind = "mum"; },
                                     "-mum: matches unique in both the reference and the query");
  auto* mumref = cmd->add_flag_callback("--mumreference,--mumcand", [kind] { *kind = "mumreference"; },
                                        "-mumreference, -mumcand: matches unique in the reference (the default)");
  auto* maxmatch = cmd->add_flag_callback("--maxmatch", [kind] { *kind = "maxmatch"; },
                                          "-maxmatch: all maximal matches, unique or not");
  mum->excludes(mumref)->excludes(maxmatch);
  mumref->excludes(maxmatch);
  cmd->add_option("-l", options->params.min_length, "Minimum match length")
      ->check(CLI::Range(std::uint32_t{1}, kMaxMinLength))
      ->capture_default_str();
  cmd->add_flag("-n", options->params.bases_only, "Only a, c, g and t match (either case)");
  cmd->add_flag("-b", *both, "Forward and reverse-complement matches");
  auto* r = cmd->add_flag("-r", *reverse_only, "Reverse-complement matches only");
  cmd->get_option("-b")->excludes(r);
  cmd->add_flag("-c", options->forward_positions,
                "Reverse-complement matches at their query position on the forward strand");
  cmd->add_flag("-s", options->show_substrings, "Print each match's letters");
  cmd->add_flag("-F", options->reference_names, "4-column output (reference name first) for any reference");
  cmd->add_flag("-L", options->show_lengths, "Query lengths on the header lines");
  cmd->add_option("-o,--out", options->out, "Output file ('-' = stdout)")->capture_default_str();
  cmd->add_option("-t,--threads", *threads, "Worker threads (0 = all cores)")->capture_default_str();
  add_device_option(*cmd, *device,
                    "Devices: auto (the CPU cores alone for queries whose files' sizes show they take them well "
                    "under a second; else the GPUs and the cores match a batch together, and the faster matches the "
                    "rest), cpu, gpu (GPUs only), all (the GPUs once set up)");
  auto gpu_memory_mib = std::make_shared<std::size_t>(0);
  cmd->add_option("--gpu-memory", *gpu_memory_mib,
                  "MiB of each GPU the index may take (0 = what it has free); a suffix array that does not fit is "
                  "searched in pieces")
      ->check(CLI::Range(std::size_t{0}, kMaxGpuMemoryMib))
      ->capture_default_str();

  cmd->add_option("--batch-letters", options->batch_letters,
                  "Query letters per batch (0 = chosen from the output's size; about four a rank, of 1-8 Mi, "
                  "with several MPI ranks, which take the batches in turn)")
      ->check(CLI::Range(std::size_t{0}, kMaxBatchLetters))
      ->capture_default_str();

  auto* index = cmd->add_subcommand("index", "Build the index of a FASTA reference once, for later runs");
  auto index_input = std::make_shared<std::string>(), index_output = std::make_shared<std::string>();
  index->add_option("reference", *index_input, "Reference FASTA (may be gzipped)")->required();
  index->add_option("-o,--out", *index_output, "Index file to write (.hymi)")->required();
  index->add_option("-t,--threads", *threads, "Worker threads (0 = all cores)")->capture_default_str();
  index->callback([=, &action] {
    action = on_rank_zero(
        [=] { index::build_index_file(*index_input, *index_output, worker_threads(*threads, "-t")); });
  });

  cmd->callback([=, &action] {
    if (index->parsed()) return;  // its own callback sets the action
    if (options->reference.empty() || options->queries.empty())
      throw CLI::RequiredError("mem: a reference and a query file (or the index subcommand)");
    options->params.kind = *kind == "mum"        ? kernels::MemKind::mum
                           : *kind == "maxmatch" ? kernels::MemKind::maxmatch
                                                 : kernels::MemKind::mumreference;
    options->strands = *both ? mem::Strands::both : *reverse_only ? mem::Strands::reverse : mem::Strands::forward;
    if (options->forward_positions && options->strands == mem::Strands::forward)
      throw CLI::ValidationError("-c", "needs -b or -r (it places reverse-complement matches)");
    options->threads = worker_threads(*threads, "-t");
    options->device = engine::parse_device_choice(*device);
    options->gpu_memory = *gpu_memory_mib << 20;
    action = [options] { mem::run_mem(*options); };
  });
}

}  // namespace hyalign::cli
