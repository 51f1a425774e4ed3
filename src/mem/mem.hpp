#pragma once
// hyalign mem: maximal exact matches of query sequences against a reference, MUMmer 3.23's
// `mummer` output.
#include <optional>
#include <string>
#include <vector>

#include "engine/devices.hpp"
#include "kernels/mem_kernel.hpp"

namespace hyalign::mem {

enum class Strands { forward, both, reverse };

struct MemOptions {
  std::string reference;             // FASTA (plain or gzip) or an index file from `mem index`
  std::vector<std::string> queries;  // FASTA/FASTQ files, plain or gzip
  kernels::MemParams params;
  Strands strands = Strands::forward;
  bool forward_positions = false;  // -c: reverse matches' query positions on the forward strand
  bool show_substrings = false;     // -s
  bool reference_names = false;     // -F: the 4-column form even for a one-sequence reference
  bool show_lengths = false;        // -L
  std::string out = "-";
  unsigned threads = 1;
  engine::DeviceChoice device = engine::DeviceChoice::automatic;
  std::size_t gpu_memory = 0;  // bytes of each GPU the index may take (0: what it has free)
  std::size_t batch_letters = 0;  // query letters per batch (0: chosen from the output's size)
  // Bytes of output text formatted at a time; two such windows are held (one formatted while the
  // other is written), whatever a batch's matches.
  std::size_t output_window_bytes = std::size_t{128} << 20;
};

void run_mem(const MemOptions& options);

}  // namespace hyalign::mem
