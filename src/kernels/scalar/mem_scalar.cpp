#include "kernels/mem_kernel.hpp"

namespace hyalign::kernels {
namespace {

bool letters_match(char q, char t, const MemParams& params) {
  return q == t && t != index::kSeparator && (!params.bases_only || index::base_code(q) >= 0);
}

std::uint32_t match_length(std::string_view text, std::string_view query, std::size_t t, std::size_t q,
                           const MemParams& params) {
  std::uint32_t n = 0;
  while (q + n < query.size() && t + n < text.size() && letters_match(query[q + n], text[t + n], params)) ++n;
  return n;
}

bool left_maximal(std::string_view text, std::string_view query, std::size_t t, std::size_t q,
                  const MemParams& params) {
  return q == 0 || t == 0 || !letters_match(query[q - 1], text[t - 1], params);
}

}  // namespace

std::vector<MemMatch> find_mems_scalar(std::string_view text, std::string_view query, const MemParams& params) {
  std::vector<MemMatch> out;
  for (std::size_t q = 0; q < query.size(); ++q) {
    std::uint32_t longest = 0;
    std::size_t where = 0, count = 0;
    for (std::size_t t = 0; t < text.size(); ++t) {
      const std::uint32_t length = match_length(text, query, t, q, params);
      if (length == 0) continue;
      if (params.kind == MemKind::maxmatch) {
        if (length >= params.min_length && left_maximal(text, query, t, q, params))
          out.push_back({t, static_cast<std::uint32_t>(q), length});
      } else if (length > longest) {
        longest = length, where = t, count = 1;
      } else if (length == longest) {
        ++count;
      }
    }
    // Unique kinds: the longest match at q must occur once and not extend to the left.
    if (params.kind != MemKind::maxmatch && count == 1 && longest >= params.min_length &&
        left_maximal(text, query, where, q, params))
      out.push_back({where, static_cast<std::uint32_t>(q), longest});
  }
  if (params.kind == MemKind::mum) {  // not inside (or equal to) another match's reference interval
    const auto inside = [](const MemMatch& a, const MemMatch& b) {
      return b.ref_pos <= a.ref_pos && a.ref_pos + a.length <= b.ref_pos + b.length;
    };
    std::vector<MemMatch> kept;
    for (std::size_t i = 0; i < out.size(); ++i) {
      bool contained = out[i].ref_pos == 0 && out[i].length == 1;  // MUMmer 3.23's quirk, see keep_mums
      for (std::size_t j = 0; j < out.size() && !contained; ++j) contained = j != i && inside(out[i], out[j]);
      if (!contained) kept.push_back(out[i]);
    }
    out = std::move(kept);
  }
  sort_matches(out);
  return out;
}

}  // namespace hyalign::kernels
