#include "mem/mem_output.hpp"

#include <charconv>

#include <fmt/format.h>

namespace hyalign::mem {
namespace {

// Appends `value` right-aligned in `width` columns (printf's %8lu): the match lines are most of
// the output, so they are written without a format string.
void append_right_aligned(std::string& out, std::uint64_t value, std::size_t width) {
  char digits[24];
  const auto end = std::to_chars(digits, digits + sizeof digits, value).ptr;
  const auto length = static_cast<std::size_t>(end - digits);
  if (length < width) out.append(width - length, ' ');
  out.append(digits, length);
}

}  // namespace

void append_section(std::string& out, const index::ReferenceText& ref, std::string_view name, bool reverse,
                    std::string_view strand, std::span<const kernels::MemMatch> matches, const SectionStyle& style) {
  out += "> ";
  out += name;
  if (reverse) out += " Reverse";
  if (style.show_lengths) fmt::format_to(std::back_inserter(out), "  Len = {}", strand.size());
  out.push_back('\n');
  for (const kernels::MemMatch& m : matches) {
    const std::size_t seq = ref.sequence_at(m.ref_pos);
    const std::uint64_t ref_pos = m.ref_pos - ref.starts[seq] + 1;
    // -c prints a reverse match at the forward-strand position of its first letter.
    const std::uint64_t query_pos =
        reverse && style.forward_positions ? strand.size() - m.query_pos : std::uint64_t{m.query_pos} + 1;
    if (style.reference_names) {
      out += "  ";
      out += ref.names[seq];
      out.append(style.name_width - std::min(style.name_width, ref.names[seq].size()) + 2, ' ');
    }
    append_right_aligned(out, ref_pos, 8);
    out += "  ";
    append_right_aligned(out, query_pos, 8);
    out += "  ";
    append_right_aligned(out, m.length, 8);
    out.push_back('\n');
    if (style.show_substrings) {
      out.append(strand.substr(m.query_pos, m.length));
      out.push_back('\n');
    }
  }
}

}  // namespace hyalign::mem
