#include "search/search.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <future>
#include <system_error>
#include <mutex>
#include <numeric>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/log.hpp"
#include "core/parallel.hpp"
#include "core/score_matrix.hpp"
#include "io/atomic_output.hpp"
#include "io/blast_tabular.hpp"
#include "io/sequence_reader.hpp"
#include "kernels/cuda/sw_cuda.hpp"
#include "kernels/sw_kernel.hpp"
#include "sched/block_queue.hpp"
#include "sched/scheduler.hpp"
#include "search/sequences.hpp"
#include "search/statistics.hpp"

namespace hyalign::search {
namespace {

struct Hit {
  int score = 0;
  std::size_t id = 0;           // database order: ties go to the earlier sequence
  std::size_t chunk_index = 0;  // position in the current (length-sorted) chunk, while it is loaded
  bool aligned = false;
  std::string name;
  std::size_t length = 0;
  kernels::SwAlignment alignment;
};

bool better(const Hit& a, const Hit& b) { return a.score != b.score ? a.score > b.score : a.id < b.id; }

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

bool is_longest_first(const EncodedSequences& chunk) {
  for (std::size_t i = 1; i < chunk.size(); ++i)
    if (chunk.length(i) > chunk.length(i - 1)) return false;
  return true;
}

// A copy of the chunk with its sequences in decreasing length, so SIMD lanes hold similar lengths.
EncodedSequences sorted_by_length(const EncodedSequences& chunk) {
  std::vector<std::size_t> order(chunk.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return chunk.length(a) > chunk.length(b); });
  EncodedSequences out;
  out.residues.reserve(chunk.residues.size());
  out.names.reserve(chunk.names.size());
  for (std::size_t i : order) {
    out.names.append(chunk.name(i));
    out.name_offsets.push_back(out.names.size());
    const auto s = chunk.sequence(i);
    out.residues.insert(out.residues.end(), s.begin(), s.end());
    out.offsets.push_back(out.residues.size());
    out.ids.push_back(chunk.ids[i]);
  }
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

}  // namespace

void run_search(const SearchOptions& o) {
  if (o.top == 0) throw UsageError("-k/--top must be at least 1");
  const TabularFormat format = TabularFormat::parse(o.outfmt);
  AtomicOutput out(o.out);  // opened first: an unwritable output fails before any work
  const auto start = std::chrono::steady_clock::now();

  std::vector<SequenceRecord> raw_queries;
  {
    SequenceReader reader(o.queries);
    SequenceRecord record;
    while (reader.next(record)) raw_queries.push_back(record);
  }
  if (raw_queries.empty()) throw InputError(o.queries, "no query sequences");
  const SequenceType type = o.type == SequenceType::automatic ? detect_type(raw_queries) : o.type;
  const bool dna = type == SequenceType::dna;

  std::error_code no_file;  // a name that is no file (or cannot be looked at) is a built-in matrix
  const bool matrix_file = !dna && std::filesystem::exists(o.matrix, no_file);
  const ScoreMatrix matrix = dna           ? ScoreMatrix::dna(o.match, o.mismatch)
                             : matrix_file ? ScoreMatrix::from_ncbi_file(o.matrix)
                                           : ScoreMatrix::builtin(o.matrix);
  const int gap_open = o.gap_open.value_or(dna ? 5 : 11), gap_extend = o.gap_extend.value_or(dna ? 2 : 1);
  if (gap_open < 0 || gap_extend < 0) throw UsageError("gap costs must not be negative");
  const kernels::SwScoring scoring{&matrix, gap_open, gap_extend};
  const std::optional<KarlinAltschul> ka =
      dna ? karlin_altschul_dna(o.match, o.mismatch, gap_open, gap_extend)
          : matrix_file ? std::nullopt : karlin_altschul(o.matrix, gap_open, gap_extend);
  if (!ka)
    log_info("notice: no Karlin-Altschul parameters for {} with gaps {}/{}: evalue and bitscore are written as NA",
             matrix.name(), gap_open, gap_extend);

  EncodedSequences queries;
  std::map<char, std::size_t> unknown_in_queries;
  for (std::size_t q = 0; q < raw_queries.size(); ++q)
    queries.add(std::string_view(raw_queries[q].name).substr(0, raw_queries[q].id_length), raw_queries[q].sequence,
                matrix, q, unknown_in_queries);
  raw_queries.clear();
  warn_unknown_letters(unknown_in_queries, matrix, o.queries);

  const auto source = open_sequences(o.database, matrix, o.chunk_residues);
  const unsigned threads = std::max(1u, o.threads);

  // Devices: the CPU kernel on `threads` workers and one worker per GPU (--device decides which).
  const auto cpu_kernel = kernels::make_sw_cpu_kernel(o.kernel, scoring);
  std::vector<std::unique_ptr<kernels::SwKernel>> gpu_kernels;
  for (int gpu : sched::gpus_to_use(o.device, kernels::cuda::sw_gpu_unsupported_reason(scoring)))
    gpu_kernels.push_back(kernels::cuda::make_sw_gpu_kernel(gpu, scoring));
  const std::size_t block = cpu_kernel->lanes() * 32;  // targets per tile
  std::vector<sched::WorkerGroup> groups;
  std::vector<const kernels::SwKernel*> kernel_of_worker;
  if (o.device != sched::DeviceChoice::gpu || gpu_kernels.empty()) {
    // A core for each GPU's worker, which unpacks and ranks its scores while the GPU waits.
    const unsigned cpu_workers = threads > gpu_kernels.size() ? threads - static_cast<unsigned>(gpu_kernels.size()) : 1;
    groups.push_back({std::string(cpu_kernel->name()), cpu_workers, 1});
    kernel_of_worker.insert(kernel_of_worker.end(), cpu_workers, cpu_kernel.get());
  }
  for (const auto& g : gpu_kernels) {
    // At most 2^26 scores (256 MB) per take, whatever the numbers of queries and targets.
    groups.push_back({std::string(g->name()), 1, std::max<std::size_t>(1, (std::size_t{1} << 26) / block)});
    kernel_of_worker.push_back(g.get());
  }
  sched::log_worker_groups(groups);

  const std::size_t nq = queries.size();
  std::vector<std::vector<Hit>> top(nq);
  std::vector<std::mutex> top_mutex(nq);
  std::vector<std::unique_ptr<kernels::SwScorer>> scorers(kernel_of_worker.size());
  std::vector<std::vector<int>> buffers(kernel_of_worker.size());
  std::vector<std::vector<std::pair<int, std::size_t>>> candidates_of_worker(kernel_of_worker.size());
  std::vector<sched::DeviceReport> reports;
  for (const auto& g : groups) reports.push_back({g.name, 0, 0, 0});

  // With GPUs scoring, the CPU has time to read the next chunk while this one is scored (two chunks
  // in memory then); CPU-only runs read chunks in turn, as reading would take cores from scoring.
  const bool read_ahead = !gpu_kernels.empty();
  EncodedSequences chunk, next_chunk;
  std::size_t db_sequences = 0, db_residues = 0, chunks = 0;
  double scoring_seconds = 0;
  for (bool more = source->next_chunk(chunk); more; std::swap(chunk, next_chunk)) {
    std::future<bool> ahead;
    if (read_ahead) ahead = read_in_background([&] { return source->next_chunk(next_chunk); });
    // Databases made by makedb come in this order already; other input is sorted here.
    EncodedSequences sorted_copy;
    const bool in_order = is_longest_first(chunk);
    if (!in_order) sorted_copy = sorted_by_length(chunk);
    const EncodedSequences& sorted = in_order ? chunk : sorted_copy;
    db_sequences += sorted.size();
    db_residues += sorted.residues.size();
    ++chunks;
    const auto chunk_start = std::chrono::steady_clock::now();
    const kernels::SwSequences targets = sorted.view();
    for (const auto& g : gpu_kernels) g->set_targets(targets);

    // The best k of one query's scores against targets [first, first + count), merged into its
    // list. Candidates are cheap (score, index) pairs; only those that can enter the list become hits.
    const auto keep_best = [&](std::size_t worker, std::size_t q, const int* scores, std::size_t first,
                               std::size_t count) {
      int floor = 0;  // a hit must beat this (or tie it and come earlier in the database)
      {
        std::lock_guard lock(top_mutex[q]);
        if (top[q].size() == o.top) floor = top[q].back().score;
      }
      auto& candidates = candidates_of_worker[worker];
      candidates.clear();
      for (std::size_t t = 0; t < count; ++t)
        if (scores[t] > 0 && scores[t] >= floor) candidates.emplace_back(scores[t], first + t);
      const auto by_score = [&](const auto& a, const auto& b) {
        return a.first != b.first ? a.first > b.first : sorted.ids[a.second] < sorted.ids[b.second];
      };
      if (candidates.size() > o.top) {
        std::nth_element(candidates.begin(), candidates.begin() + static_cast<std::ptrdiff_t>(o.top), candidates.end(),
                         by_score);
        candidates.resize(o.top);
      }
      std::lock_guard lock(top_mutex[q]);
      auto& list = top[q];
      for (const auto& [score, index] : candidates) {
        Hit h{score, sorted.ids[index], index, false, {}, 0, {}};
        if (list.size() == o.top && !better(h, list.back())) continue;
        h.name = sorted.name(index);
        h.length = sorted.length(index);
        list.insert(std::upper_bound(list.begin(), list.end(), h, better), std::move(h));
        if (list.size() > o.top) list.pop_back();
      }
    };
    // Tiles: one query against a block of similar-length targets (CPU), or many of them (GPU).
    sched::TileQueue queue(sorted.size(), block, nq, 1);
    Progress progress(fmt::format("scoring chunk {}", chunks), queue.tile_count());  // shown on a terminal only
    const auto chunk_reports =
        sched::run_workers(groups, queue, &progress, [&](std::size_t w, const kernels::WorkTile& tile) {
          if (!scorers[w]) scorers[w] = kernel_of_worker[w]->make_scorer();
          std::vector<int>& scores = buffers[w];
          scores.resize(tile.query_count * tile.target_count);
          scorers[w]->score_tile(queries.view(), targets, tile, scores.data());
          std::size_t query_residues = 0;
          for (std::size_t q = 0; q < tile.query_count; ++q) {
            keep_best(w, tile.first_query + q, scores.data() + q * tile.target_count, tile.first_target,
                      tile.target_count);
            query_residues += queries.length(tile.first_query + q);
          }
          return static_cast<double>(query_residues) *
                 static_cast<double>(sorted.offsets[tile.first_target + tile.target_count] -
                                     sorted.offsets[tile.first_target]);
        });
    for (std::size_t d = 0; d < reports.size(); ++d) {
      reports[d].cells += chunk_reports[d].cells;
      reports[d].busy_seconds += chunk_reports[d].busy_seconds;
      reports[d].cpu_seconds += chunk_reports[d].cpu_seconds;
    }
    // Alignments of this chunk's hits while its sequences are in memory.
    parallel_for(nq, threads, [&](std::size_t q, unsigned) {
      for (Hit& h : top[q])
        if (!h.aligned) {
          h.alignment = kernels::sw_align_scalar(queries.sequence(q), sorted.sequence(h.chunk_index), scoring);
          if (h.alignment.score != h.score)
            throw std::logic_error(fmt::format("query {}: traceback score {} differs from score {}", queries.name(q),
                                               h.alignment.score, h.score));
          h.aligned = true;
        }
    });
    scoring_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - chunk_start).count();
    more = read_ahead ? ahead.get() : source->next_chunk(next_chunk);
  }
  if (db_sequences == 0) throw InputError(o.database, "no database sequences");
  warn_unknown_letters(source->unknown_letters(), matrix, o.database);

  for (std::size_t q = 0; q < nq; ++q)
    for (const Hit& h : top[q]) {
      const kernels::SwAlignment& a = h.alignment;
      TabularHit row;
      row.qseqid = queries.name(q);
      row.sseqid = h.name;
      row.length = a.length;
      row.nident = a.identities;
      row.mismatch = a.mismatches;
      row.gapopen = a.gap_opens;
      row.gaps = a.gap_columns;
      row.qstart = a.query_start;
      row.qend = a.query_end;
      row.sstart = a.target_start;
      row.send = a.target_end;
      row.qlen = queries.length(q);
      row.slen = h.length;
      row.score = h.score;
      if (ka) {
        // BLAST's even-score DNA tables apply to scores rounded down to even.
        const int stat_score = ka->round_down ? (h.score & ~1) : h.score;
        row.bitscore = bit_score(stat_score, *ka);
        row.evalue = evalue(stat_score, static_cast<double>(queries.length(q)), static_cast<double>(db_residues), *ka);
      }
      out.write(format.line(row));
    }
  out.commit();
  const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  double cells = 0;
  for (const auto& r : reports) cells += r.cells;
  log_info("searched {} {} queries ({} residues) against {} sequences ({} residues, {} chunk{}) with {}, gaps {}/{}: "
           "{:.3g} cells in {:.2f} s ({:.2f} GCUPS, top hits aligned), {:.2f} s in all, peak memory {:.0f} MiB",
           queries.size(), dna ? "DNA" : "protein", queries.residues.size(), db_sequences, db_residues, chunks,
           chunks == 1 ? "" : "s", matrix.name(), gap_open, gap_extend, cells, scoring_seconds,
           cells / std::max(1e-9, scoring_seconds) / 1e9, total, peak_memory_mib());
  sched::log_device_reports(reports);
}

}  // namespace hyalign::search
