#include "index/suffix_index.hpp"

#include <divsufsort.h>
#include <divsufsort64.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <thread>

#include "core/parallel.hpp"

namespace hyalign::index {
namespace {

// Letters of the prefix table: about as many codes as text letters (a bucket holds about one
// suffix of a random text, so a seed of that length needs no binary search), at most 4^12 (two
// 64 MiB arrays).
unsigned prefix_letters_for(std::size_t text_length) {
  return static_cast<unsigned>(std::clamp(std::round(log4_of_length(text_length)), 1.0, 12.0));
}

LargeArray<std::uint32_t> build_suffix_array(const std::string& text) {
  const std::size_t n = text.size();
  LargeArray<std::uint32_t> sa(n);
  const auto* letters = reinterpret_cast<const sauchar_t*>(text.data());
  if (n < (std::size_t{1} << 31)) {
    static_assert(sizeof(saidx_t) == sizeof(std::uint32_t));
    if (divsufsort(letters, reinterpret_cast<saidx_t*>(sa.data()), static_cast<saidx_t>(n)) != 0)
      throw std::runtime_error("suffix array construction failed");
    return sa;
  }
  std::vector<saidx64_t> wide(n);
  if (divsufsort64(letters, wide.data(), static_cast<saidx64_t>(n)) != 0)
    throw std::runtime_error("suffix array construction failed");
  std::copy(wide.begin(), wide.end(), sa.begin());
  return sa;
}

void lower_to(std::atomic_ref<std::uint32_t> slot, std::uint32_t value) {
  for (std::uint32_t seen = slot.load(); value < seen && !slot.compare_exchange_weak(seen, value);) {
  }
}
void raise_to(std::atomic_ref<std::uint32_t> slot, std::uint32_t value) {
  for (std::uint32_t seen = slot.load(); value > seen && !slot.compare_exchange_weak(seen, value);) {
  }
}

}  // namespace

SuffixIndex SuffixIndex::build(ReferenceText reference, unsigned threads) {
  SuffixIndex index;
  index.ref_ = std::move(reference);
  index.sa_ = build_suffix_array(index.ref_.text);
  index.prefix_letters_ = prefix_letters_for(index.ref_.text.size());
  index.build_prefix_table(threads);
  return index;
}

SuffixIndex::SuffixIndex(ReferenceText reference, LargeArray<std::uint32_t> suffix_array, unsigned prefix_letters,
                         LargeArray<SaInterval> buckets)
    : ref_(std::move(reference)), sa_(std::move(suffix_array)), prefix_letters_(prefix_letters), buckets_(std::move(buckets)) {}

// Suffixes with one K-letter a/c/g/t prefix are consecutive rows; each thread scans a range of rows
// and records the runs it sees (a run split between two threads is joined by min/max).
void SuffixIndex::build_prefix_table(unsigned threads) {
  const std::size_t codes = std::size_t{1} << (2 * prefix_letters_);
  buckets_.assign(codes, SaInterval{UINT32_MAX, 0});
  const std::size_t n = sa_.size(), parts = std::max<std::size_t>(1, std::min<std::size_t>(n / 65536 + 1, 64 * threads));
  const std::string_view text = ref_.text;
  parallel_for(parts, threads, [&](std::size_t p, unsigned) {
    const std::size_t first = n * p / parts, end = n * (p + 1) / parts;
    long run_code = -1;
    std::size_t run_start = first;
    auto close_run = [&](std::size_t at) {
      if (run_code < 0) return;
      SaInterval& bucket = buckets_[static_cast<std::size_t>(run_code)];
      lower_to(std::atomic_ref(bucket.lo), static_cast<std::uint32_t>(run_start));
      raise_to(std::atomic_ref(bucket.hi), static_cast<std::uint32_t>(at));
    };
    constexpr std::size_t kAhead = 32;  // suffixes whose text is fetched ahead: rows point all over the text
    for (std::size_t x = first; x < end; ++x) {
      if (x + kAhead < end) __builtin_prefetch(text.data() + sa_[x + kAhead]);
      long code = 0;
      const std::size_t pos = sa_[x];
      for (unsigned i = 0; i < prefix_letters_ && code >= 0; ++i) {
        const int c = pos + i < text.size() ? base_code(text[pos + i]) : -1;
        code = c < 0 ? -1 : code * 4 + c;
      }
      if (code != run_code) {
        close_run(x);
        run_code = code;
        run_start = x;
      }
    }
    close_run(end);
  });
  for (SaInterval& bucket : buckets_)
    if (bucket.lo == UINT32_MAX) bucket = {};
}

std::size_t SuffixIndex::shared_letters(std::string_view pattern, std::uint64_t pos, std::size_t from) const {
  return from + common_length_inline(RunString{ref_.text}, pos + from, RunString{pattern}, from, pattern.size() - from);
}

std::uint32_t SuffixIndex::insertion_row(SaInterval within, std::string_view pattern, std::size_t depth) const {
  return bound_row(within, pattern, depth, false,
                   [&](std::uint64_t pos, std::size_t from) { return shared_letters(pattern, pos, from); });
}

SaInterval SuffixIndex::narrow(SaInterval within, std::string_view pattern, std::size_t depth) const {
  const auto shared = [&](std::uint64_t pos, std::size_t from) { return shared_letters(pattern, pos, from); };
  const std::uint32_t first = bound_row(within, pattern, depth, false, shared);
  return {first, bound_row({first, within.hi}, pattern, depth, true, shared)};
}

const PeriodicRuns& SuffixIndex::text_runs() const {
  // Every period on its own thread: the caller's thread count is not known here, and the pass is
  // a moment's work next to a search of a long query.
  std::call_once(text_runs_->found, [&] {
    text_runs_->runs.find(ref_.text, std::min(PeriodicRuns::kMostPeriod, std::max(1u, std::thread::hardware_concurrency())));
  });
  return text_runs_->runs;
}

long SuffixIndex::prefix_code(std::string_view pattern) const {
  if (pattern.size() < prefix_letters_) return -1;
  long code = 0;
  for (unsigned i = 0; i < prefix_letters_; ++i) {
    const int c = base_code(pattern[i]);
    if (c < 0) return -1;
    code = code * 4 + c;
  }
  return code;
}

SaInterval SuffixIndex::find(std::string_view pattern, long code) const {
  const SaInterval bucket = buckets_[static_cast<std::size_t>(code)];
  return bucket.empty() || pattern.size() == prefix_letters_ ? bucket : narrow(bucket, pattern, prefix_letters_);
}

SaInterval SuffixIndex::find(std::string_view pattern) const {
  const long code = prefix_code(pattern);
  if (code >= 0) return find(pattern, code);
  return narrow({0, static_cast<std::uint32_t>(sa_.size())}, pattern, 0);
}

std::size_t SuffixIndex::bytes() const {
  return ref_.text.size() + sa_.size() * sizeof(std::uint32_t) + buckets_.size() * sizeof(SaInterval);
}

}  // namespace hyalign::index
