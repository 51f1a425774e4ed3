#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#include "kernels/mem_kernel.hpp"

namespace hyalign::kernels {
namespace {

// A seed with more reference occurrences than this is not extended occurrence by occurrence for
// the unique kinds: those positions are walked down the suffix array instead.
constexpr std::uint32_t kMostOccurrencesToExtend = 64;

unsigned seed_length_for(const index::SuffixIndex& index, std::uint32_t min_length) {
  // Long enough that a random seed has well under one occurrence, and the prefix table's depth.
  const double log4 = std::log(static_cast<double>(std::max<std::size_t>(index.text().size(), 4))) / std::log(4.0);
  const auto wanted = std::max<unsigned>(index.prefix_letters(), static_cast<unsigned>(std::ceil(log4)) + 2);
  return std::min<unsigned>(wanted, min_length);
}

}  // namespace

void sort_matches(std::vector<MemMatch>& matches) {
  std::sort(matches.begin(), matches.end(), [](const MemMatch& a, const MemMatch& b) {
    if (a.query_pos != b.query_pos) return a.query_pos < b.query_pos;
    if (a.ref_pos != b.ref_pos) return a.ref_pos < b.ref_pos;
    return a.length < b.length;
  });
}

MemFinder::MemFinder(const index::SuffixIndex& index, MemParams params)
    : index_(index), params_(params), seed_length_(seed_length_for(index, params.min_length)),
      seed_step_(params.min_length - seed_length_ + 1) {}

bool MemFinder::letters_match(char q, char t) const {
  return q == t && (!params_.bases_only || index::base_code(q) >= 0);
}

std::uint32_t MemFinder::extend_right(std::string_view query, std::size_t q, std::uint64_t t) const {
  const std::string_view text = index_.text();
  std::size_t n = 0;
  if (!params_.bases_only) {  // eight letters at a time; a separator or the query's end stops it
    while (q + n + 8 <= query.size() && t + n + 8 <= text.size()) {
      std::uint64_t a, b;
      std::memcpy(&a, query.data() + q + n, 8);
      std::memcpy(&b, text.data() + t + n, 8);
      if (a != b) return static_cast<std::uint32_t>(n + static_cast<std::size_t>(std::countr_zero(a ^ b)) / 8);
      n += 8;
    }
  }
  while (q + n < query.size() && t + n < text.size() && letters_match(query[q + n], text[t + n])) ++n;
  return static_cast<std::uint32_t>(n);
}

std::uint32_t MemFinder::extend_left(std::string_view query, std::size_t q, std::uint64_t t,
                                     std::uint32_t most) const {
  const std::string_view text = index_.text();
  std::uint32_t n = 0;
  while (n < most && n < q && n < t && letters_match(query[q - n - 1], text[t - n - 1])) ++n;
  return n;
}

void MemFinder::find(std::string_view query, std::vector<MemMatch>& out) const {
  const std::size_t first = out.size();
  std::vector<Occurrence> occurrences;
  for (std::size_t seed = 0; seed + seed_length_ <= query.size(); seed += seed_step_) {
    const std::string_view letters = query.substr(seed, seed_length_);
    if (params_.bases_only &&
        std::any_of(letters.begin(), letters.end(), [](char c) { return index::base_code(c) < 0; }))
      continue;
    find_at_seed(query, seed, occurrences, out);
  }
  std::vector<MemMatch> mine(out.begin() + static_cast<std::ptrdiff_t>(first), out.end());
  out.resize(first);
  sort_matches(mine);
  out.insert(out.end(), mine.begin(), mine.end());
}

// Every match of at least min_length letters holds exactly one seed within its first seed_step_
// letters; it is reported from that seed (left extension shorter than seed_step_).
void MemFinder::find_at_seed(std::string_view query, std::size_t seed, std::vector<Occurrence>& occurrences,
                             std::vector<MemMatch>& out) const {
  const index::SaInterval rows = index_.find(query.substr(seed, seed_length_));
  if (rows.empty()) return;
  if (params_.kind != MemKind::maxmatch && rows.size() > kMostOccurrencesToExtend) {
    const std::size_t from = seed + 1 >= seed_step_ ? seed + 1 - seed_step_ : 0;
    for (std::size_t pos = from; pos <= seed; ++pos) find_unique_at(query, pos, out);
    return;
  }
  const auto sa = index_.suffix_array();
  occurrences.clear();
  for (std::uint32_t row = rows.lo; row < rows.hi; ++row) {
    const std::uint64_t t = sa[row];
    occurrences.push_back({t, extend_left(query, seed, t, seed_step_),
                           seed_length_ + extend_right(query, seed + seed_length_, t + seed_length_)});
  }
  for (const Occurrence& o : occurrences) {
    if (o.left >= seed_step_ || o.left + o.right < params_.min_length) continue;
    // Another occurrence reaching as far both ways holds the same string: not unique.
    if (params_.kind != MemKind::maxmatch &&
        std::any_of(occurrences.begin(), occurrences.end(), [&](const Occurrence& p) {
          return &p != &o && p.left >= o.left && p.right >= o.right;
        }))
      continue;
    out.push_back({o.ref_pos - o.left, static_cast<std::uint32_t>(seed - o.left), o.left + o.right});
  }
}

// MUMmer's rule at one query position: the longest match there occurs once in the reference, is
// at least min_length long, and cannot be extended to the left.
void MemFinder::find_unique_at(std::string_view query, std::size_t pos, std::vector<MemMatch>& out) const {
  const std::uint32_t l = params_.min_length;
  if (pos + l > query.size()) return;
  const std::string_view start = query.substr(pos, l);
  if (params_.bases_only && std::any_of(start.begin(), start.end(), [](char c) { return index::base_code(c) < 0; }))
    return;
  index::SaInterval rows = index_.find(start);
  std::size_t depth = l;
  while (rows.size() > 1 && pos + depth < query.size() &&
         (!params_.bases_only || index::base_code(query[pos + depth]) >= 0)) {
    const index::SaInterval next = index_.narrow(rows, query.substr(pos, depth + 1), depth);
    if (next.empty()) break;
    rows = next;
    ++depth;
  }
  if (rows.size() != 1) return;
  const std::uint64_t t = index_.suffix_array()[rows.lo];
  if (extend_left(query, pos, t, 1) == 1) return;
  const std::uint32_t length = static_cast<std::uint32_t>(depth) + extend_right(query, pos + depth, t + depth);
  out.push_back({t, static_cast<std::uint32_t>(pos), length});
}

void keep_query_unique(std::string_view query, std::vector<MemMatch>& matches) {
  if (matches.empty()) return;
  // The query's own suffix array: a match's string is unique in the query when one suffix starts
  // with it.
  index::ReferenceText text;
  text.text.assign(query);
  text.text.push_back(index::kSeparator);
  text.names.emplace_back();
  text.starts.push_back(0);
  text.lengths.push_back(query.size());
  const index::SuffixIndex own = index::SuffixIndex::build(std::move(text), 1);
  std::erase_if(matches, [&](const MemMatch& m) { return own.find(query.substr(m.query_pos, m.length)).size() != 1; });
}

}  // namespace hyalign::kernels
