#pragma once
// Assembles the output alignment (spec §8): reference rows, then queries, with insertion columns.
// Query rows are formatted on `threads` threads and written in input order.
#include <vector>

#include "io/alignment_writer.hpp"
#include "kernels/scalar/papara_scalar.hpp"
#include "papara/inputs.hpp"

namespace hyalign::papara {

void write_papara_alignment(AtomicOutput& out, AlignmentFormat format, const PaparaInputs& inputs,
                            const Alphabet& alphabet, const std::vector<kernels::PaparaAlignment>& alignments,
                            bool no_reference_gaps, unsigned threads);

}  // namespace hyalign::papara
