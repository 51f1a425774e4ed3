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

// Writes sections into memory sized beforehand from `bound`: the match lines are most of the
// output (hundreds of MB with -maxmatch), so they are written with plain stores instead of many
// small appends to a growing string. In both calls `strand` is the query as searched (reverse
// complemented for a reverse section), `matches` its matches in print order (or a run of them: a
// section may be written in parts), and `header` whether the part begins with the header line.
class SectionWriter {
 public:
  SectionWriter(const index::ReferenceText& ref, const SectionStyle& style);

  // The most bytes `write` takes for the part: exact while the query and the reference's
  // sequences are shorter than 10^8 letters (every number fits in its 8 columns).
  std::size_t bound(std::string_view name, bool reverse, std::string_view strand,
                    std::span<const kernels::MemMatch> matches, bool header) const;
  // Writes the part at `to` and returns its end.
  char* write(char* to, std::string_view name, bool reverse, std::string_view strand,
              std::span<const kernels::MemMatch> matches, bool header) const;

 private:
  const index::ReferenceText& ref_;
  SectionStyle style_;
  std::size_t column_ = 0;     // bytes of the reference-name column, 0 without it
  std::string columns_;        // each sequence's name column, column_ bytes apiece
  std::size_t ref_width_ = 0;  // columns of the widest reference position
};

}  // namespace hyalign::mem
