#include "io/alignment_writer.hpp"

#include <fmt/format.h>

namespace hyalign {

AlignmentWriter::AlignmentWriter(AtomicOutput& out, AlignmentFormat format, std::size_t rows,
                                 std::size_t columns, std::size_t longest_name)
    : out_(&out), format_(format), name_width_(longest_name + 1) {
  if (format_ == AlignmentFormat::phylip) out_->write(fmt::format("{} {}\n", rows, columns));
}

AlignmentWriter::AlignmentWriter(AlignmentFormat format, std::size_t longest_name)
    : out_(nullptr), format_(format), name_width_(longest_name + 1) {}

void AlignmentWriter::format_row(std::string& block, std::string_view name, std::string_view row) const {
  if (format_ == AlignmentFormat::phylip) {
    block.append(name);
    block.append(name_width_ > name.size() ? name_width_ - name.size() : 0, ' ');
  } else {
    block.push_back('>');
    block.append(name);
    block.push_back('\n');
  }
  block.append(row);
  block.push_back('\n');
}

void AlignmentWriter::add_row(std::string_view name, std::string_view row) {
  std::string line;
  format_row(line, name, row);
  out_->write(line);
}

}  // namespace hyalign
