#pragma once
// Writes aligned rows as PHYLIP (relaxed: name left-justified in a field one wider than the longest
// name) or FASTA, row by row, through an AtomicOutput.
#include <cstddef>
#include <string_view>

#include "io/atomic_output.hpp"

namespace hyalign {

enum class AlignmentFormat { phylip, fasta };

class AlignmentWriter {
 public:
  AlignmentWriter(AtomicOutput& out, AlignmentFormat format, std::size_t rows, std::size_t columns,
                  std::size_t longest_name);
  void add_row(std::string_view name, std::string_view row);

 private:
  AtomicOutput& out_;
  AlignmentFormat format_;
  std::size_t name_width_;
};

}  // namespace hyalign
