#include "io/alignment_writer.hpp"

#include <fmt/format.h>

namespace hyalign {

AlignmentWriter::AlignmentWriter(AtomicOutput& out, AlignmentFormat format, std::size_t rows,
                                 std::size_t columns, std::size_t longest_name)
    : out_(out), format_(format), name_width_(longest_name + 1) {
  if (format_ == AlignmentFormat::phylip) out_.write(fmt::format("{} {}\n", rows, columns));
}

void AlignmentWriter::add_row(std::string_view name, std::string_view row) {
  if (format_ == AlignmentFormat::phylip)
    out_.write(fmt::format("{:<{}}{}\n", name, name_width_, row));
  else
    out_.write(fmt::format(">{}\n{}\n", name, row));
}

}  // namespace hyalign
