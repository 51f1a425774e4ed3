#pragma once
// Writes aligned rows as PHYLIP (relaxed: name left-justified in a field one wider than the longest
// name) or FASTA through an AtomicOutput: row by row, or as blocks of rows that threads formatted
// with format_row and that are written in order with write_block.
#include <cstddef>
#include <string>
#include <string_view>

#include "io/atomic_output.hpp"

namespace hyalign {

enum class AlignmentFormat { phylip, fasta };

class AlignmentWriter {
 public:
  AlignmentWriter(AtomicOutput& out, AlignmentFormat format, std::size_t rows, std::size_t columns,
                  std::size_t longest_name);
  // Formats rows only (format_row), for another process to write.
  AlignmentWriter(AlignmentFormat format, std::size_t longest_name);
  void add_row(std::string_view name, std::string_view row);
  // Appends one row as it appears in the file; safe to call from many threads on their own blocks.
  void format_row(std::string& block, std::string_view name, std::string_view row) const;
  void write_block(std::string_view block) { out_->write(block); }

 private:
  AtomicOutput* out_;
  AlignmentFormat format_;
  std::size_t name_width_;
};

}  // namespace hyalign
