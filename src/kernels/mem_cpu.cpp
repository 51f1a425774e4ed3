#include <algorithm>
#include <cmath>

#include "core/parallel.hpp"
#include "kernels/mem_kernel.hpp"

namespace hyalign::kernels {
namespace {

// A seed with more reference occurrences than this is not extended occurrence by occurrence for
// the unique kinds: those positions are walked down the suffix array instead.
constexpr std::uint32_t kMostOccurrencesToExtend = 64;

unsigned seed_length_for(const index::SuffixIndex& index, std::uint32_t min_length) {
  // The prefix table's depth (a table lookup, no search), longer only where the table is capped
  // and its buckets would hold many suffixes.
  const double log4 = index::log4_of_length(index.text().size());
  const auto wanted = std::max<unsigned>(index.prefix_letters(), static_cast<unsigned>(std::ceil(log4)) - 1);
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

MemFinder::MemFinder(const index::SuffixIndex& index, MemParams params, std::optional<index::SaInterval> piece)
    : index_(index), text_{index.text(), &index.text_runs()}, params_(params), seed_length_(seed_length_for(index, params.min_length)),
      seed_step_(params.min_length - seed_length_ + 1),
      piece_(piece.value_or(index::SaInterval{0, static_cast<std::uint32_t>(index.suffix_array().size())})) {}

// The rows of `pattern` (at least seed_length_ letters) if they lie in this finder's piece, else
// none; `code` is its prefix code (-1: not all a/c/g/t, or shorter than the table's depth).
index::SaInterval MemFinder::rows_in_piece(std::string_view pattern, long code) const {
  if (code < 0) return index_.narrow(piece_, pattern, 0);
  const index::SaInterval rows = index_.find(pattern, code);
  return rows.lo >= piece_.lo && rows.lo < piece_.hi ? rows : index::SaInterval{};
}

bool MemFinder::letters_match(char q, char t) const {
  return q == t && (!params_.bases_only || index::base_code(q) >= 0);
}

std::uint32_t MemFinder::extend_right(index::RunString query, std::size_t q, std::uint64_t t, std::size_t most) const {
  return static_cast<std::uint32_t>(index::common_length_inline(query, q, text_, t, most, params_.bases_only));
}

std::uint32_t MemFinder::extend_left(std::string_view query, std::size_t q, std::uint64_t t,
                                     std::uint32_t most) const {
  const std::string_view text = index_.text();
  most = static_cast<std::uint32_t>(std::min<std::uint64_t>({most, q, t}));
  if (!params_.bases_only)
    return static_cast<std::uint32_t>(index::equal_bytes_before(query.data() + q, text.data() + t, most));
  std::uint32_t n = 0;
  while (n < most && letters_match(query[q - n - 1], text[t - n - 1])) ++n;
  return n;
}

void MemFinder::find(std::string_view query, std::vector<MemMatch>& out) const {
  Scratch scratch;
  find(query, out, scratch);
}

void MemFinder::mark_repeated_seeds(std::string_view query, SeedMarks& marks, Scratch& scratch) const {
  look_up_seeds(query, {}, scratch);
  for (const Seed& seed : scratch.seeds) {
    const std::size_t i = seed.pos / seed_step_;
    if (marks.size() <= i) marks.resize(i + 1);
    if (seed.rows.size() > kMostOccurrencesToExtend) marks[i] = true;
  }
}

void MemFinder::look_up(std::string_view query, SeedRange seeds, std::vector<Seed>& out, Scratch& scratch) const {
  look_up_seeds(query, seeds, scratch);
  out.insert(out.end(), scratch.seeds.begin(), scratch.seeds.end());
}

void MemFinder::find(std::string_view query, std::vector<MemMatch>& out, Scratch& scratch,
                     const SeedMarks* repeated) const {
  look_up_seeds(query, {}, scratch);
  scratch.query_runs.find(query);
  find_at_seeds({query, &scratch.query_runs}, scratch.seeds, scratch, repeated, out);
}

void MemFinder::find_piece(index::RunString query, SeedRange seeds, std::vector<MemMatch>& out,
                           Scratch& scratch) const {
  look_up_seeds(query.letters, seeds, scratch);
  find_at_seeds(query, scratch.seeds, scratch, nullptr, out);
}

void MemFinder::find_piece(index::RunString query, std::span<const Seed> seeds, std::vector<MemMatch>& out,
                           Scratch& scratch) const {
  find_at_seeds(query, seeds, scratch, nullptr, out);
}

// The matches of `seeds` (looked up), sorted, into `out`.
void MemFinder::find_at_seeds(index::RunString query, std::span<const Seed> seeds, Scratch& scratch,
                              const SeedMarks* repeated, std::vector<MemMatch>& out) const {
  prefetch_text(seeds);
  out.clear();
  scratch.carried = {};
  for (const Seed& seed : seeds) {
    const std::size_t i = seed.pos / seed_step_;
    const bool many = repeated ? i < repeated->size() && (*repeated)[i] : seed.rows.size() > kMostOccurrencesToExtend;
    find_at_seed(query, seed, many, scratch, out);
  }
  sort_matches(out);
}

// The suffix-array rows of every seed of the query, in stages over all seeds so that the memory
// reads of one stage (table, suffix array, text) overlap instead of waiting one after another.
void MemFinder::look_up_seeds(std::string_view query, SeedRange range, Scratch& scratch) const {
  auto& seeds = scratch.seeds;
  auto& codes = scratch.codes;
  seeds.clear();
  codes.clear();
  const auto buckets = index_.buckets();
  const std::size_t end = std::min(range.end, seeds_in(query.size()));
  for (std::size_t pos = range.first * seed_step_; pos < end * seed_step_; pos += seed_step_) {
    const std::string_view letters = query.substr(pos, seed_length_);
    if (params_.bases_only &&
        std::any_of(letters.begin(), letters.end(), [](char c) { return index::base_code(c) < 0; }))
      continue;
    const long code = index_.prefix_code(letters);
    if (code >= 0) __builtin_prefetch(&buckets[static_cast<std::size_t>(code)]);
    seeds.push_back({static_cast<std::uint32_t>(pos), {}});
    codes.push_back(code);
  }
  const auto sa = index_.suffix_array();
  for (std::size_t i = 0; i < seeds.size(); ++i) {
    const std::string_view letters = query.substr(seeds[i].pos, seed_length_);
    seeds[i].rows = rows_in_piece(letters, codes[i]);
    if (!seeds[i].rows.empty()) __builtin_prefetch(&sa[seeds[i].rows.lo]);
  }
}

// The reference letters around the first occurrences of each seed, ahead of their extension.
void MemFinder::prefetch_text(std::span<const Seed> seeds) const {
  const auto sa = index_.suffix_array();
  const char* text = index_.text().data();
  for (const Seed& seed : seeds)
    for (std::uint32_t row = seed.rows.lo; row < seed.rows.hi && row < seed.rows.lo + 4; ++row) {
      __builtin_prefetch(text + sa[row] - std::min<std::uint64_t>(sa[row], seed_step_));
      __builtin_prefetch(text + sa[row] + seed_length_);
    }
}

// Every match of at least min_length letters holds exactly one seed within its first seed_step_
// letters; it is reported from that seed (left extension shorter than seed_step_), so only those
// occurrences are extended to the right: a long match is not extended again from each seed inside.
// A `repeated` seed's matches are found position by position (in a piece of a split array, those
// whose first letters' rows lie in it, wherever the seed's rows are).
void MemFinder::find_at_seed(index::RunString query, const Seed& found_seed, bool repeated, Scratch& scratch,
                             std::vector<MemMatch>& out) const {
  const index::SaInterval rows = found_seed.rows;
  const std::size_t seed = found_seed.pos;
  if (params_.kind != MemKind::maxmatch && repeated) {
    const std::size_t from = seed + 1 >= seed_step_ ? seed + 1 - seed_step_ : 0;
    for (std::size_t pos = from; pos <= seed; ++pos) find_unique_at(query, pos, scratch.carried, out);
    return;
  }
  if (rows.empty()) return;
  const auto sa = index_.suffix_array();
  auto& occurrences = scratch.occurrences;
  occurrences.clear();
  for (std::uint32_t row = rows.lo; row < rows.hi; ++row) {
    const std::uint64_t t = sa[row];
    const std::uint32_t left = extend_left(query.letters, seed, t, seed_step_);
    occurrences.push_back({t, left,
                           left < seed_step_ ? seed_length_ + extend_right(query, seed + seed_length_, t + seed_length_)
                                             : kNotExtended});
  }
  for (const Occurrence& o : occurrences) {
    if (o.left >= seed_step_ || o.left + o.right < params_.min_length) continue;
    // Another occurrence reaching as far both ways holds the same string: not unique.
    if (params_.kind != MemKind::maxmatch &&
        std::any_of(occurrences.begin(), occurrences.end(), [&](const Occurrence& p) {
          return &p != &o && p.left >= o.left && reaches(query, seed, p, o.right);
        }))
      continue;
    out.push_back({o.ref_pos - o.left, static_cast<std::uint32_t>(seed - o.left), o.left + o.right});
  }
}

// Whether occurrence `o` of the seed at `seed` matches at least `right` letters from the seed's
// start (extended only that far where it was not extended).
bool MemFinder::reaches(index::RunString query, std::size_t seed, const Occurrence& o, std::uint32_t right) const {
  if (o.right != kNotExtended) return o.right >= right;
  return seed_length_ + extend_right(query, seed + seed_length_, o.ref_pos + seed_length_, right - seed_length_) >= right;
}

// MUMmer's rule at one query position: the longest match there occurs once in the reference, is
// at least min_length long, and cannot be extended to the left. Among the suffixes that start
// with the first min_length letters, the rest of the query falls between two sorted neighbours;
// the longest match is the longer of their common prefixes with it, and it is unique when no third
// suffix shares that much (those that do are consecutive). With -n the common prefixes stop at the
// first letter other than a/c/g/t; the suffixes that share the query up to there are consecutive
// too, so the rest of the query may still be sorted on all its letters.
void MemFinder::find_unique_at(index::RunString query, std::size_t pos, Carried& carried,
                               std::vector<MemMatch>& out) const {
  const Carried known = carried;
  const std::uint32_t l = params_.min_length;
  if (pos + l > query.letters.size()) return;
  const std::string_view rest = query.letters.substr(pos);
  if (params_.bases_only &&
      std::any_of(rest.begin(), rest.begin() + l, [](char c) { return index::base_code(c) < 0; }))
    return;
  const std::string_view first_letters = rest.substr(0, l);
  const index::SaInterval rows = rows_in_piece(first_letters, index_.prefix_code(first_letters));
  if (rows.empty()) return;
  const auto sa = index_.suffix_array();
  // Letters known shared at this position from a position before (0: none known). A suffix that
  // shares c letters with the query at position p shares c - k with it at p + k, one k letters on.
  const auto known_shared = [&](std::uint64_t t) -> std::uint32_t {
    if (known.pos > pos) return 0;
    const std::size_t k = pos - known.pos;
    for (std::size_t i = 0; i < known.text.size(); ++i)
      if (known.shared[i] > k && known.text[i] + k == t) return static_cast<std::uint32_t>(known.shared[i] - k);
    return 0;
  };
  // The order of the suffixes is that of all their letters, -n or not; what -n counts as shared
  // is at most what is equal.
  const auto sorting_shared = [&](std::uint64_t t, std::size_t from) {
    from = std::max<std::size_t>(from, known_shared(t));
    return from + index::common_length(query, pos + from, text_, t + from, SIZE_MAX);
  };
  const std::uint32_t at = index_.bound_row(rows, rest, l, false, sorting_shared);
  const auto common = [&](std::uint32_t row) {
    const std::uint32_t known_letters = known_shared(sa[row]);
    return known_letters > 0 ? known_letters : l + extend_right(query, pos + l, sa[row] + l);
  };
  const std::uint32_t before = at > rows.lo ? common(at - 1) : 0, after = at < rows.hi ? common(at) : 0;
  // The rows around share the most with the query here, so they reach at least as far as any known
  // before.
  carried = {pos, {before > 0 ? sa[at - 1] : UINT64_MAX, after > 0 ? sa[at] : UINT64_MAX}, {before, after}};
  if (before == after) return;  // two suffixes share the longest match
  const std::uint32_t row = before > after ? at - 1 : at, length = std::max(before, after);
  const bool third = before > after ? row > rows.lo && common(row - 1) >= length
                                    : row + 1 < rows.hi && common(row + 1) >= length;
  if (third) return;
  const std::uint64_t t = sa[row];
  if (extend_left(query.letters, pos, t, 1) == 1) return;
  out.push_back({t, static_cast<std::uint32_t>(pos), length});
}

void keep_mums(std::vector<MemMatch>& matches) {
  std::vector<std::size_t> order(matches.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  // Reference start ascending, longer first: whatever contains a match comes before it.
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (matches[a].ref_pos != matches[b].ref_pos) return matches[a].ref_pos < matches[b].ref_pos;
    return matches[a].length > matches[b].length;
  });
  std::vector<bool> drop(matches.size(), false);
  std::uint64_t furthest_end = 0;  // one past the furthest reference end so far
  for (std::size_t k = 0; k < order.size(); ++k) {
    const MemMatch& m = matches[order[k]];
    const std::uint64_t end = m.ref_pos + m.length;
    if (k > 0 && end <= furthest_end) drop[order[k]] = true;
    if (k + 1 < order.size() && matches[order[k + 1]].ref_pos == m.ref_pos && matches[order[k + 1]].length == m.length)
      drop[order[k]] = true;  // the same interval twice: both go
    // MUMmer 3.23 also drops a one-letter match at the first reference letter (only -l 1 shows it).
    if (m.ref_pos == 0 && m.length == 1) drop[order[k]] = true;
    furthest_end = std::max(furthest_end, end);
  }
  std::size_t kept = 0;
  for (std::size_t i = 0; i < matches.size(); ++i)
    if (!drop[i]) matches[kept++] = matches[i];
  matches.resize(kept);
}

void append_strand(std::vector<MemMatch>& matches, MemKind kind, StrandMatches& out) {
  if (kind == MemKind::mum) keep_mums(matches);
  out.matches.insert(out.matches.end(), matches.begin(), matches.end());
  out.offsets.push_back(out.matches.size());
}

void merge_piece_matches(std::span<const StrandMatches> pieces, MemKind kind, StrandMatches& out) {
  if (pieces.empty()) return;
  std::vector<MemMatch> strand;
  for (std::size_t i = 0; i < pieces.front().count(); ++i) {
    strand.clear();
    for (const StrandMatches& piece : pieces) {
      const auto found = piece.of(piece.first + i);
      strand.insert(strand.end(), found.begin(), found.end());
    }
    sort_matches(strand);
    append_strand(strand, kind, out);
  }
}

void order_for_output(MemKind kind, std::span<StrandMatches> found, unsigned threads) {
  if (kind != MemKind::mum) return;
  parallel_for(found.size(), threads, [&](std::size_t p, unsigned) {
    StrandMatches& matches = found[p];
    for (std::size_t i = 0; i < matches.count(); ++i)
      std::sort(matches.matches.begin() + static_cast<std::ptrdiff_t>(matches.offsets[i]),
                matches.matches.begin() + static_cast<std::ptrdiff_t>(matches.offsets[i + 1]),
                [](const MemMatch& a, const MemMatch& b) { return a.ref_pos < b.ref_pos; });
  });
}

void find_on_cpu(const MemFinder& finder, const StrandSet& strands, std::size_t first, std::size_t count,
                 StrandMatches& out) {
  thread_local MemFinder::Scratch scratch;
  thread_local std::vector<MemMatch> found;
  for (std::size_t i = first; i < first + count; ++i) {
    finder.find(strands.strand(i), found, scratch);
    append_strand(found, finder.params().kind, out);
  }
}

namespace {

class MemCpuKernel final : public MemKernel {
 public:
  MemCpuKernel(const index::SuffixIndex& index, MemParams params) : finder_(index, params) {}
  std::string_view name() const override { return "cpu"; }
  void find(const StrandSet& strands, std::size_t first, std::size_t count, StrandMatches& out) override {
    find_on_cpu(finder_, strands, first, count, out);
  }

 private:
  MemFinder finder_;
};

}  // namespace

std::unique_ptr<MemKernel> make_mem_cpu_kernel(const index::SuffixIndex& index, MemParams params) {
  return std::make_unique<MemCpuKernel>(index, params);
}

}  // namespace hyalign::kernels
