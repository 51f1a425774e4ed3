#pragma once
// hyalign search: Smith–Waterman database search, top hits per query with alignments.
#include <cstddef>
#include <optional>
#include <string>

#include "kernels/papara_kernel.hpp"  // KernelChoice
#include "sched/scheduler.hpp"         // DeviceChoice

namespace hyalign::search {

enum class SequenceType { automatic, protein, dna };

struct SearchOptions {
  std::string queries;
  std::string database;
  SequenceType type = SequenceType::automatic;  // automatic: DNA when the queries are all ACGTUN
  std::string matrix = "BLOSUM62";               // built-in name or an NCBI matrix file (protein)
  std::optional<int> gap_open, gap_extend;       // defaults: protein 11/1, DNA 5/2 (BLAST convention)
  int match = 2, mismatch = -3;                  // DNA
  std::size_t top = 10;
  std::string outfmt = "6";
  std::string out = "-";
  unsigned threads = 1;
  kernels::KernelChoice kernel = kernels::KernelChoice::automatic;
  sched::DeviceChoice device = sched::DeviceChoice::automatic;
  std::size_t chunk_residues = std::size_t{1} << 28;  // database residues per chunk (two in memory with GPUs)
};

void run_search(const SearchOptions& options);

}  // namespace hyalign::search
