#include "mem/mem.hpp"

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>

#include "core/error.hpp"
#include "core/log.hpp"
#include "core/parallel.hpp"
#include "index/index_file.hpp"
#include "io/atomic_output.hpp"
#include "io/sequence_reader.hpp"
#include "mem/mem_output.hpp"

namespace hyalign::mem {
namespace {

index::SuffixIndex load_or_build_index(const std::string& reference, unsigned threads) {
  Stopwatch clock;
  if (index::is_index_file(reference)) {
    index::SuffixIndex index = index::read_index(reference);
    log_info("read index {}: {} sequences, {} letters ({:.2f} s)", reference, index.reference().sequences(),
             index.text().size() - index.reference().sequences(), clock.lap());
    return index;
  }
  index::ReferenceText text = index::read_reference(reference);
  const double read_seconds = clock.lap();
  index::SuffixIndex index = index::SuffixIndex::build(std::move(text), threads);
  log_info("indexed {}: {} sequences, {} letters (read {:.2f} s, suffix array {:.2f} s, {:.1f} bytes per letter)",
           reference, index.reference().sequences(), index.text().size() - index.reference().sequences(),
           read_seconds, clock.lap(), static_cast<double>(index.bytes()) / static_cast<double>(index.text().size()));
  return index;
}

// IUPAC complements, as MUMmer 3.23 takes them: s and w are their own, and any letter without a
// complement becomes n.
char complement(char c) {
  switch (c) {
    case 'a': return 't';
    case 'c': return 'g';
    case 'g': return 'c';
    case 't': return 'a';
    case 'r': return 'y';
    case 'y': return 'r';
    case 'k': return 'm';
    case 'm': return 'k';
    case 'b': return 'v';
    case 'v': return 'b';
    case 'd': return 'h';
    case 'h': return 'd';
    case 's': return 's';
    case 'w': return 'w';
    default: return 'n';
  }
}

std::string lower_case(std::string_view letters) {
  std::string s(letters);
  for (char& c : s) c = index::lower_case(c);
  return s;
}

std::string reverse_complement(std::string_view letters) {
  std::string rc(letters.rbegin(), letters.rend());
  for (char& c : rc) c = complement(c);
  return rc;
}

class QueryMatcher {
 public:
  QueryMatcher(const MemOptions& options, const index::SuffixIndex& index)
      : options_(options), index_(index), finder_(index, options.params),
        style_{options.reference_names || index.reference().sequences() > 1, index.reference().longest_name(),
               options.show_lengths, options.show_substrings, options.forward_positions} {}

  // The sections of one query (forward, reverse or both), as printed; returns the match count.
  std::size_t sections(const SequenceRecord& record, std::string& out) const {
    const std::string_view name = std::string_view(record.name).substr(0, record.id_length);
    const std::string forward = lower_case(record.sequence);
    std::size_t found = 0;
    if (options_.strands != Strands::reverse) found += section(name, false, forward, out);
    if (options_.strands != Strands::forward) found += section(name, true, reverse_complement(forward), out);
    return found;
  }

 private:
  std::size_t section(std::string_view name, bool reverse, const std::string& strand, std::string& out) const {
    thread_local kernels::MemFinder::Scratch scratch;
    thread_local std::vector<kernels::MemMatch> matches;
    finder_.find(strand, matches, scratch);
    if (options_.params.kind == kernels::MemKind::mum) kernels::keep_mums(matches);
    append_section(out, index_.reference(), name, reverse, strand, matches, style_);
    return matches.size();
  }

  const MemOptions& options_;
  const index::SuffixIndex& index_;
  kernels::MemFinder finder_;
  SectionStyle style_;
};

struct QueryTotals {
  std::size_t queries = 0, letters = 0, longest = 0, matches = 0;
};

// The queries of one file, shared by the workers: each takes the next chunk of records under a
// lock, matches it, and hands its text to the writer, which prints chunks in input order. Reading
// thus overlaps matching on every thread, and memory holds a few chunks per thread.
class ChunkedQueries {
 public:
  ChunkedQueries(const std::string& path, AtomicOutput& out) : reader_(path), out_(out) {}

  struct Chunk {
    std::size_t number = 0;
    std::vector<SequenceRecord> records;
    std::string text;
    std::size_t letters = 0, longest = 0, matches = 0;
  };

  // The next chunk's records; false when the file is done.
  bool take(Chunk& chunk) {
    std::lock_guard lock(read_mutex_);
    chunk.records.clear();
    chunk.letters = chunk.longest = chunk.matches = 0;
    chunk.text.clear();
    while (!done_ && chunk.letters < kChunkLetters && chunk.records.size() < kChunkRecords) {
      chunk.records.emplace_back();
      if (!reader_.next(chunk.records.back())) {
        chunk.records.pop_back();
        done_ = true;
      } else {
        chunk.letters += chunk.records.back().sequence.size();
        chunk.longest = std::max(chunk.longest, chunk.records.back().sequence.size());
      }
    }
    chunk.number = taken_++;
    return !chunk.records.empty();
  }

  // Prints the chunk when every earlier one is printed, else keeps it until they are.
  void give(Chunk&& chunk, QueryTotals& totals) {
    std::lock_guard lock(write_mutex_);
    waiting_.emplace(chunk.number, std::move(chunk));
    for (auto it = waiting_.find(written_); it != waiting_.end(); it = waiting_.find(++written_)) {
      out_.write(it->second.text);
      totals.queries += it->second.records.size();
      totals.letters += it->second.letters;
      totals.longest = std::max(totals.longest, it->second.longest);
      totals.matches += it->second.matches;
      waiting_.erase(it);
    }
  }

 private:
  static constexpr std::size_t kChunkLetters = std::size_t{256} << 10;
  static constexpr std::size_t kChunkRecords = 1024;
  SequenceReader reader_;
  AtomicOutput& out_;
  std::mutex read_mutex_, write_mutex_;
  bool done_ = false;
  std::size_t taken_ = 0, written_ = 0;
  std::map<std::size_t, Chunk> waiting_;
};

void match_query_file(const std::string& path, const QueryMatcher& matcher, unsigned threads, AtomicOutput& out,
                      QueryTotals& totals) {
  ChunkedQueries queries(path, out);
  std::atomic<bool> failed{false};
  parallel_for(threads, threads, [&](std::size_t, unsigned) {
    try {
      ChunkedQueries::Chunk chunk;
      while (!failed.load(std::memory_order_relaxed) && queries.take(chunk)) {
        for (const SequenceRecord& record : chunk.records) chunk.matches += matcher.sections(record, chunk.text);
        queries.give(std::move(chunk), totals);
        chunk = {};
      }
    } catch (...) {
      failed = true;  // the others stop at their next chunk; parallel_for rethrows this
      throw;
    }
  });
}

}  // namespace

void run_mem(const MemOptions& options) {
  AtomicOutput out(options.out);  // opened first: an unwritable output fails before any work
  Stopwatch clock;
  const index::SuffixIndex index = load_or_build_index(options.reference, options.threads);
  clock.lap();
  const QueryMatcher matcher(options, index);
  QueryTotals totals;
  for (const std::string& path : options.queries) match_query_file(path, matcher, options.threads, out, totals);
  if (totals.queries == 0) throw InputError(options.queries.front(), "no query sequences");
  if (totals.longest < options.params.min_length)
    log_warning("-l {} is longer than every query (the longest has {} letters): no match can be found",
                options.params.min_length, totals.longest);
  out.finish();
  log_info("matched {} queries ({} letters): {} matches ({:.2f} s); peak memory {:.0f} MiB", totals.queries,
           totals.letters, totals.matches, clock.lap(), peak_memory_mib());
  out.commit();
}

void run_mem_index(const std::string& reference, const std::string& out, unsigned threads) {
  const index::SuffixIndex index = load_or_build_index(reference, threads);
  Stopwatch clock;
  index::write_index(index, out);
  log_info("wrote {} ({:.1f} MiB, {:.2f} s); peak memory {:.0f} MiB", out,
           static_cast<double>(index.bytes()) / (1 << 20), clock.lap(), peak_memory_mib());
}

}  // namespace hyalign::mem
