#include "mem/mem_output.hpp"

#include <fmt/format.h>

namespace hyalign::mem {

void append_section(std::string& out, const index::ReferenceText& ref, std::string_view name, bool reverse,
                    std::string_view strand, std::span<const kernels::MemMatch> matches, const SectionStyle& style) {
  auto it = std::back_inserter(out);
  fmt::format_to(it, "> {}{}", name, reverse ? " Reverse" : "");
  if (style.show_lengths) fmt::format_to(it, "  Len = {}", strand.size());
  out.push_back('\n');
  for (const kernels::MemMatch& m : matches) {
    const std::size_t seq = ref.sequence_at(m.ref_pos);
    const std::uint64_t ref_pos = m.ref_pos - ref.starts[seq] + 1;
    // -c prints a reverse match at the forward-strand position of its first letter.
    const std::uint64_t query_pos =
        reverse && style.forward_positions ? strand.size() - m.query_pos : std::uint64_t{m.query_pos} + 1;
    if (style.reference_names) fmt::format_to(it, "  {:<{}}  ", ref.names[seq], style.name_width);
    fmt::format_to(it, "{:8}  {:8}  {:8}\n", ref_pos, query_pos, m.length);
    if (style.show_substrings) {
      out.append(strand.substr(m.query_pos, m.length));
      out.push_back('\n');
    }
  }
}

}  // namespace hyalign::mem
