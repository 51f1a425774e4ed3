#include "search/search.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <functional>
#include <future>
#include <numeric>
#include <optional>
#include <system_error>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/log.hpp"
#include "core/nucleotides.hpp"
#include "core/parallel.hpp"
#include "core/score_matrix.hpp"
#include "dist/job.hpp"
#include "dist/ordered_output.hpp"
#include "engine/device_start.hpp"
#include "io/atomic_output.hpp"
#include "io/blast_tabular.hpp"
#include "io/byte_source.hpp"
#include "io/coded_sequences.hpp"
#include "io/sequence_reader.hpp"
#include "kernels/cuda/sw_cuda.hpp"
#include "kernels/sw_kernel.hpp"
#include "search/split_database.hpp"
#include "search/statistics.hpp"
#include "search/top_hits.hpp"
#include "search/tracebacks.hpp"

namespace hyalign::search {
namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

SequenceType detect_type(const std::vector<SequenceRecord>& queries) {
  std::size_t nucleotides = 0, letters = 0;
  for (const auto& q : queries)
    for (char c : q.sequence) {
      if (c == '-' || c == '.' || c == '*') continue;
      ++letters;
      switch (c) {
        case 'A': case 'C': case 'G': case 'T': case 'U': case 'N':
        case 'a': case 'c': case 'g': case 't': case 'u': case 'n': ++nucleotides; break;
        default: break;
      }
    }
  return letters > 0 && nucleotides * 10 >= letters * 9 ? SequenceType::dna : SequenceType::protein;
}

bool is_longest_first(const CodedSequences& chunk) {
  for (std::size_t i = 1; i < chunk.size(); ++i)
    if (chunk.length(i) > chunk.length(i - 1)) return false;
  return true;
}

// A copy of the chunk with its sequences in decreasing length, so SIMD lanes hold similar lengths.
CodedSequences sorted_by_length(const CodedSequences& chunk) {
  std::vector<std::size_t> order(chunk.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return chunk.length(a) > chunk.length(b); });
  CodedSequences out;
  out.residues.reserve(chunk.residues.size());
  out.names.reserve(chunk.names.size());
  for (std::size_t i : order) out.add(chunk.name(i), chunk.sequence(i), chunk.ids[i]);
  return out;
}

// Runs read() on another thread, or later in the caller when the system refuses a thread.
template <typename Read>
std::future<bool> read_in_background(Read read) {
  try {
    return std::async(std::launch::async, read);
  } catch (const std::system_error&) {
    return std::async(std::launch::deferred, read);
  }
}

// Where a run's wall time goes, for the log.
struct StepSeconds {
  double queries = 0;         // from the start to the first scoring: queries read (the GPUs start meanwhile)
  double reading_waited = 0;  // the database read while no scoring ran
  double scoring = 0, tracebacks = 0, writing = 0;
  // The seconds the summary's GCUPS and each rank's share count: the hits found and traced back.
  double scoring_and_tracebacks() const { return scoring + tracebacks; }
  void log() const {
    log_info("steps: queries {:.2f} s, database reading not overlapped {:.2f} s, scoring {:.2f} s, "
             "tracebacks {:.2f} s, writing {:.2f} s",
             queries, reading_waited, scoring, tracebacks, writing);
  }
};

// ---- Step 1: read the queries ----
constexpr std::size_t kQueriesPerUnit = 4096;  // the most an MPI rank takes at a time
std::vector<SequenceRecord> read_queries(const std::string& path) {
  std::vector<SequenceRecord> records;
  SequenceReader reader(path);
  SequenceRecord record;
  while (reader.next(record)) records.push_back(record);
  if (records.empty()) throw InputError(path, "no query sequences");
  return records;
}

// The strands each query is searched on. A query's searched strands are consecutive, plus first,
// and a unit of queries (dist::ItemUnits) holds both of them.
struct QueryStrands {
  bool plus = true, minus = false;
  std::size_t per_query() const { return std::size_t{plus} + std::size_t{minus}; }
  bool is_minus(std::size_t searched) const { return minus && (!plus || searched % 2 == 1); }
};

QueryStrands query_strands(const SearchOptions& o, bool dna) {
  if (dna) return {o.strands != Strands::minus, o.strands != Strands::plus};
  if (o.strands_given) throw UsageError("--strand: the queries are protein, which have one strand");
  return {};
}

// The queries as searched: each one's strands in turn, the minus strand reverse-complemented.
std::vector<SequenceRecord> searched_strands(std::vector<SequenceRecord> records, QueryStrands strands) {
  if (!strands.minus) return records;
  std::vector<SequenceRecord> searched;
  searched.reserve(records.size() * strands.per_query());
  for (SequenceRecord& r : records) {
    if (strands.plus) searched.push_back(r);
    searched.push_back(std::move(r));
    std::string& letters = searched.back().sequence;
    std::erase_if(letters, [](char c) { return c == '-' || c == '.'; });  // alignment gaps, not residues
    reverse_complement_letters(letters);
  }
  return searched;
}

// ---- Step 2: prepare the scoring ----
struct Scoring {
  bool dna = false;
  ScoreMatrix matrix;
  int gap_open = 0, gap_extend = 0;
  std::optional<KarlinAltschul> statistics;
  kernels::SwScoring kernel() const { return {&matrix, gap_open, gap_extend}; }
};

Scoring prepare_scoring(const SearchOptions& o, SequenceType type) {
  const bool dna = type == SequenceType::dna;
  if (dna && o.matrix_given)
    throw UsageError(fmt::format("-m {}: the queries are DNA, scored with --match and --mismatch (--type protein "
                                 "reads them as protein)",
                                 o.matrix));
  if (!dna && o.dna_scores_given)
    throw UsageError("--match/--mismatch score DNA, and the queries are protein, scored with -m (--type dna reads "
                     "them as DNA)");
  std::error_code no_file;  // a name that is no file (or cannot be looked at) is a built-in matrix
  const bool matrix_file = !dna && std::filesystem::exists(o.matrix, no_file);
  Scoring s{dna,
            dna           ? ScoreMatrix::dna(o.match, o.mismatch)
            : matrix_file ? ScoreMatrix::from_ncbi_file(o.matrix)
                          : ScoreMatrix::builtin(o.matrix),
            o.gap_open.value_or(dna ? 5 : 11), o.gap_extend.value_or(dna ? 2 : 1), std::nullopt};
  if (s.gap_open < 0 || s.gap_extend < 0) throw UsageError("gap costs must not be negative");
  s.statistics = dna           ? karlin_altschul_dna(o.match, o.mismatch, s.gap_open, s.gap_extend)
                 : matrix_file ? std::nullopt
                               : karlin_altschul(o.matrix, s.gap_open, s.gap_extend);
  if (!s.statistics && o.max_evalue)
    throw UsageError(fmt::format("--evalue: there are no E-values for {} with gaps {}/{} (no Karlin-Altschul "
                                 "parameters are known for that scoring)",
                                 s.matrix.name(), s.gap_open, s.gap_extend));
  if (!s.statistics)
    log_info("notice: no Karlin-Altschul parameters for {} with gaps {}/{}: evalue and bitscore are written as NA",
             s.matrix.name(), s.gap_open, s.gap_extend);
  return s;
}

CodedSequences encode_queries(const std::vector<SequenceRecord>& records, const ScoreMatrix& matrix,
                              const std::string& path) {
  CodedSequences queries;
  UnknownLetters unknown;
  for (std::size_t q = 0; q < records.size(); ++q)
    add_coded(queries, std::string_view(records[q].name).substr(0, records[q].id_length), records[q].sequence, matrix,
              q, unknown);
  warn_unknown_letters(unknown, matrix, path);
  return queries;
}

// The database chunks this rank scores, in database order: every chunk, or with --split-database
// the chunks dealt out in turn (chunk c to rank c mod N), the others passed over unread where the
// format allows (a makedb database; a FASTA file is still parsed).
class RankChunks {
 public:
  RankChunks(SequenceSource& source, bool split) : source_(source), split_(split) {}
  bool next(CodedSequences& chunk) {
    std::size_t unit;
    if (split_)
      return dealt_.next_mine([&] { return source_.next_chunk(chunk); }, [&] { return source_.skip_chunk(); }, unit);
    if (!source_.next_chunk(chunk)) return false;
    ++read_;
    return true;
  }
  // The chunks of the whole database, once next() has returned false.
  std::size_t chunks_seen() const { return split_ ? dealt_.count() : read_; }

 private:
  SequenceSource& source_;
  const bool split_;
  dist::UnitCounter dealt_;
  std::size_t read_ = 0;
};

// ---- Step 3: score every chunk of the database; step 4: reduce into the top hits ----
class ChunkScorer {
 public:
  ChunkScorer(engine::StartingDevices<kernels::SwKernel>& devices, const CodedSequences& queries, TopHits& top,
              unsigned threads)
      : devices_(devices), queries_(queries), top_(top), threads_(threads) {}

  // Counts a chunk read: its cells start held GPUs (a database from a pipe or a small gzip file)
  // once past their bound.
  void count(const CodedSequences& chunk) {
    devices_.count_work(static_cast<double>(queries_.residues.size()) * static_cast<double>(chunk.residues.size()));
  }
  // Tiles: one query against a block of similar-length targets (CPU), or many of them (GPU). After
  // each GPU take, the hits it listed are traced back while the next take is scored.
  void score(const CodedSequences& chunk, std::size_t chunk_number, ChunkTracebacks& tracebacks) {
    const kernels::SwSequences targets = chunk.view();
    const std::size_t width = block_width(chunk.size());
    engine::TileQueue queue(chunk.size(), width, queries_.size(), 1, engine::TileOrder::target_blocks_outer);
    queue.set_block_costs(block_residues(chunk, width));
    Progress progress(fmt::format("scoring chunk {}", chunk_number), queue.tile_count());  // on a terminal only
    const auto chunk_reports = devices_.run(
        queue, &progress,
        [&](kernels::SwKernel& kernel, std::size_t w, const engine::WorkTile& tile) {
          const double cells = score_tile(kernel, w, tile, chunk, targets);
          if (tile.target_count > width) tracebacks.trace_listed(top_);  // a CPU tile is one block
          return cells;
        },
        [&](std::size_t workers) {
          scorers_.resize(std::max(scorers_.size(), workers));
          buffers_.resize(scorers_.size());
        },
        [&] {
          for (const auto& g : devices_.devices().gpus) g->set_targets(targets);
        });
    engine::add_reports(reports_, chunk_reports);
  }
  // Whether the next chunk is read while this one is scored: GPUs score it, or they start while
  // the CPU does (the CPU's work leaves time to read then; alone, its cores are all scoring).
  bool reads_ahead() { return devices_.gpus_work() || devices_.starting(); }
  // After the last chunk: each worker's scorer and score buffer are freed on a thread of their own
  // while the hits are traced back. A GPU worker's take buffers hold up to 2^28 scores twice (page-
  // locked and plain): on the H200, 0.15 s a GPU to free, one GPU after the other at the end.
  void release_in_background() {
    for (std::size_t w = 0; w < scorers_.size(); ++w)
      released_.push_back(engine::start_in_background(
          [scorer = std::shared_ptr<kernels::SwScorer>(std::move(scorers_[w])),
           buffer = std::make_shared<std::vector<int>>(std::move(buffers_[w]))]() mutable {
            scorer.reset();
            buffer.reset();
          }));
    scorers_.clear();
    buffers_.clear();
  }
  // The scorers use their GPU kernels: they are gone before the devices.
  ~ChunkScorer() {
    for (const auto& r : released_) r.wait();
  }
  const std::vector<engine::DeviceReport>& reports() const { return reports_; }

 private:
  // Blocks of 32 vectors of targets, or fewer where a small chunk would give too few tiles to keep
  // every thread busy to the end: 20 queries against 2,000 sequences made 20 tiles for 16 threads
  // (two tiles' time for 1.25 tiles of work each), one query against 20,000 sequences 10 tiles.
  std::size_t block_width(std::size_t targets) {
    constexpr std::size_t kVectorsPerBlock = 32, kTilesPerThread = 8;
    const std::size_t lanes = devices_.cpu().lanes();
    const auto tiles = [&](std::size_t vectors) { return queries_.size() * ((targets + lanes * vectors - 1) / (lanes * vectors)); };
    std::size_t vectors = kVectorsPerBlock;
    while (vectors > 1 && tiles(vectors) < kTilesPerThread * threads_) vectors /= 2;
    return lanes * vectors;
  }
  // The residues of each block of the chunk: the chunk is sorted by length, so a block of its last
  // sequences holds many times the work of one of its first.
  static std::vector<double> block_residues(const CodedSequences& chunk, std::size_t width) {
    std::vector<double> residues;
    for (std::size_t first = 0; first < chunk.size(); first += width) {
      const std::size_t end = std::min(chunk.size(), first + width);
      residues.push_back(static_cast<double>(chunk.offsets[end] - chunk.offsets[first]));
    }
    return residues;
  }
  double score_tile(kernels::SwKernel& kernel, std::size_t w, const engine::WorkTile& tile,
                    const CodedSequences& chunk, const kernels::SwSequences& targets) {
    if (!scorers_[w]) scorers_[w] = kernel.make_scorer();
    std::vector<int>& scores = buffers_[w];
    scores.resize(tile.query_count * tile.target_count);
    scorers_[w]->score_tile(queries_.view(), targets, tile, scores.data());
    // A GPU's take holds many queries' scores: they are ranked on all threads, so the GPU's next
    // take waits as little as it can (a CPU tile holds one query).
    parallel_for(tile.query_count, threads_, [&](std::size_t q, unsigned) {
      top_.offer(tile.first_query + q, scores.data() + q * tile.target_count, tile.first_target, tile.target_count,
                 chunk);
    });
    std::size_t query_residues = 0;
    for (std::size_t q = 0; q < tile.query_count; ++q) query_residues += queries_.length(tile.first_query + q);
    return static_cast<double>(query_residues) *
           static_cast<double>(chunk.offsets[tile.first_target + tile.target_count] - chunk.offsets[tile.first_target]);
  }

  engine::StartingDevices<kernels::SwKernel>& devices_;
  const CodedSequences& queries_;
  TopHits& top_;
  const unsigned threads_;
  std::vector<std::unique_ptr<kernels::SwScorer>> scorers_;
  std::vector<std::vector<int>> buffers_;
  std::vector<engine::DeviceReport> reports_;
  std::vector<std::shared_future<void>> released_;
};

// ---- Step 6: write ----
// What the rows of hits are made from.
struct HitRows {
  const TabularFormat& format;
  const CodedSequences& queries;  // as searched: each query's strands in turn
  QueryStrands strands;
  const TopHits& top;
  const Scoring& scoring;
  const DatabaseShare& database;
  std::optional<double> max_evalue;
};

// A hit of a query on one of its searched strands.
struct StrandHit {
  std::size_t searched;
  engine::ScoredTarget hit;
};

// The best hits of the query whose strands are searched as [first, first + per_query): the best
// k of its strands' lists, by score, then database order, then plus before minus.
std::vector<StrandHit> best_of_strands(const TopHits& top, std::size_t first, std::size_t per_query) {
  std::vector<StrandHit> hits;
  for (std::size_t s = first; s < first + per_query; ++s)
    for (const engine::ScoredTarget& hit : top.of(s)) hits.push_back({s, hit});
  if (per_query == 1) return hits;
  std::stable_sort(hits.begin(), hits.end(), [](const StrandHit& a, const StrandHit& b) {
    return engine::ranks_before({a.hit.score, a.hit.target}, {b.hit.score, b.hit.target});
  });
  if (hits.size() > top.k()) hits.resize(top.k());
  return hits;
}

// A hit's aligned letters, gaps as '-' (BLAST's qseq and sseq), and its positive columns (pairs
// the matrix scores above 0), from its CIGAR; on the minus strand turned to the query's own strand,
// the subject's letters complemented, as BLAST shows them.
struct AlignedLetters {
  std::string query, target;
  std::size_t positive = 0;
};
AlignedLetters aligned_letters(const kernels::SwAlignment& a, std::span<const std::uint8_t> query,
                               std::string_view target_codes, const ScoreMatrix& matrix, bool minus) {
  AlignedLetters out;
  std::size_t q = a.query_start - 1, t = 0;
  for (std::size_t p = 0; p < a.cigar.size();) {
    std::size_t run = 0;
    while (a.cigar[p] >= '0' && a.cigar[p] <= '9') run = run * 10 + static_cast<std::size_t>(a.cigar[p++] - '0');
    const char op = a.cigar[p++];
    for (std::size_t k = 0; k < run; ++k) {
      const bool in_query = op != 'D', in_target = op != 'I';
      const auto target_code = in_target ? static_cast<std::uint8_t>(target_codes[t]) : std::uint8_t{0};
      out.query.push_back(in_query ? matrix.decode(query[q]) : '-');
      out.target.push_back(in_target ? matrix.decode(target_code) : '-');
      out.positive += op == 'M' && matrix.score(query[q], target_code) > 0;
      q += in_query;
      t += in_target;
    }
  }
  if (minus)
    for (std::string* letters : {&out.query, &out.target}) {
      std::reverse(letters->begin(), letters->end());
      for (char& c : *letters)
        if (c != '-') c = kComplementLetters[static_cast<unsigned char>(c)];
    }
  return out;
}

// One hit's row. A hit on the minus strand is given on the query's own strand, as BLAST gives it:
// its query positions counted on the query, its subject positions from end to start.
TabularHit row_of(const HitRows& r, const StrandHit& h) {
  const HitDetails& d = r.top.details(h.searched, h.hit.target);
  const kernels::SwAlignment& a = d.alignment;
  const std::size_t query_length = r.queries.length(h.searched);
  const bool minus = r.strands.is_minus(h.searched);
  TabularHit row;
  row.qseqid = r.queries.name(h.searched);
  row.stitle = d.title;
  row.sseqid = row.stitle.substr(0, row.stitle.find(' '));
  row.length = a.length;
  row.nident = a.identities;
  row.mismatch = a.mismatches;
  row.gapopen = a.gap_opens;
  row.gaps = a.gap_columns;
  row.qstart = minus ? query_length + 1 - a.query_end : a.query_start;
  row.qend = minus ? query_length + 1 - a.query_start : a.query_end;
  row.sstart = minus ? a.target_end : a.target_start;
  row.send = minus ? a.target_start : a.target_end;
  row.qlen = query_length;
  row.slen = d.length;
  row.score = h.hit.score;
  if (r.scoring.dna) row.sstrand = minus ? "minus" : "plus";
  if (r.format.needs_aligned_letters()) {
    AlignedLetters letters =
        aligned_letters(a, r.queries.sequence(h.searched), d.target_codes, r.scoring.matrix, minus);
    row.qseq = std::move(letters.query);
    row.sseq = std::move(letters.target);
    row.positive = letters.positive;
  }
  if (const auto& ka = r.scoring.statistics) {
    row.bitscore = bit_score(h.hit.score, *ka);
    row.evalue = evalue(h.hit.score,
                        {static_cast<double>(query_length), static_cast<double>(d.length),
                         static_cast<double>(r.database.residues), static_cast<double>(r.database.sequences)},
                        *ka);
  }
  return row;
}

// BLAST's qcovs: for each of a query's rows, the query letters covered by all its rows on that
// row's subject (a subject can hold hits on both strands).
void set_subject_cover(std::vector<TabularHit>& rows, const std::vector<StrandHit>& hits) {
  std::vector<std::size_t> order(rows.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return std::pair(hits[a].hit.target, rows[a].qstart) < std::pair(hits[b].hit.target, rows[b].qstart);
  });
  for (std::size_t first = 0; first < order.size();) {
    std::size_t end = first, covered = 0, covered_to = 0;  // covered_to: the last query position counted
    for (; end < order.size() && hits[order[end]].hit.target == hits[order[first]].hit.target; ++end) {
      const TabularHit& row = rows[order[end]];
      if (row.qend > covered_to) covered += row.qend - std::max(row.qstart - 1, covered_to);
      covered_to = std::max(covered_to, row.qend);
    }
    for (std::size_t i = first; i < end; ++i) rows[order[i]].subject_query_cover = covered;
    first = end;
  }
}

// The rows of the queries searched as [first, end), appended to `out`.
void write_hits(std::string& out, std::size_t first, std::size_t end, const HitRows& r) {
  for (std::size_t q = first; q < end; q += r.strands.per_query()) {
    std::vector<StrandHit> hits;  // those shown, each in its row
    std::vector<TabularHit> rows;
    for (const StrandHit& h : best_of_strands(r.top, q, r.strands.per_query())) {
      TabularHit row = row_of(r, h);
      if (r.max_evalue && *row.evalue > *r.max_evalue) continue;
      rows.push_back(std::move(row));
      hits.push_back(h);
    }
    if (r.format.needs_subject_cover()) set_subject_cover(rows, hits);
    for (const TabularHit& row : rows) out += r.format.line(row);
  }
}

// The rows of every query, rank 0's alone (--split-database), a unit's worth of queries at a time.
void write_every_query(AtomicOutput& out, const HitRows& r) {
  for (std::size_t first = 0; first < r.queries.size(); first += kQueriesPerUnit) {
    std::string text;
    write_hits(text, first, std::min(r.queries.size(), first + kQueriesPerUnit), r);
    out.write(text);
  }
}

// The rows of this rank's units of queries, written by rank 0 in input order; returns what every
// rank did (rank 0) or this rank's share (counts: queries, cells, scoring microseconds).
std::vector<dist::RankShare> write_in_units(std::optional<AtomicOutput>& out, const dist::ItemUnits& units,
                                            const HitRows& r, std::size_t cells, double scoring_seconds) {
  dist::OrderedOutput ordered([&](std::string_view bytes) { out->write(bytes); });
  units.for_each_mine([&](std::size_t unit, std::size_t first, std::size_t end) {
    std::string text;
    write_hits(text, first, end, r);
    ordered.write(unit, text);
    ordered.end(unit);
  });
  return ordered.finish(units.count(), {r.queries.size() / r.strands.per_query(), cells,
                                        static_cast<std::uint64_t>(std::llround(scoring_seconds * 1e6))});
}

// Devices: the CPU kernel on the threads, one worker per GPU with a core of its own (it unpacks
// and ranks its scores while the GPU waits), at most 2^28 scores (1 GiB here, half that on the
// GPU) per GPU take: 10,000 queries then take 26 database blocks at once, and the launches' tails
// matter less (H100: 4,424 GCUPS against 4,213 with 2^26, peak memory 1.9 GiB against 0.7). With
// --device auto, GPUs score alone: on the H100, 15 AVX-512 cores beside it took 5-7 % of the
// cells and made scoring 1.3-1.4x as long (the GPU's host side and small first takes wait on
// them); --device all still puts every core to work.
engine::Devices<kernels::SwKernel> plan_search_devices(const SearchOptions& o, const Scoring& scoring,
                                                       unsigned threads, std::shared_ptr<kernels::SwKernel> cpu_kernel,
                                                       const std::function<bool()>& cancelled) {
  const std::size_t block = cpu_kernel->lanes() * 32;  // the widest block (ChunkScorer::block_width)
  engine::WorkShape shape{std::max<std::size_t>(1, (std::size_t{1} << 28) / block), block * sizeof(int)};
  if (o.device == engine::DeviceChoice::automatic) shape.cpu_share_beside_gpus = 0;
  return engine::plan_devices<kernels::SwKernel>(
      o.device, threads, [&] { return kernels::cuda::sw_gpu_unsupported_reason(scoring.kernel()); }, std::move(cpu_kernel),
      [&](int gpu) { return kernels::cuda::make_sw_gpu_kernel(gpu, scoring.kernel(), threads); }, shape, cancelled);
}

// What scores a chunk of the database and aligns its top hits.
struct ChunkWork {
  ChunkScorer& scorer;
  TopHits& top;
  TracebackSetup tracebacks;
};

// Scores this rank's chunks of the database, `chunk` first once `first_chunk` has read it. While
// GPUs score, the CPU has time to read the next chunk as one is scored (two chunks in memory then);
// on the CPU alone chunks are read in turn, as reading would take cores from scoring. Returns what
// this rank scored.
DatabaseShare score_chunks(RankChunks& rank_chunks, CodedSequences& chunk, std::future<bool>& first_chunk,
                           const ChunkWork& work, StepSeconds& steps) {
  DatabaseShare mine;
  CodedSequences next_chunk;
  auto step_start = Clock::now();
  bool more = first_chunk.get();
  steps.reading_waited += seconds_since(step_start);
  for (; more; std::swap(chunk, next_chunk)) {
    work.scorer.count(chunk);  // before reading ahead: a chunk that starts the GPUs is scored as they start
    const bool read_ahead = work.scorer.reads_ahead();
    std::future<bool> ahead;
    if (read_ahead) ahead = read_in_background([&] { return rank_chunks.next(next_chunk); });
    // Databases made by makedb come in this order already; other input is sorted here.
    CodedSequences sorted_copy;
    const bool in_order = is_longest_first(chunk);
    if (!in_order) sorted_copy = sorted_by_length(chunk);
    const CodedSequences& sorted = in_order ? chunk : sorted_copy;
    mine.sequences += sorted.size();
    mine.residues += sorted.residues.size();
    step_start = Clock::now();
    ChunkTracebacks tracebacks(work.tracebacks, sorted);
    work.scorer.score(sorted, ++mine.chunks, tracebacks);
    steps.scoring += seconds_since(step_start);
    // Read ahead, the next chunk is there by now, or there is none: the scorers are not needed then.
    std::optional<bool> more_read_ahead;
    if (read_ahead && ahead.wait_for(std::chrono::seconds(0)) == std::future_status::ready) {
      more_read_ahead = ahead.get();
      if (!*more_read_ahead) work.scorer.release_in_background();
    }
    step_start = Clock::now();
    tracebacks.finish(work.top);
    steps.tracebacks += seconds_since(step_start);
    step_start = Clock::now();
    more = more_read_ahead ? *more_read_ahead : read_ahead ? ahead.get() : rank_chunks.next(next_chunk);
    steps.reading_waited += seconds_since(step_start);
  }
  mine.chunks_seen = rank_chunks.chunks_seen();
  return mine;
}

// The run's summary line: sizes, the job's cells (every rank's) and GCUPS over this rank's seconds
// (the ranks score at once), time and memory.
void log_search(const CodedSequences& queries, QueryStrands strands, const DatabaseShare& database,
                const Scoring& scoring, double cells, const StepSeconds& steps, double wall_seconds) {
  const double scoring_seconds = steps.scoring_and_tracebacks();
  const char* strand_text = !scoring.dna ? "" : strands.per_query() == 2 ? ", both strands" : strands.minus ? ", minus strand" : ", plus strand";
  log_info("searched {} {} queries ({} residues{}) against {} sequences ({} residues, {} chunk{}) with {}, gaps {}/{}: "
           "{:.3g} cells in {:.2f} s ({:.2f} GCUPS, top hits aligned), {:.2f} s in all, peak memory {:.0f} MiB",
           queries.size() / strands.per_query(), scoring.dna ? "DNA" : "protein",
           queries.residues.size() / strands.per_query(), strand_text, database.sequences,
           database.residues, database.chunks_seen, database.chunks_seen == 1 ? "" : "s", scoring.matrix.name(),
           scoring.gap_open, scoring.gap_extend, cells, scoring_seconds, cells / std::max(1e-9, scoring_seconds) / 1e9,
           wall_seconds, peak_memory_mib());
}

// Cells a core scores in a quarter to half a second (9-15 GCUPS a core with AVX2 or AVX-512:
// docs/performance.md), about what CUDA's start takes.
constexpr double kSmallJobCellsPerThread = 4e9;

// Why a job of `cells` was left on the CPU.
std::string scored_before_gpus_started(const std::string& cells) {
  return fmt::format("search: {}: the CPU's cores scored them before the GPUs could have started, so they were not",
                     cells);
}

// Why the job is too small for the GPUs, where the database's size bounds its cells (plain files
// and makedb databases: a residue takes a byte at least). Else a gzip database large by its
// compressed bytes alone is not; the GPUs of the rest (pipes, smaller gzip files) are held until
// the chunks read pass the bound, the first chunk cut just past it (first_chunk_at_least).
std::optional<std::string> too_few_cells_for_gpus(const SearchOptions& o, std::size_t query_residues) {
  const double most = kSmallJobCellsPerThread * std::max(1u, o.threads);
  const auto cells = [&](std::uint64_t database_residues) {
    return static_cast<double>(query_residues) * static_cast<double>(database_residues) / dist::size();
  };
  const std::optional<std::uint64_t> database_bytes = size_as_read(o.database);
  if (!database_bytes) {
    if (cells(letters_at_least({o.database})) > most) return "";
    return std::nullopt;
  }
  if (cells(*database_bytes) > most) return "";
  return scored_before_gpus_started(fmt::format("{:.3g} cells at most", cells(*database_bytes)));
}

// The residues of a first chunk whose cells start held GPUs (count_work): a large database read
// through a pipe starts them once that much is read rather than after a whole chunk (256 MiB), and
// a small one is that chunk. 0: no cut (the GPUs are not held).
std::size_t first_chunk_at_least(const engine::GpuStart& start, double hold_cells, std::size_t query_residues) {
  if (!start.held || query_residues == 0) return 0;
  return static_cast<std::size_t>(hold_cells / static_cast<double>(query_residues)) + 1;
}

}  // namespace

void run_search(const SearchOptions& given) {
  if (given.top == 0) throw UsageError("-k/--top must be at least 1");
  const TabularFormat format = TabularFormat::parse(given.outfmt);
  std::optional<AtomicOutput> out;  // rank 0's; opened first: an unwritable output fails before any work
  check_uncompressed_name(given.out, "BLAST tabular text");
  check_not_an_input(given.out, std::array{given.queries, given.database});
  if (dist::writes_output()) out.emplace(given.out);
  // --device gpu and all need no input to start CUDA: it starts while MPI's start is awaited
  // (check_same_inputs) and the queries are read. auto waits for the job's size (plan_gpu_start).
  if (given.device == engine::DeviceChoice::gpu || given.device == engine::DeviceChoice::all)
    engine::start_gpu_enumeration(given.device);
  dist::check_same_inputs({given.queries, given.database});
  SearchOptions o = given;
  const auto start = Clock::now();
  std::vector<SequenceRecord> records = read_queries(o.queries);
  const Scoring scoring = prepare_scoring(o, o.type == SequenceType::automatic ? detect_type(records) : o.type);
  const QueryStrands strands = query_strands(o, scoring.dna);
  const CodedSequences all_queries =
      encode_queries(searched_strands(std::move(records), strands), scoring.matrix, o.queries);
  // The queries read (from a pipe too) and the database's size decide whether CUDA starts.
  const engine::GpuStart gpu_start =
      engine::plan_gpu_start(o.device, [&] { return too_few_cells_for_gpus(o, all_queries.residues.size()); });
  // MPI ranks take the queries in units of consecutive queries of about equal residues, in turn,
  // and each searches the whole database; or, with the database split, each scores every query
  // against its own chunks.
  const auto units = dist::ItemUnits::of_sequences(all_queries, kQueriesPerUnit, strands.per_query());
  CodedSequences query_share;
  const CodedSequences& queries = o.split_database ? all_queries : units.share_of(all_queries, query_share);
  const unsigned threads = std::max(1u, o.threads);
  const double hold_cells = kSmallJobCellsPerThread * threads;
  const auto source = open_sequences(o.database, scoring.matrix, o.chunk_residues, threads,
                                     first_chunk_at_least(gpu_start, hold_cells, queries.residues.size()));
  RankChunks rank_chunks(*source, o.split_database);
  // The first chunk is read while the GPUs start (their contexts take a few tenths of a second),
  // unless they are held.
  CodedSequences chunk;
  std::future<bool> first_chunk = read_in_background([&] { return rank_chunks.next(chunk); });

  engine::StartingDevices<kernels::SwKernel> devices(
      o.device, threads, kernels::make_sw_cpu_kernel(o.kernel, scoring.kernel()),
      [&](auto cpu, const auto& cancelled) { return plan_search_devices(o, scoring, threads, std::move(cpu), cancelled); },
      gpu_start.hold_until(hold_cells));
  TopHits top(queries.size(), o.top);
  ChunkScorer scorer(devices, queries, top, threads);
  StepSeconds steps;
  steps.queries = seconds_since(start);
  const ChunkWork work{scorer, top, {queries, scoring.kernel(), o.kernel, threads, format.needs_aligned_letters()}};
  DatabaseShare mine = score_chunks(rank_chunks, chunk, first_chunk, work, steps);
  if (mine.chunks_seen == 0) throw InputError(o.database, "no database sequences");
  mine.unknown = source->unknown_letters();
  for (const engine::DeviceReport& report : scorer.reports()) mine.cells += static_cast<std::size_t>(report.cells);

  // With the database split, rank 0 merges every rank's top hits and writes every query's rows.
  const std::vector<DatabaseShare> database_shares =
      o.split_database ? gather_at_rank_zero(std::move(mine), top) : std::vector<DatabaseShare>{std::move(mine)};
  if (database_shares.empty()) return;  // a rank other than 0 whose hits rank 0 took
  const DatabaseShare database = summed(database_shares);
  if (database.residues == 0) throw InputError(o.database, "the database's sequences hold no residues");
  warn_unknown_letters(database.unknown, scoring.matrix, o.database);
  const auto step_start = Clock::now();
  std::vector<dist::RankShare> query_shares;
  const HitRows rows{format, queries, strands, top, scoring, database, o.max_evalue};
  if (o.split_database)
    write_every_query(*out, rows);
  else
    query_shares = write_in_units(out, units, rows, database.cells, steps.scoring_and_tracebacks());
  if (!out) return;
  out->commit();
  steps.writing = seconds_since(step_start);
  if (!gpu_start.why_cpu.empty()) log_info("{}", gpu_start.why_cpu);
  if (devices.held()) {
    const std::string cells = fmt::format("{:.3g} cells", devices.work_counted());
    log_info("{}", engine::small_job_line(scored_before_gpus_started(cells)));
  }
  // The job's queries and cells (every rank's), this rank's seconds.
  const double job_cells = static_cast<double>(o.split_database ? database.cells : dist::summed(query_shares)[1]);
  log_search(all_queries, strands, database, scoring, job_cells, steps, seconds_since(start));
  engine::log_device_reports(scorer.reports());
  if (o.split_database)
    log_shares(database_shares);
  else
    dist::log_shares(query_shares, 0, "queries", dist::cells_and_seconds(1, 2));
  steps.log();
}

}  // namespace hyalign::search
