#pragma once
// MUMmer 3.23's output: a header line per query strand, then one line per match (reference
// position, query position, length, all 1-based; the reference sequence's name first when the
// reference has several sequences or -F), and with -s the matched letters below each.
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "index/reference_text.hpp"
#include "kernels/mem_kernel.hpp"

namespace hyalign::mem {

struct SectionStyle {
  bool reference_names = false;
  std::size_t name_width = 0;  // the longest reference name: the 4-column form pads names to it
  bool show_lengths = false;
  bool show_substrings = false;
  bool forward_positions = false;  // -c, for reverse sections
};

// Appends one section: `strand` is the query as searched (reverse complemented for a reverse
// section), `matches` its matches in print order.
void append_section(std::string& out, const index::ReferenceText& ref, std::string_view name, bool reverse,
                    std::string_view strand, std::span<const kernels::MemMatch> matches, const SectionStyle& style);

}  // namespace hyalign::mem
