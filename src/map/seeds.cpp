#include "map/seeds.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <exception>

#include "kernels/seed_search.hpp"

namespace hyalign::map {
namespace {

using kernels::kDirectRows;
using kernels::kRareMaxCopies;
using kernels::kRareWindowRows;
using kernels::kReseedMaxCopies;

// A match (kernels::SeedMatch): a hit per copy. One with more than `max_occurrences` copies has
// its letters noted repetitive (they lower the MAPQ) and seeds `max_occurrences` copies taken at
// even steps through its suffix-array rows, as BWA-MEM samples them: a read that lies wholly in a
// repeat of many copies is still placed, at MAPQ 0, not left unmapped. A match in a large family
// notes the letters its prefix with kRareMaxCopies copies or more holds.
void add_match(std::span<const std::uint32_t> sa, const kernels::SeedMatch& m, std::uint32_t max_occurrences,
               const SeedQuery& query) {
  if (m.family && query.family != nullptr) query.family->push_back({m.begin, m.family_end()});
  const std::uint32_t copies = m.hi - m.lo;
  std::uint32_t step = 1;
  if (copies > max_occurrences) {
    if (query.repetitive != nullptr) query.repetitive->push_back({m.begin, m.begin + m.length});
    step = copies / max_occurrences;
  }
  for (std::uint32_t r = m.lo, taken = 0; r < m.hi && taken < max_occurrences; r += step, ++taken)
    query.hits->push_back({sa[r] - m.back, m.begin, m.length, query.reverse});
}

}  // namespace

SeedFinder::SeedFinder(const index::SuffixIndex& index, const MapParams& params)
    : index_(index), min_seed_(seed_search_params(params).min_seed),
      reseed_length_(seed_search_params(params).reseed_length), max_occurrences_(params.max_occurrences) {}

std::uint32_t SeedFinder::common_prefix(std::string_view pattern, std::uint32_t text_pos, std::uint32_t from) const {
  const std::string_view text = index_.text();
  const std::size_t limit = std::min<std::size_t>(pattern.size(), text.size() - text_pos);
  std::size_t i = from;
  for (; i + 8 <= limit; i += 8) {  // eight letters per comparison
    std::uint64_t a, b;
    std::memcpy(&a, pattern.data() + i, 8);
    std::memcpy(&b, text.data() + text_pos + i, 8);
    if (a != b) return static_cast<std::uint32_t>(i + (std::countr_zero(a ^ b) >> 3));
  }
  while (i < limit && pattern[i] == text[text_pos + i]) ++i;
  return static_cast<std::uint32_t>(i);
}

// A search under way: the greedy scan along the query (the longest match from `next`, then on
// from the letter after it, and the search of a run's last min_seed letters that it would pass
// over); after a long seed with few copies, the searches inside it for
// matches with more copies; after a seed, the search across its end; and after the scan, the third
// round's searches for matches with few copies (kernels::seed_search.hpp).
struct SeedFinder::Search {
  SeedQuery query;
  std::uint32_t next = 0;                    // the scan's next start, then the third round's
  std::uint32_t run_begin = 0, run_end = 0;  // the a/c/g/t run holding `next`
  bool third_round = false;
  std::uint32_t reseed_at = 0, reseed_last = 0, reseed_copies = 0;  // starts still to search inside a seed
  std::uint32_t cross_at = 0;     // start of the search across a seed's end; 0 when none is due
  std::uint32_t side_floor = 0;   // where the next such search or backward extension may begin
  // The search under way: query letters [start, run_end), `copies` wanted, the rows of its first
  // `depth` letters.
  std::uint32_t start = 0, copies = 1, depth = 0;
  bool side_search = false;  // a search inside or across a seed, which leaves the scan where it is
  long code = -1;
  index::SaInterval rows;
  std::string_view rest() const { return query.pattern.substr(start, run_end - start); }
};

bool SeedFinder::next_search(Search& s) const {
  if (s.reseed_copies > 0 && s.reseed_at <= s.reseed_last) {
    s.start = s.reseed_at;
    s.copies = s.reseed_copies;
    s.side_search = true;
    s.reseed_at += min_seed_;
    return true;
  }
  s.reseed_copies = 0;
  s.copies = 1;
  if (s.cross_at > 0) {
    s.start = s.cross_at;
    s.cross_at = 0;
    s.side_search = true;
    return true;
  }
  s.side_search = false;
  const std::string_view p = s.query.pattern;
  const auto n = static_cast<std::uint32_t>(p.size());
  if (!s.third_round) {
    if (kernels::next_scan_start(p.data(), n, min_seed_, s.next, s.run_begin, s.run_end)) {
      s.start = s.next;
      return true;
    }
    s.third_round = true;
    s.next = s.run_begin = s.run_end = 0;
  }
  if (!kernels::next_run_start(p.data(), n, min_seed_ + 1, s.next, s.run_begin, s.run_end)) return false;
  s.start = s.next;
  return true;
}

void SeedFinder::look_up_prefix(Search& s) const {
  s.code = index_.prefix_code(s.rest());
  if (s.code >= 0) __builtin_prefetch(index_.buckets().data() + s.code);
}

// The rows to read: the prefix's bucket, or the whole suffix array where the prefix has too few
// copies but a seed may be shorter than it.
void SeedFinder::read_rows(Search& s) const {
  s.rows = {0, static_cast<std::uint32_t>(index_.suffix_array().size())};
  s.depth = 0;
  if (s.code >= 0) {
    const index::SaInterval bucket = index_.buckets()[static_cast<std::size_t>(s.code)];
    if (bucket.size() < s.copies) {
      if (min_seed_ >= index_.prefix_letters()) {
        s.rows = {};  // no match of K letters has enough copies
        return;
      }
    } else {
      s.rows = bucket;
      s.depth = index_.prefix_letters();
    }
  }
  if (s.rows.size() <= rows_read_whole(s)) {
    const std::uint32_t* sa = index_.suffix_array().data();
    __builtin_prefetch(sa + s.rows.lo);
    __builtin_prefetch(sa + s.rows.hi - 1);
  }
}

std::uint32_t SeedFinder::rows_read_whole(const Search& s) { return s.third_round ? kRareWindowRows : kDirectRows; }

void SeedFinder::finish_third_round_search(Search& s) const {
  const std::string_view rest = s.rest();
  const Match match = s.rows.empty() ? Match{min_seed_ + 1, {}} : rare_match(rest, s.rows, s.depth);
  if (match.length > rest.size()) {  // the run ends first
    s.next = s.run_end + 1;
    return;
  }
  const bool family = kernels::in_large_family(match.length, min_seed_);
  if (!match.rows.empty() || family)
    add_match(index_.suffix_array(), {s.start, match.length, match.rows.lo, match.rows.hi, 0, family},
              max_occurrences_, s.query);
  s.next = s.start + match.length;
}

void SeedFinder::finish_search(Search& s) const {
  if (s.third_round) return finish_third_round_search(s);
  kernels::BackCopies back;
  const Match match =
      s.rows.empty() ? Match{} : longest_match(s.rest(), s.rows, s.depth, s.copies, s.side_search ? nullptr : &back);
  const auto sa = index_.suffix_array();
  if (match.length >= min_seed_)
    add_match(sa, {s.start, match.length, match.rows.lo, match.rows.hi}, max_occurrences_, s.query);
  if (s.side_search) return;
  if (match.length >= reseed_length_ && match.rows.size() <= kReseedMaxCopies) {
    s.reseed_at = s.start;
    s.reseed_last = s.start + match.length - min_seed_;
    s.reseed_copies = match.rows.size() + 1;
  }
  s.cross_at = kernels::cross_search_start(s.start, match.length, min_seed_, s.run_end, s.side_floor);
  kernels::SeedMatch extended[kernels::kBackExtendMaxCopies];
  const std::uint32_t n = kernels::back_extended_matches(s.query.pattern.data(), s.start, s.run_begin, index_.text().data(),
                                                         back, [&](std::uint32_t row) { return sa[row]; }, min_seed_,
                                                         s.side_floor, extended);
  for (std::uint32_t k = 0; k < n; ++k) add_match(sa, extended[k], max_occurrences_, s.query);
  s.next = kernels::scan_next(s.start, match.length, min_seed_, s.run_end);
}

void SeedFinder::find(std::span<const SeedQuery> queries) const {
  std::vector<Search> searches(queries.size());
  std::vector<Search*> active;
  for (std::size_t q = 0; q < queries.size(); ++q) {
    searches[q].query = queries[q];
    if (next_search(searches[q])) active.push_back(&searches[q]);
  }
  const std::uint32_t* sa = index_.suffix_array().data();
  const char* text = index_.text().data();
  while (!active.empty()) {
    for (Search* s : active) look_up_prefix(*s);
    for (Search* s : active) read_rows(*s);
    for (Search* s : active)
      if (s->rows.size() <= rows_read_whole(*s))
        for (std::uint32_t r = s->rows.lo; r < s->rows.hi; ++r) __builtin_prefetch(text + sa[r] + s->depth);
    std::size_t kept = 0;
    for (Search* s : active) {
      finish_search(*s);
      if (next_search(*s)) active[kept++] = s;
    }
    active.resize(kept);
  }
}

index::SaInterval SeedFinder::read_neighbours(std::string_view pattern, index::SaInterval rows, std::uint32_t depth,
                                              std::uint32_t around, std::uint32_t whole, std::uint32_t* shared) const {
  std::uint32_t lo = rows.lo, hi = rows.hi;
  if (rows.size() > whole) {
    const std::uint32_t at = index_.insertion_row(rows, pattern, depth);
    lo = at - std::min(at - rows.lo, around);
    hi = std::min(rows.hi, at + around);
  }
  const auto& sa = index_.suffix_array();
  for (std::uint32_t r = lo; r < hi; ++r) shared[r - lo] = common_prefix(pattern, sa[r], depth);
  return {lo, hi};
}

SeedFinder::Match SeedFinder::longest_match(std::string_view pattern, index::SaInterval rows, std::uint32_t depth,
                                            std::uint32_t copies, kernels::BackCopies* back) const {
  // The rows holding pattern[0, L) for any L lie next to where the pattern sorts; the longest
  // prefix with `copies` rows is the best minimum over `copies` neighbouring rows. A small interval
  // is read whole instead of searched.
  std::uint32_t shared[kDirectRows];
  const std::uint32_t around = back != nullptr ? std::max(copies, kernels::kScanRowsAround) : copies;
  const auto [lo, hi] = read_neighbours(pattern, rows, depth, around, kDirectRows, shared);
  if (back != nullptr) *back = kernels::back_copies(shared, hi - lo, lo, lo > rows.lo, hi < rows.hi, min_seed_);
  std::uint32_t best = 0, best_start = lo;
  for (std::uint32_t start = lo; start + copies <= hi; ++start) {
    const std::uint32_t shortest = *std::min_element(shared + (start - lo), shared + (start - lo + copies));
    if (shortest > best) best = shortest, best_start = start;
  }
  if (best < std::max(depth, 1u)) return {};
  if (best == depth) return {best, rows};
  if (lo != rows.lo || hi != rows.hi) return {best, index_.narrow(rows, pattern.substr(0, best), depth)};
  // The whole interval was read: the match's rows are the run around the best window.
  std::uint32_t first = best_start, last = best_start + copies;
  while (first > lo && shared[first - 1 - lo] >= best) --first;
  while (last < hi && shared[last - lo] >= best) ++last;
  return {best, {first, last}};
}

SeedFinder::Match SeedFinder::rare_match(std::string_view pattern, index::SaInterval rows, std::uint32_t depth) const {
  // Rows holding fewer than kRareMaxCopies copies of a prefix lie within that many of where the
  // pattern sorts; a small interval is read whole.
  std::uint32_t shared[kRareWindowRows];
  const auto [lo, hi] = read_neighbours(pattern, rows, depth, kRareMaxCopies, kRareWindowRows, shared);
  const kernels::RareRows rare = kernels::shortest_rare_prefix(shared, hi - lo, min_seed_ + 1);
  return {rare.length, {lo + rare.first, lo + rare.last}};
}

kernels::SeedSearchParams seed_search_params(const MapParams& params) {
  return {std::max(1u, params.min_seed), static_cast<std::uint32_t>(params.min_seed * params.reseed_factor + 0.5)};
}

namespace {

class CpuSeeder final : public StrandSeeder {
 public:
  explicit CpuSeeder(const SeedFinder& finder) : finder_(finder) {}
  void find(std::span<const SeedQuery> queries) override { finder_.find(queries); }

 private:
  const SeedFinder& finder_;
};

class GpuSeeder final : public StrandSeeder {
 public:
  GpuSeeder(GpuSeedSearch search, const SeedFinder& backup, const index::SuffixIndex& index, const MapParams& params,
            std::function<void(const std::string&)> on_failure)
      : search_(std::move(search)), backup_(backup), sa_(index.suffix_array()),
        max_occurrences_(params.max_occurrences), on_failure_(std::move(on_failure)) {}

  void find(std::span<const SeedQuery> queries) override {
    if (search_ && search_on_gpu(queries)) return;
    backup_.find(queries);
  }

 private:
  // False when the GPU failed (it is then left for good); the hits are added only after a whole call.
  bool search_on_gpu(std::span<const SeedQuery> queries) {
    patterns_.clear();
    for (const SeedQuery& q : queries) patterns_.push_back(q.pattern);
    try {
      search_(patterns_, matches_, ends_);
    } catch (const std::exception& e) {
      search_ = nullptr;
      if (on_failure_) on_failure_(e.what());
      return false;
    }
    for (std::size_t q = 0; q < queries.size(); ++q)
      for (std::uint32_t m = q == 0 ? 0 : ends_[q - 1]; m < ends_[q]; ++m)
        add_match(sa_, matches_[m], max_occurrences_, queries[q]);
    return true;
  }

  GpuSeedSearch search_;
  const SeedFinder& backup_;
  std::span<const std::uint32_t> sa_;
  std::uint32_t max_occurrences_;
  std::function<void(const std::string&)> on_failure_;
  std::vector<std::string_view> patterns_;
  std::vector<kernels::SeedMatch> matches_;
  std::vector<std::uint32_t> ends_;
};

}  // namespace

std::unique_ptr<StrandSeeder> make_cpu_seeder(const SeedFinder& finder) { return std::make_unique<CpuSeeder>(finder); }

std::unique_ptr<StrandSeeder> make_gpu_seeder(GpuSeedSearch search, const SeedFinder& backup,
                                              const index::SuffixIndex& index, const MapParams& params,
                                              std::function<void(const std::string&)> on_failure) {
  return std::make_unique<GpuSeeder>(std::move(search), backup, index, params, std::move(on_failure));
}

}  // namespace hyalign::map
