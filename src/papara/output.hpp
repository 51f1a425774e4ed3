#pragma once
// Assembles the output alignment (spec §8): reference rows, then queries, with insertion columns.
// Query rows are formatted on `threads` threads and written in input order.
#include <vector>

#include "dist/job.hpp"
#include "dist/ordered_output.hpp"
#include "io/alignment_writer.hpp"
#include "kernels/scalar/papara_scalar.hpp"
#include "papara/inputs.hpp"

namespace hyalign::papara {

// This rank's queries (every query in a one-process run), in the job's units, and their alignments.
struct RankQueries {
  const StateSequences& sequences;
  const dist::ItemUnits& units;
  const std::vector<kernels::PaparaAlignment>& alignments;
};

// Rank 0 writes the header and the reference rows to `out` (null on other ranks); then every
// rank's query rows go to `ordered`, unit by unit. Insertion columns are as wide as the longest
// insertion of any rank's queries (a collective: every rank calls this).
void write_papara_alignment(AtomicOutput* out, dist::OrderedOutput& ordered, AlignmentFormat format,
                            const PaparaInputs& inputs, const RankQueries& queries, const Alphabet& alphabet,
                            bool no_reference_gaps, unsigned threads);

}  // namespace hyalign::papara
