#include "mem/mem.hpp"

#include <algorithm>
#include <array>
#include <condition_variable>
#include <functional>
#include <future>
#include <limits>
#include <mutex>
#include <numeric>
#include <optional>
#include <thread>

#include "core/error.hpp"
#include "core/log.hpp"
#include "core/parallel.hpp"
#include "dist/job.hpp"
#include "dist/ordered_output.hpp"
#include "engine/device_start.hpp"
#include "index/index_file.hpp"
#include "io/atomic_output.hpp"
#include "io/byte_source.hpp"
#include "io/record_batches.hpp"
#include "kernels/cuda/mem_cuda.hpp"
#include "mem/mem_output.hpp"
#include "mem/text_blocks.hpp"
#include "kernels/mem_strand_work.hpp"

namespace hyalign::mem {
namespace {

// IUPAC complements, as MUMmer 3.23 takes them: s and w are their own, and any letter without a
// complement becomes n.
constexpr char complement(char c) {
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

// Every byte lower-cased, and lower-cased then complemented: one table lookup per letter.
constexpr auto kLower = [] {
  std::array<char, 256> t{};
  for (int c = 0; c < 256; ++c) t[c] = index::lower_case(static_cast<char>(c));
  return t;
}();
constexpr auto kComplement = [] {
  std::array<char, 256> t{};
  for (int c = 0; c < 256; ++c) t[c] = complement(index::lower_case(static_cast<char>(c)));
  return t;
}();

// The strands of a batch in print order: each query's forward strand, its reverse complement, or
// both (forward first), lower-cased; page-locked when GPUs match them.
struct BatchStrands {
  engine::TransferBuffer letters;
  LargeArray<std::uint64_t> starts;
  unsigned per_query = 1;
  kernels::StrandSet view() const { return {std::string_view(letters.data(), letters.size()), starts}; }
};

// Whether a query's strand s (0 or 1) is its reverse complement.
bool is_reverse(Strands which, unsigned s) { return which == Strands::reverse || s == 1; }

void make_strands(const RecordBatch& batch, Strands which, unsigned threads, bool for_gpus, BatchStrands& out) {
  out.per_query = which == Strands::both ? 2 : 1;
  const std::size_t queries = batch.size(), per_query = out.per_query;
  out.starts.resize(queries * per_query + 1);
  out.starts[0] = 0;
  for (std::size_t q = 0; q < queries; ++q)
    for (std::size_t s = 0; s < per_query; ++s)
      out.starts[q * per_query + s + 1] = out.starts[q * per_query + s] + batch.length(q);
  out.letters.resize_for_overwrite(out.starts.back(), for_gpus);
  constexpr std::size_t kBlock = 4096;
  parallel_for((queries + kBlock - 1) / kBlock, threads, [&](std::size_t block, unsigned) {
    for (std::size_t q = block * kBlock; q < std::min(queries, (block + 1) * kBlock); ++q)
      for (std::size_t s = 0; s < per_query; ++s) {
        const std::string_view letters = batch.letters(q);
        char* to = out.letters.data() + out.starts[q * per_query + s];
        if (is_reverse(which, static_cast<unsigned>(s)))
          std::transform(letters.rbegin(), letters.rend(), to, [](char c) { return kComplement[static_cast<unsigned char>(c)]; });
        else
          std::transform(letters.begin(), letters.end(), to, [](char c) { return kLower[static_cast<unsigned char>(c)]; });
      }
  });
}

// Every batch's strands matched on the run's devices (the hybrid scheduler hands out tiles of
// StrandWork's units; with --device auto or all the CPU matches while the GPUs start); the
// device reports add up over the batches.
//
// With --device auto, the batches that the GPUs and the CPU's cores match together from their
// start are a trial: each takes its share of the units by its measured speed until one is shown
// the faster (choose_devices), and it matches the batches after that alone. Batches of long
// strands, which the CPU would take whole, are matched by turns instead: the cores on the strands
// in pieces, then the GPUs alone. Neither wins everywhere: on the H200 host's 16
// cores, genomes against genomes matched as fast as on the GPU, reads 2-3x slower, and where the
// GPU is faster, the cores are worth more to the run's other steps (reading, output, the GPU's
// host side) than beside it (docs/performance.md).
class DeviceMatcher {
 public:
  DeviceMatcher(engine::StartingDevices<kernels::MemKernel>& devices, const index::SuffixIndex& index,
                const MemOptions& options)
      : devices_(devices), pieces_(index, options.params), threads_(options.threads),
        trial_(options.device == engine::DeviceChoice::automatic) {}

  // Whether GPUs match from now on: false while the CPU matches as they are set up, and once the
  // cores won the trial.
  bool gpus_match() { return use_ != engine::DeviceUse::cpu_alone && devices_.gpus_work(); }
  // Query letters still to match before held GPUs start; none unless they are held.
  std::optional<double> letters_before_gpus_start() const { return devices_.work_before_start(); }

  // The matches of every strand, in pieces sorted by first strand. Where the CPU matches the batch,
  // long strands are cut into pieces; a GPU cuts the strands it takes whole into its own items.
  std::vector<kernels::StrandMatches> match(const BatchStrands& strands) {
    const kernels::StrandSet set = strands.view();
    if (!set.starts.empty())  // the query letters, which start held GPUs once past their bound
      devices_.count_work(static_cast<double>(set.starts.back() - set.starts.front()) / strands.per_query);
    engine::DeviceUse use = use_;
    const kernels::MemFinder* cutter = piece_finder(set);
    if (trial_ && gpus_match() && kernels::StrandWork::cuts(set, pieces_, threads_)) {
      // Long strands (under -maxmatch, any over 16 Ki letters): shared whole, the cores would hold
      // the batch on theirs (40 x 1 Mbp -maxmatch: auto 33.7 s, the GPU alone 5.3 s). The devices
      // take turns instead: the cores on the strands in pieces, then the GPUs alone.
      if (cores_tried()) use = engine::DeviceUse::gpus_alone;
      else cutter = &pieces_;
    }
    kernels::StrandWork work(set, 0, set.size(), kQueriesPerTile * strands.per_query, cutter, threads_);
    engine::TileQueue queue(1, 1, work.size(), 1);
    std::vector<kernels::StrandMatches> found;
    std::mutex found_mutex;
    const auto find = [&](kernels::MemKernel& kernel, std::size_t, const engine::WorkTile& tile) {
      double letters = 0;
      for (std::size_t u = tile.first_query, end = u + tile.query_count; u < end;) {
        if (work[u].piece()) {
          const std::size_t first = u;
          while (u < end && work[u].piece()) ++u;
          // A CPU worker matches its pieces itself. A GPU worker gets pieces only under --device
          // all, joining a batch cut for the CPU (auto keeps such a batch on the CPU alone): the
          // early CPU workers take no more, so it matches them on every thread.
          letters += work.find_pieces(first, u, &kernel == &devices_.cpu() ? 1 : threads_);
          continue;
        }
        kernels::StrandMatches piece = take_spare();
        piece.first = work[u].first_strand;
        std::size_t count = 0;
        for (; u < end && !work[u].piece(); ++u) count += work[u].strands;  // one call for consecutive units
        kernel.find(set, piece.first, count, piece);
        letters += static_cast<double>(set.starts[piece.first + count] - set.starts[piece.first]);
        std::lock_guard lock(found_mutex);
        found.push_back(std::move(piece));
      }
      return letters;
    };
    // A batch cut into pieces for the CPU stays on it in a trial: a GPU worker would match the
    // pieces on the cores beside the CPU workers.
    if (trial_ && work.has_pieces()) use = engine::DeviceUse::cpu_alone;
    // No per-worker state to grow: the cores are handed over to the devices as they become ready.
    const auto batch_reports = devices_.run(queue, nullptr, find, {}, {}, use);
    if (trial_) choose_devices(batch_reports);
    engine::add_reports(reports_, batch_reports);
    work.gather_pieces(found, [&] { return take_spare(); }, threads_);
    std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    kernels::order_for_output(pieces_.params().kind, found, threads_);
    return found;
  }
  const std::vector<engine::DeviceReport>& reports() const { return reports_; }

  // Takes back a batch's pieces once formatted, to reuse their memory for the next batch's: fresh
  // memory costs a page fault per page. What the spare pieces hold past kSpareBytes is freed:
  // pieces vary in size and count from batch to batch, and kept whole, the spares grew to 1.6 GB
  // over 10 batches (-maxmatch, 200 x 100 kb against a repeat-rich genome).
  void recycle(std::vector<kernels::StrandMatches>& pieces) {
    std::lock_guard lock(spare_mutex_);
    std::size_t bytes = 0;
    for (const auto& piece : spare_) bytes += piece.bytes();
    for (auto& piece : pieces) {
      bytes += piece.bytes();
      if (bytes > kSpareBytes) break;
      spare_.push_back(std::move(piece));
    }
    pieces.clear();
  }

 private:
  // The finder that cuts long strands into pieces, or none. GPUs take whole strands only: a batch
  // they match is not cut, nor one they may join for the trial as they start, where its strands
  // are enough to keep every thread busy whole.
  const kernels::MemFinder* piece_finder(const kernels::StrandSet& set) {
    if (gpus_match()) return nullptr;
    if (trial_ && devices_.starting() && set.size() >= kWholeStrandsPerThread * threads_) return nullptr;
    return &pieces_;
  }

  // Whether the cores matched a unit in the trial.
  bool cores_tried() const {
    return std::any_of(trial_reports_.begin(), trial_reports_.end(), [&](const engine::DeviceReport& report) {
      return report.name == devices_.cpu().name() && report.busy_seconds > 0;
    });
  }

  // The trial's outcome, from its batches' device reports so far: the GPUs' letters a second on
  // their fastest takes against the cores' on every thread. A take's time can be stretched (its
  // launch, its host thread waiting for a core the cores' workers and the job's output share),
  // never cut, so the fastest take tells a GPU's speed (though on uneven units it may be a GPU's
  // easiest). GPUs faster than the cores match the rest; GPUs slower even so, each on takes long
  // enough to tell, leave it to the cores. Otherwise (the cores drained the batch while the GPUs'
  // probes were small, their time mostly launches) the next batch tries again. Cores that took no
  // unit lost to the GPUs.
  void choose_devices(const std::vector<engine::DeviceReport>& batch) {
    engine::add_reports(trial_reports_, batch);
    double cpu = 0, gpus = 0;  // letters a second
    int telling_takes = std::numeric_limits<int>::max();  // the fewest of any GPU
    for (const auto& report : trial_reports_) {
      if (report.name != devices_.cpu().name()) {
        gpus += report.best_take_rate;
        telling_takes = std::min(telling_takes, report.telling_takes);
      } else if (report.busy_seconds > 0) {
        cpu = report.cells / report.busy_seconds * threads_;  // a worker's rate, on every thread
      }
    }
    const bool gpus_faster = gpus > 0 && gpus >= cpu;
    if (!gpus_faster && (gpus == 0 || telling_takes < engine::kTellingTakesToLeave)) return;
    trial_ = false;
    use_ = gpus_faster ? engine::DeviceUse::gpus_alone : engine::DeviceUse::cpu_alone;
    log_info("mem: the GPUs matched {:.1f} M query letters a second (fastest take), the CPU's cores {:.1f} M (on {} "
             "threads): the {} match the rest",
             gpus / 1e6, cpu / 1e6, threads_, gpus_faster ? "GPUs" : "cores");
  }

  // An empty piece, with the memory of one given back.
  kernels::StrandMatches take_spare() {
    std::lock_guard lock(spare_mutex_);
    if (spare_.empty()) return {};
    kernels::StrandMatches piece = std::move(spare_.back());
    spare_.pop_back();
    piece.matches.clear();
    piece.offsets.assign(1, 0);
    return piece;
  }

  static constexpr std::size_t kQueriesPerTile = 128;
  static constexpr std::size_t kSpareBytes = std::size_t{512} << 20;
  static constexpr std::size_t kWholeStrandsPerThread = 4;
  engine::StartingDevices<kernels::MemKernel>& devices_;
  const kernels::MemFinder pieces_;  // matches pieces of long strands
  const unsigned threads_;
  bool trial_;  // --device auto, until the trial has decided
  engine::DeviceUse use_ = engine::DeviceUse::planned;
  std::vector<engine::DeviceReport> reports_;
  std::vector<engine::DeviceReport> trial_reports_;  // the trial's batches'
  std::mutex spare_mutex_;
  std::vector<kernels::StrandMatches> spare_;
};

struct QueryTotals {
  std::size_t queries = 0, letters = 0, longest = 0, matches = 0;
  void count(const RecordBatch& batch) {
    queries += batch.size();
    letters += batch.total_residues();
    for (std::size_t q = 0; q < batch.size(); ++q) longest = std::max(longest, batch.length(q));
  }
};

// One batch's sections, a strand's each: its query's name, whether it is the reverse strand, its
// letters as searched and its matches. A Walk visits strands in increasing order: the piece of
// matches that holds the first is searched for, and the walk steps on from there.
class BatchSections {
 public:
  BatchSections(const RecordBatch& batch, const BatchStrands& strands, const std::vector<kernels::StrandMatches>& found,
                Strands which)
      : batch_(batch), set_(strands.view()), per_query_(strands.per_query), found_(found), which_(which) {}

  std::size_t count() const { return set_.size(); }

  class Walk {
   public:
    explicit Walk(const BatchSections& sections) : sections_(sections), piece_(sections.found_.end()) {}
    std::span<const kernels::MemMatch> matches(std::size_t strand) {
      const auto& found = sections_.found_;
      if (piece_ == found.end())  // the last piece that begins at or before the strand
        piece_ = std::prev(std::upper_bound(found.begin(), found.end(), strand,
                                            [](std::size_t s, const kernels::StrandMatches& p) { return s < p.first; }));
      while (strand >= piece_->first + piece_->count()) ++piece_;
      return piece_->of(strand);
    }
    // Calls write_part(name, reverse, strand letters, matches [first, end)) for `strand`.
    template <typename WritePart>
    auto part(std::size_t strand, std::size_t first, std::size_t end, WritePart&& write_part) {
      const std::size_t q = strand / sections_.per_query_;
      const auto s = static_cast<unsigned>(strand % sections_.per_query_);
      return write_part(sections_.batch_.id(q), is_reverse(sections_.which_, s), sections_.set_.strand(strand),
                        matches(strand).subspan(first, end - first));
    }

   private:
    const BatchSections& sections_;
    std::vector<kernels::StrandMatches>::const_iterator piece_;
  };

 private:
  const RecordBatch& batch_;
  const kernels::StrandSet set_;
  const std::size_t per_query_;
  const std::vector<kernels::StrandMatches>& found_;
  const Strands which_;
};

// One batch's output: blocks of about the same number of lines (TextBlocks) formatted in parallel,
// a window of blocks at a time, into two buffers (huge pages, kept from batch to batch) that take
// turns: a window is written while the next one is formatted. So the text takes two windows of
// memory however many matches a batch has (-maxmatch on a repeat-rich genome: 1.1 GB for one
// batch of 3.7 M letters, whose size followed lighter batches). A buffer per window, not per
// block: a block's text is too small for huge pages, and faulting it in 4 KiB at a time cost more
// than formatting it. Block b is the bytes [place[b], place[b] + size[b]) once formatted.
struct BatchText {
  explicit BatchText(std::size_t window) : window_bytes(window) {}
  const std::size_t window_bytes;
  TextBlocks layout;
  std::vector<std::size_t> bound;       // per block, its most bytes
  std::vector<std::size_t> window_end;  // per window, the block after its last
  std::vector<char*> place;
  std::vector<std::size_t> size;
  LargeArray<char> buffers[2];

  std::size_t blocks() const { return bound.size(); }
  std::size_t windows() const { return window_end.size(); }
  std::size_t window_start(std::size_t w) const { return w == 0 ? 0 : window_end[w - 1]; }
  std::string_view block(std::size_t b) const { return {place[b], size[b]}; }
  std::size_t total() const { return std::accumulate(size.begin(), size.end(), std::size_t{0}); }

  // Cuts `sections` into blocks, and the blocks into windows of window_bytes at most (or of one
  // block) by bound_of(b), block b's most bytes.
  template <typename BoundOf>
  void lay_out(const BatchSections& sections, unsigned threads, BoundOf&& bound_of) {
    BatchSections::Walk walk(sections);
    layout.lay_out(sections.count(), [&](std::size_t strand) { return walk.matches(strand).size(); });
    const std::size_t count = layout.blocks();
    bound.assign(count, 0);
    place.assign(count, nullptr);
    size.assign(count, 0);
    parallel_for(count, threads, [&](std::size_t b, unsigned) { bound[b] = bound_of(b); });
    window_end.clear();
    std::size_t bytes = 0;
    for (std::size_t b = 0; b < count; ++b) {
      if (b > 0 && bytes + bound[b] > window_bytes) {
        window_end.push_back(b);
        bytes = 0;
      }
      bytes += bound[b];
    }
    if (count > 0) window_end.push_back(count);
  }
  // Places window w's blocks in its buffer, whose window before (w - 2) must be written.
  void place_window(std::size_t w) {
    const std::size_t first = window_start(w), end = window_end[w];
    const std::size_t need = std::accumulate(bound.begin() + first, bound.begin() + end, std::size_t{0});
    LargeArray<char>& buffer = buffers[w % 2];
    if (buffer.size() < need) {
      buffer.clear();  // nothing to copy into the new memory
      buffer.resize(need);
    }
    char* at = buffer.data();
    for (std::size_t b = first; b < end; ++b) {
      place[b] = at;
      at += bound[b];
    }
  }
};

// Writes the blocks of one batch's text in order, each as soon as it and those before it are
// formatted, on a thread of its own: writing overlaps formatting instead of following it. The
// batch is one unit of the job's output.
class BlockWriter {
 public:
  BlockWriter(dist::OrderedOutput& out, std::size_t unit, const BatchText& text)
      : out_(out), unit_(unit), text_(text), formatted_(text.blocks(), false), thread_([this] { write_in_order(); }) {}
  ~BlockWriter() {
    {
      std::lock_guard lock(mutex_);
      cancelled_ = true;  // a no-op once every block is written
    }
    ready_.notify_one();
  }
  void formatted(std::size_t block) {
    {
      std::lock_guard lock(mutex_);
      formatted_[block] = true;
    }
    ready_.notify_one();
  }
  // Waits until blocks [0, count) are written; false if the writing failed (finish() says why).
  bool wait_written(std::size_t count) {
    std::unique_lock lock(mutex_);
    written_cv_.wait(lock, [&] { return written_ >= count || failed_; });
    return written_ >= count;
  }
  // Waits until every block is written; rethrows a write error.
  void finish() {
    thread_.join();
    if (error_) std::rethrow_exception(error_);
  }

 private:
  void write_in_order() {
    try {
      for (std::size_t b = 0; b < text_.blocks(); ++b) {
        std::unique_lock lock(mutex_);
        ready_.wait(lock, [&] { return formatted_[b] || cancelled_; });
        if (!formatted_[b]) return;
        lock.unlock();
        out_.write(unit_, text_.block(b));
        lock.lock();
        written_ = b + 1;
        lock.unlock();
        written_cv_.notify_one();
      }
      out_.end(unit_);
    } catch (...) {
      error_ = std::current_exception();
      {
        std::lock_guard lock(mutex_);
        failed_ = true;
      }
      written_cv_.notify_one();
    }
  }

  dist::OrderedOutput& out_;
  std::size_t unit_;
  const BatchText& text_;
  std::mutex mutex_;
  std::condition_variable ready_;       // a block formatted
  std::condition_variable written_cv_;  // a block written, or the writing failed
  std::vector<bool> formatted_;
  std::size_t written_ = 0;
  bool cancelled_ = false, failed_ = false;
  std::exception_ptr error_;
  std::jthread thread_;  // last: started once the rest is set up, joined before it goes
};

// Lays out `text` for a batch (text.lay_out); the caller then starts a BlockWriter on it.
void lay_out_batch_text(const RecordBatch& batch, const BatchStrands& strands,
                        const std::vector<kernels::StrandMatches>& found, const MemOptions& options,
                        const SectionWriter& writer, BatchText& text) {
  const BatchSections sections(batch, strands, found, options.strands);
  text.lay_out(sections, options.threads, [&](std::size_t b) {
    std::size_t bound = 0;
    BatchSections::Walk walk(sections);
    text.layout.for_each_part(b, [&](std::size_t strand, bool header, std::size_t first, std::size_t end) {
      bound += walk.part(strand, first, end, [&](const auto&... part) { return writer.bound(part..., header); });
    });
    return bound;
  });
}

// MUMmer's text of a whole batch, formatted a window at a time in parallel blocks into `text`
// (laid out before), each block handed to `out` when done; adds the batch to `totals`.
void format_batch(const RecordBatch& batch, const BatchStrands& strands, const std::vector<kernels::StrandMatches>& found,
                  const MemOptions& options, const SectionWriter& writer, BatchText& text, BlockWriter& out,
                  QueryTotals& totals) {
  const BatchSections sections(batch, strands, found, options.strands);
  for (std::size_t w = 0; w < text.windows(); ++w) {
    if (w >= 2 && !out.wait_written(text.window_end[w - 2])) return;  // the writing failed: out.finish() throws
    text.place_window(w);
    const std::size_t first = text.window_start(w);
    parallel_for(text.window_end[w] - first, options.threads, [&](std::size_t i, unsigned) {
      const std::size_t b = first + i;
      char* to = text.place[b];
      BatchSections::Walk walk(sections);
      text.layout.for_each_part(b, [&](std::size_t strand, bool header, std::size_t from, std::size_t end) {
        to = walk.part(strand, from, end, [&](const auto&... part) { return writer.write(to, part..., header); });
      });
      text.size[b] = static_cast<std::size_t>(to - text.place[b]);
      out.formatted(b);
    });
  }
  totals.count(batch);
  for (const auto& piece : found) totals.matches += piece.matches.size();
}

// Letters per batch: 64 Mi, fewer where the output runs to many bytes per letter (-maxmatch on a
// repetitive genome writes hundreds), so that a batch's text stays near kOutputBytes: memory
// stays bounded, and reading, matching and writing still overlap in a file of few batches. Under
// -maxmatch the first batch is small: its bytes per letter are not known before it, and with the
// full 64 Mi, 400 x 100 kb against a repeat-rich 100 Mbp genome was one batch of 510 M matches
// (15 GB of text; the run's peak 28 GB). Small batches cost the cores about a fifth of their
// speed there (their units are cut by cost, StrandWork), and --device auto's trial needs batches
// after the first. The floor, 256 Ki letters, holds for every kind (-s prints each match's letters).
// --batch-letters fixes the size, and so does a job of several ranks (about four batches a rank by
// the file's size, 1-8 Mi letters): every rank cuts the file into the same batches, and only a
// batch's owner sees its output.
class BatchSizer {
 public:
  BatchSizer(std::size_t given, const std::string& path, bool small_first)
      : fixed_(given > 0 || dist::size() > 1),
        letters_(given > 0            ? given
                 : dist::size() > 1 ? dist::stream_unit_size(file_letters(path), kFewestJobLetters, kJobLetters)
                 : small_first      ? kFirstSmallLetters
                                    : kMostLetters) {}
  std::size_t letters() const { return letters_; }
  // The letters of a file's first batch. Held GPUs start once `letters_left` more letters are
  // matched: a size of its own cuts the batch just past them, so that a large job read from a pipe
  // starts them without reading a whole batch of the usual size first, and a small one fits in it.
  std::size_t first_letters(std::optional<double> letters_left) const {
    if (fixed_ || !letters_left) return letters_;
    return std::min(letters_, static_cast<std::size_t>(*letters_left) + 1);
  }
  // A batch's output varies with its queries (-maxmatch: a 100 kb query on a repeat-rich genome
  // had 1,420 to 18.6 M matches), so the size at most doubles from batch to batch: a few light
  // queries first do not make the next batch hold the rest of the file.
  void saw(std::size_t batch_letters, std::size_t output_bytes) {
    if (fixed_ || batch_letters == 0 || output_bytes == 0) return;
    const double per_letter = static_cast<double>(output_bytes) / static_cast<double>(batch_letters);
    letters_ = static_cast<std::size_t>(std::clamp(static_cast<double>(kOutputBytes) / per_letter,
                                                   static_cast<double>(kFewestLetters),
                                                   static_cast<double>(std::min(kMostLetters, 2 * letters_))));
  }

 private:
  static constexpr std::size_t kMostLetters = std::size_t{64} << 20, kFewestLetters = std::size_t{256} << 10,
                               kFirstSmallLetters = std::size_t{1} << 20, kOutputBytes = std::size_t{512} << 20,
                               kJobLetters = std::size_t{8} << 20, kFewestJobLetters = std::size_t{1} << 20;
  // About the file's letters, the same on every rank: a job's inputs are regular files
  // (dist::check_same_inputs), and a gzip file's compressed bytes stand for its letters.
  static std::uint64_t file_letters(const std::string& path) {
    return size_as_read(path).value_or(letters_at_least({path}));
  }
  bool fixed_;
  std::size_t letters_;
};

// The batches of one query file that this rank matches. Batches are the job's units, numbered
// across the query files; other ranks' batches are passed over (unread in a plain FASTA file).
class OwnBatches {
 public:
  OwnBatches(const std::string& path, unsigned threads, dist::UnitCounter& units)
      : reader_(path, threads), units_(units) {}
  // This rank's next batch, and its unit; false at the end of the file.
  bool next(RecordBatch& batch, std::size_t letters, std::size_t& unit) {
    return units_.next_mine([&] { return reader_.next(batch, letters); }, [&] { return reader_.pass_over(letters); },
                            unit);
  }
  bool parallel() const { return reader_.parallel(); }

 private:
  RecordBatchReader reader_;
  dist::UnitCounter& units_;
};

// A batch on its way through: its unit, records, strands, and matches once found.
struct BatchInFlight {
  std::size_t unit = 0;
  RecordBatch records;
  BatchStrands strands;
  std::vector<kernels::StrandMatches> found;
};

// One query file in batches, the steps overlapping: while one batch is matched, the next is read
// and the end of the one before written; with `overlap` (GPUs match) also the next batch's strands
// are made and the one before is formatted. CPU-only runs keep those two out of the matching, whose
// threads they would slow by more than they save (measured on the H100 host's 16 cores), and
// format the batch before first, so that its matches' memory is free for the next batch's. Memory
// holds the records of three batches, the matches of one (two with `overlap`) and two windows of
// text, however long the file (BatchSizer, BatchText). Only this rank's batches are matched
// (`totals`); `units` counts the job's batches.
void match_query_file(const std::string& path, DeviceMatcher& matcher, const MemOptions& options,
                      const SectionWriter& writer, dist::OrderedOutput& out, dist::UnitCounter& units,
                      QueryTotals& totals) {
  BatchSizer sizer(options.batch_letters, path, options.params.kind == kernels::MemKind::maxmatch);
  OwnBatches reader(path, options.threads, units);
  BatchInFlight flight[2];
  RecordBatch next;
  std::size_t next_unit = 0;
  // The text of the batch being written: its last windows are written while the next batch is
  // matched, and the writing ends before the next batch's text is laid out.
  BatchText text{options.output_window_bytes};
  std::optional<BlockWriter> writing;
  // Seconds the calling thread spent on each step or waiting for it.
  double read = 0, match = 0, format = 0, write = 0;
  Stopwatch clock;
  BatchStrands next_strands;
  bool more = reader.next(flight[0].records, sizer.first_letters(matcher.letters_before_gpus_start()), flight[0].unit),
       pending = false;
  if (more) make_strands(flight[0].records, options.strands, options.threads, false, flight[0].strands);
  read += clock.lap();
  for (int now = 0; more || pending; now ^= 1) {
    BatchInFlight &current = flight[now], &previous = flight[now ^ 1];
    const bool overlap = matcher.gpus_match();
    std::future<bool> ahead;
    std::future<std::vector<kernels::StrandMatches>> matching;
    if (more) {
      // The next batch is read (and with `overlap` its strands made) while this one is matched.
      ahead = std::async(std::launch::async, [&, letters = sizer.letters()] {
        const bool got = reader.next(next, letters, next_unit);
        if (got && overlap) make_strands(next, options.strands, options.threads, true, next_strands);
        return got;
      });
      if (overlap) matching = std::async(std::launch::async, [&] { return matcher.match(current.strands); });
    }
    if (pending) {
      if (writing) writing->finish();  // the batch before, from `text`
      writing.reset();
      write += clock.lap();
      lay_out_batch_text(previous.records, previous.strands, previous.found, options, writer, text);
      writing.emplace(out, previous.unit, text);
      format_batch(previous.records, previous.strands, previous.found, options, writer, text, *writing, totals);
      matcher.recycle(previous.found);
      sizer.saw(previous.records.total_residues(), text.total());
      format += clock.lap();
    }
    if (more && !overlap) {
      current.found = matcher.match(current.strands);
      match += clock.lap();
    }
    pending = more;
    if (more) {
      if (overlap) {
        current.found = matching.get();
        match += clock.lap();
      }
      more = ahead.get();
      if (more && !overlap) make_strands(next, options.strands, options.threads, false, next_strands);
      read += clock.lap();
      std::swap(next, previous.records);
      std::swap(next_strands, previous.strands);
      previous.unit = next_unit;
    }
  }
  if (writing) writing->finish();
  write += clock.lap();
  log_info("{}: on the calling thread, reading and making strands {:.2f} s ({}), matching {:.2f} s, output {:.2f} s, "
           "writing {:.2f} s (waits for the steps that overlap)",
           path, read, reader.parallel() ? "parsed in parallel" : "streamed", match, format, write);
}

// With GPUs, the CPU's other steps (reading, strands, output, each GPU's host side) are often what
// a run waits for, so with --device all no CPU worker matches beside a GPU (on an H100, 8 CPU
// workers beside it made a run take 1.43x as long as the GPU alone). With auto they do, for the
// trial of the devices (DeviceMatcher), after which one kind or the other matches alone. A GPU
// that fails hands its work to all the cores.
engine::Devices<kernels::MemKernel> plan_mem_devices(const MemOptions& options, const index::SuffixIndex& index,
                                                     std::shared_ptr<kernels::MemKernel> cpu,
                                                     const std::function<bool()>& cancelled) {
  Stopwatch clock;
  engine::WorkShape shape;
  shape.cpu_share_beside_gpus = options.device == engine::DeviceChoice::automatic ? 1 : 0;
  // A unit is up to 256 Ki letters, and its cost follows its matches, not its letters: under
  // -maxmatch on a repeat-rich genome two units of 100 kb strands held 1,420 and 18.6 M matches.
  shape.gpus_prove_themselves = true;
  auto devices = engine::plan_devices<kernels::MemKernel>(
      options.device, options.threads,
      [&] { return kernels::cuda::mem_gpu_unsupported_reason(index, options.gpu_memory); }, std::move(cpu),
      [&](int gpu) {
        return kernels::make_mem_kernel_with_fallback(gpu, index, options.params, options.gpu_memory, options.threads);
      },
      shape, cancelled);
  if (!devices.gpus.empty()) log_info("devices ready ({:.2f} s: the index copied to each GPU)", clock.lap());
  return devices;
}

// Query letters a core matches in about a fifth of a second (12 M a second a core, both strands, on
// the H100 machine's cores: docs/performance.md), less than CUDA's start takes.
constexpr double kSmallJobLettersPerThread = 2e6;

// Why a job of `letters` query letters was left on the CPU.
std::string matched_before_gpus_started(const std::string& letters) {
  return fmt::format("{}: the CPU's cores matched them before the GPUs could have started, so they were not", letters);
}

// Why the queries are too few for the GPUs, where their files' sizes bound them (a letter takes a
// byte at least). Else gzip files large enough by their compressed bytes alone are not; the
// letters of the rest (pipes, smaller gzip files) are counted as they are matched.
std::optional<std::string> too_few_queries_for_gpus(const MemOptions& options) {
  const double most = kSmallJobLettersPerThread * std::max(1u, options.threads) * dist::size();
  const std::optional<std::uint64_t> letters = size_as_read(options.queries);
  if (!letters) {
    if (static_cast<double>(letters_at_least(options.queries)) > most) return "";
    return std::nullopt;
  }
  if (static_cast<double>(*letters) > most) return "";
  return matched_before_gpus_started(fmt::format("{} query letters at most", *letters));
}

// The job's queries, over every rank's (each saw its own batches only): none is an error, and
// queries all shorter than -l get a warning, on every rank alike.
void check_job_queries(const MemOptions& options, const QueryTotals& mine) {
  std::uint64_t job[2] = {mine.queries > 0 ? 1u : 0u, mine.longest};
  dist::max_over_ranks(job);
  if (job[0] == 0) throw InputError(options.queries.front(), "no query sequences");
  if (job[1] < options.params.min_length)
    log_warning("-l {} is longer than every query (the longest has {} letters): no match can be found",
                options.params.min_length, job[1]);
}

}  // namespace

void run_mem(const MemOptions& given) {
  std::optional<AtomicOutput> out;  // rank 0's; opened first: an unwritable output fails before any work
  check_uncompressed_name(given.out, "MUMmer's text");
  std::vector<std::string> inputs = given.queries;
  inputs.push_back(given.reference);
  check_not_an_input(given.out, inputs);
  if (dist::writes_output()) out.emplace(given.out);
  MemOptions options = given;
  // CUDA starts while MPI's start is awaited (check_same_inputs) and the index is read.
  const engine::GpuStart gpu_start =
      engine::plan_gpu_start(options.device, [&] { return too_few_queries_for_gpus(options); });
  dist::check_same_inputs(inputs);
  dist::OrderedOutput ordered([&](std::string_view bytes) { out->write(bytes); });
  Stopwatch clock;
  const index::SuffixIndex index = index::load_or_build_index(options.reference, options.threads);
  clock.lap();
  engine::StartingDevices<kernels::MemKernel> devices(
      options.device, options.threads, kernels::make_mem_cpu_kernel(index, options.params),
      [&](auto cpu, const auto& cancelled) { return plan_mem_devices(options, index, std::move(cpu), cancelled); },
      gpu_start.hold_until(kSmallJobLettersPerThread * std::max(1u, options.threads)));
  DeviceMatcher matcher(devices, index, options);
  const SectionWriter writer(index.reference(),
                             {options.reference_names || index.reference().sequences() > 1,
                              index.reference().longest_name(), options.show_lengths, options.show_substrings,
                              options.forward_positions});
  QueryTotals mine;  // this rank's batches
  dist::UnitCounter units;
  for (const std::string& path : options.queries)
    match_query_file(path, matcher, options, writer, ordered, units, mine);
  const auto shares = ordered.finish(units.count(), {mine.matches, mine.queries, mine.letters});
  check_job_queries(options, mine);  // after the ranks' output has reached rank 0, which waits for it
  if (!out) return;
  out->finish();
  if (!gpu_start.why_cpu.empty()) log_info("{}", gpu_start.why_cpu);
  if (devices.held())
    log_info("{}", engine::small_job_line(matched_before_gpus_started(fmt::format("{} query letters", mine.letters))));
  const std::vector<std::uint64_t> totals = dist::summed(shares);  // matches, queries, letters
  log_info("matched {} queries ({} letters): {} matches ({:.3f} s); peak memory {:.0f} MiB", totals[1], totals[2],
           totals[0], clock.lap(), peak_memory_mib());
  engine::log_device_reports(matcher.reports());
  if (devices.ready()) {  // else no GPU took part, and none is waited for
    for (const auto& gpu : devices.devices().gpus)
      log_info("  {}: {:.2f} s in kernels and transfers", gpu->name(), gpu->device_seconds());
  }
  dist::log_shares(shares, 1, "queries");
  out->commit();
}

}  // namespace hyalign::mem
