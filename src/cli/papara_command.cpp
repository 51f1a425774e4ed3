#include <charconv>
#include <memory>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "core/error.hpp"
#include "papara/papara.hpp"

namespace hyalign::cli {
namespace {

// Each scoring value's bound: with alignments of up to 10^5 columns every DP value stays far
// inside 32 bits.
constexpr int kMaxScoringMagnitude = 1000;

kernels::PaparaScoring parse_scoring(const std::string& text) {
  kernels::PaparaScoring s;
  int* fields[] = {&s.gap_open, &s.gap_extend, &s.match, &s.match_cgap};
  const char* p = text.data();
  const char* end = text.data() + text.size();
  for (std::size_t k = 0; k < 4; ++k) {
    auto [next, ec] = std::from_chars(p, end, *fields[k]);
    const bool last = k == 3;
    if (ec != std::errc() || (last ? next != end : (next == end || *next != ':')))
      throw UsageError(fmt::format("-p '{}': expected open:extend:match:match_cgap, four integers", text));
    if (*fields[k] < -kMaxScoringMagnitude || *fields[k] > kMaxScoringMagnitude)
      throw UsageError(fmt::format("-p '{}': {} is out of range ({}..{})", text, *fields[k], -kMaxScoringMagnitude,
                                   kMaxScoringMagnitude));
    p = next + 1;
  }
  return s;
}

}  // namespace

void add_papara_command(CLI::App& app, Action& action, const std::string& command_line) {
  auto* cmd = app.add_subcommand("papara",
                                 "Align queries to a reference alignment along a reference tree (PaPaRa 2.x)");
  auto options = std::make_shared<papara::PaparaOptions>();
  auto queries = std::make_shared<std::string>();
  auto scoring = std::make_shared<std::string>();
  auto format = std::make_shared<std::string>();
  auto protein = std::make_shared<bool>(false);
  auto rule_gaps = std::make_shared<bool>(false);
  auto fasta = std::make_shared<bool>(false);
  auto threads = std::make_shared<unsigned>(0);
  auto kernel = std::make_shared<std::string>("auto");
  auto device = std::make_shared<std::string>("auto");

  cmd->add_option("-t,--tree", options->inputs.tree, "Reference tree (Newick; rooted trees are unrooted)")
      ->required();
  cmd->add_option("-s,--ref", options->inputs.alignment,
                  "Reference alignment (PHYLIP or FASTA); rows not in the tree are aligned as queries")
      ->required();
  cmd->add_option("-q,--queries", *queries, "Query sequences (FASTA/FASTQ, may be gzipped)");
  cmd->add_flag("-a,--protein", *protein, "Protein data (default DNA)");
  cmd->add_option("-j,--threads", *threads, "Worker threads, PaPaRa's -j (0 = all cores; -t is the tree here)")
      ->capture_default_str();
  cmd->add_option("-n,--name", options->run_name,
                  "Run name: writes papara_alignment.NAME, papara_log.NAME, papara_quality.NAME")
      ->check(CLI::Validator(
          [](const std::string& name) -> std::string {
            if (name.empty() || name == "." || name == "..") return "the run name '" + name + "' names no file";
            return "";
          },
          "NAME"))
      ->capture_default_str();
  cmd->add_flag("-r,--no-ref-gaps", options->no_reference_gaps,
                "Do not add columns for query insertions (inserted residues are dropped)");
  cmd->add_option("-p,--scoring", *scoring, "Scoring open:extend:match:match_cgap (default -3:-1:2:-3)");
  cmd->add_flag("-c,--rule-gaps", *rule_gaps, "Rule-based gap signal (PaPaRa 1.0 CGAP) instead of the probabilistic one");
  cmd->add_flag("-g,--fasta", *fasta, "Write FASTA instead of PHYLIP");
  cmd->add_option("--format", *format, "Output format")->check(CLI::IsMember({"phylip", "fasta"}));
  cmd->add_option("--kernel", *kernel, "CPU scoring kernel: auto, scalar, avx2, avx512")
      ->check(CLI::IsMember({"auto", "scalar", "avx2", "avx512"}))
      ->capture_default_str();
  add_device_option(*cmd, *device);
  cmd->add_flag("-f,--force", options->force, "Overwrite the files of an existing run name");
  cmd->add_option("-o,--out", options->out, "Write the alignment here ('-' = stdout) instead of PaPaRa's files");

  cmd->callback([=, &action] {
    if (!queries->empty()) options->inputs.queries = *queries;
    options->alphabet = *protein ? AlphabetKind::protein : AlphabetKind::dna;
    options->gap_model = *rule_gaps ? papara::GapModel::rule_based : papara::GapModel::probabilistic;
    if (!scoring->empty()) options->scoring = parse_scoring(*scoring);
    options->format = (*fasta || *format == "fasta") ? AlignmentFormat::fasta : AlignmentFormat::phylip;
    options->threads = worker_threads(*threads, "-j");
    options->kernel = engine::parse_kernel_choice(*kernel);
    options->device = engine::parse_device_choice(*device);
    options->command_line = command_line;
    action = [options] { papara::run_papara(*options); };
  });
}

}  // namespace hyalign::cli
