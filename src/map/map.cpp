// hyalign map: the run. Batches of reads are read, mapped on every thread in chunks (seeds, chains,
// one kernel call per chunk for its alignments, then pairing with a second kernel call for mate
// rescue), and written in input order; the next batch is read while one is mapped.
#include "map/map.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <future>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/log.hpp"
#include "core/parallel.hpp"
#include "dist/job.hpp"
#include "dist/ordered_output.hpp"
#include "dist/relay.hpp"
#include "engine/background_set_up.hpp"
#include "engine/device_plan.hpp"
#include "hyalign/version.hpp"
#include "index/index_file.hpp"
#include "io/atomic_output.hpp"
#include "io/byte_source.hpp"
#include "io/sam_writer.hpp"
#include "kernels/cuda/extend_cuda.hpp"
#include "kernels/cuda/seed_cuda.hpp"
#include "map/end_mapping.hpp"
#include "map/gpu_trial.hpp"
#include "map/pairing.hpp"
#include "map/read_input.hpp"
#include "map/sam_records.hpp"

namespace hyalign::map {
namespace {

constexpr std::size_t kChunkFragments = 64;  // reads (or pairs) a worker maps with one kernel call
constexpr std::size_t kGpuChunkFragments = 512;  // the most with a GPU: its calls cost a round trip each
constexpr std::size_t kGpuLeastTasks = 128;  // fewer alignments in a call are scored on the CPU
constexpr unsigned kGpuThreadsPerCore = 2;  // mapping threads per -t thread with GPUs: one works while one waits
constexpr std::size_t kRescueChunkFragments = 1024;  // the most a worker rescues mates of and writes at once
constexpr unsigned kThreadsPerPart = 3;  // a batch holds a part of -K read letters per this many threads
// Parts of -K letters in a batch mapped by `threads` threads.
std::size_t parts_per_batch(unsigned threads) { return (threads + kThreadsPerPart - 1) / kThreadsPerPart; }

// Fragments per chunk: at least `least`, at most `most`, and a few chunks per thread.
std::size_t chunk_fragments(std::size_t fragments, unsigned threads, std::size_t least, std::size_t most) {
  return std::clamp(fragments / (4 * std::max(1u, threads)), least, std::max(least, most));
}

// The seed search on GPU `device`, or null (with a notice) when the index cannot go there.
std::unique_ptr<kernels::cuda::SeedGpuKernel> seed_kernel_on(int device, const index::SuffixIndex& index,
                                                             const MapParams& params) {
  try {
    return kernels::cuda::make_seed_gpu_kernel(device, index, seed_search_params(params));
  } catch (const std::exception& e) {
    log_info("notice: GPU {} seeds on the CPU: {}", device, e.what());
    return nullptr;
  }
}

// The GPUs' kernels of a run.
struct MapGpus {
  std::vector<std::unique_ptr<kernels::ExtendKernel>> aligners;
  // One per GPU, the index on it; null where it did not fit (that GPU's workers seed on the CPU).
  std::vector<std::unique_ptr<kernels::cuda::SeedGpuKernel>> seeders;
  std::vector<std::string> names;
};

// Every GPU the run uses, with its kernels; none once `cancelled()` (the run has ended).
MapGpus set_up_gpus(const MapOptions& options, const index::SuffixIndex& index, const std::function<bool()>& cancelled) {
  const engine::GpuSelection selection = engine::select_gpus(
      options.device, [&] { return kernels::cuda::extend_gpu_unsupported_reason(options.params.scoring); });
  if (!selection.notice.empty()) log_info("notice: aligning on the CPU only: {}", selection.notice);
  struct OnGpu {
    std::unique_ptr<kernels::ExtendKernel> aligner;
    std::unique_ptr<kernels::cuda::SeedGpuKernel> seeder;
    std::string name;
  };
  std::vector<OnGpu> made = engine::on_each_at_once(selection.gpus, [&](const engine::GpuInfo& gpu) {
    if (cancelled()) return OnGpu{};
    return OnGpu{kernels::cuda::make_extend_gpu_kernel(gpu.index, options.params.scoring),
                 seed_kernel_on(gpu.index, index, options.params), engine::use_gpu(gpu.index)};
  });
  MapGpus gpus;
  for (OnGpu& gpu : made) {
    if (!gpu.aligner) continue;
    gpus.aligners.push_back(std::move(gpu.aligner));
    gpus.seeders.push_back(std::move(gpu.seeder));
    gpus.names.push_back(std::move(gpu.name));
  }
  return gpus;
}

// Which devices map: the CPU alone while the GPUs are set up (auto and all: a small job never
// waits for CUDA's start), then the GPUs, or every core when none came. --device gpu waits for its
// GPUs; --device cpu sets none up.
enum class Stage { gpus_starting, cpu, gpus };

// Where reads are seeded and their alignments scored: on the CPU, and on the GPUs once they are
// set up (each worker then hands its chunks to one, falling back to the CPU if it fails).
class MapDevices {
 public:
  // `held`: the GPUs start at start_gpus() (engine::plan_gpu_start).
  MapDevices(const MapOptions& options, const index::SuffixIndex& index, bool held)
      : choice_(options.device), threads_(std::max(1u, options.threads)),
        cpu_(kernels::make_extend_cpu_kernel(options.kernel, options.params.scoring)) {
    if (choice_ != engine::DeviceChoice::cpu)
      set_up_ = std::make_unique<engine::BackgroundSetUp<MapGpus>>(
          choice_,
          [&options, &index](const std::function<bool()>& cancelled) { return set_up_gpus(options, index, cancelled); },
          held);
  }

  // Lets held GPUs start.
  void start_gpus() {
    if (set_up_) set_up_->start();
  }
  // Whether the GPUs are held still.
  bool held() const { return set_up_ && !set_up_->started(); }

  // The stage from now on; with --device gpu, waits for the GPUs.
  Stage stage() {
    if (!set_up_ || held()) return Stage::cpu;
    if (choice_ != engine::DeviceChoice::gpu && !set_up_->ready()) return Stage::gpus_starting;
    return set_up_->get().aligners.empty() ? Stage::cpu : Stage::gpus;
  }
  // Threads that seed and align in `stage`: with GPUs, two per core (one works while one waits).
  unsigned threads(Stage stage) const {
    if (stage == Stage::gpus) return kGpuThreadsPerCore * threads_;
    return stage == Stage::gpus_starting ? engine::workers_while_devices_start(threads_) : threads_;
  }
  std::string description(Stage stage) {
    if (stage == Stage::gpus_starting) return fmt::format("{} kernel while the GPUs are set up", cpu_->name());
    if (stage == Stage::cpu) return fmt::format("{} kernel", cpu_->name());
    return fmt::format("seeds and alignments on {} (the CPU, kernel {}, if a GPU fails)", fmt::join(gpus().names, ", "),
                       cpu_->name());
  }
  // The GPUs' kernels (waits for their set-up).
  const MapGpus& gpus() { return set_up_->get(); }

  std::unique_ptr<StrandSeeder> make_seeder(Stage stage, unsigned worker, const SeedFinder& cpu_finder,
                                            const index::SuffixIndex& index, const MapParams& params) {
    if (stage != Stage::gpus) return make_cpu_seeder(cpu_finder);
    const auto& seeders = gpus().seeders;
    if (!seeders[worker % seeders.size()]) return make_cpu_seeder(cpu_finder);
    std::shared_ptr<kernels::cuda::SeedGpuSearcher> searcher = seeders[worker % seeders.size()]->make_searcher();
    return make_gpu_seeder(
        [searcher](std::span<const std::string_view> patterns, std::vector<kernels::SeedMatch>& matches,
                   std::vector<std::uint32_t>& ends) { searcher->find(patterns, matches, ends); },
        cpu_finder, index, params, [](const std::string& error) {
          log_info("notice: a GPU failed ({}); this worker seeds on the CPU from now on, its chunk again", error);
        });
  }

  std::unique_ptr<kernels::ExtendScorer> make_scorer(Stage stage, unsigned worker) {
    if (stage != Stage::gpus) return cpu_->make_scorer();
    const auto& aligners = gpus().aligners;
    // Bands wider than the GPU's thread groups take and small batches stay on the CPU: there the
    // GPU's round trip costs more.
    kernels::PrimaryShare share{[](const kernels::ExtendTask& t) { return t.band_width <= kernels::cuda::kGpuGroupBand; },
                                kGpuLeastTasks};
    return kernels::with_cpu_fallback(aligners[worker % aligners.size()]->make_scorer(), cpu_->make_scorer(),
                                      [](const std::string& error) {
                                        log_info("notice: a GPU failed ({}); this worker aligns on the CPU from now on, "
                                                 "its batch again",
                                                 error);
                                      },
                                      std::move(share));
  }

 private:
  engine::DeviceChoice choice_;
  unsigned threads_;
  std::unique_ptr<kernels::ExtendKernel> cpu_;
  std::unique_ptr<engine::BackgroundSetUp<MapGpus>> set_up_;  // none with --device cpu
};


// -R's text with its \t written as tabs; its ID.
std::pair<std::string, std::string> read_group_line(const std::string& given) {
  if (given.empty()) return {};
  std::string line;
  for (std::size_t i = 0; i < given.size(); ++i) {
    if (given[i] == '\\' && i + 1 < given.size() && given[i + 1] == 't') {
      line.push_back('\t');
      ++i;
    } else {
      line.push_back(given[i]);
    }
  }
  if (line.rfind("@RG\t", 0) != 0) throw UsageError("-R: the read group line must start with '@RG\\t'");
  const auto at = line.find("\tID:");
  if (at == std::string::npos) throw UsageError("-R: the read group line has no ID field");
  const auto end = line.find('\t', at + 4);
  std::string id = line.substr(at + 4, end == std::string::npos ? std::string::npos : end - at - 4);
  if (id.empty()) throw UsageError("-R: the read group's ID is empty");
  if (line.find('\n') != std::string::npos) throw UsageError("-R: the read group line holds a line break");
  for (std::size_t field = 4; field <= line.size();) {  // each TAG:VALUE, as SAM's header fields are
    const std::size_t end = std::min(line.find('\t', field), line.size());
    const std::string_view f(line.data() + field, end - field);
    if (f.size() < 4 || f[2] != ':' || !std::isalpha(static_cast<unsigned char>(f[0])) ||
        !std::isalnum(static_cast<unsigned char>(f[1])))
      throw UsageError(fmt::format("-R: the read group field '{}' is not TAG:VALUE", f));
    field = end + 1;
  }
  return {line, id};
}

std::string sam_header(const index::ReferenceText& ref, const std::string& read_group, const std::string& command_line) {
  std::string header = "@HD\tVN:1.6\tSO:unsorted\tGO:query\n";
  for (std::size_t s = 0; s < ref.sequences(); ++s) fmt::format_to(std::back_inserter(header), "@SQ\tSN:{}\tLN:{}\n", ref.names[s], ref.lengths[s]);
  if (!read_group.empty()) header += read_group + "\n";
  std::string command = command_line;
  std::replace(command.begin(), command.end(), '\t', ' ');
  fmt::format_to(std::back_inserter(header), "@PG\tID:hyalign\tPN:hyalign\tVN:{}\tCL:{}\n", kVersion, command);
  return header;
}

struct BatchCounts {
  std::size_t reads = 0, mapped = 0, proper_pairs = 0;
};

// Wall seconds of the run's steps, for the closing log line: where the time went.
struct StepSeconds {
  double ends = 0, insert_sizes = 0, finish = 0;  // mapping, on every thread but the estimate
  double input_wait = 0, output_wait = 0;          // the mapping threads waiting for the reader or writer
};

// One worker's tools.
struct Worker {
  std::unique_ptr<StrandSeeder> seeder;
  std::unique_ptr<kernels::ExtendScorer> scorer;
  std::unique_ptr<LocusAligner> aligner;
  std::vector<bam1_t*> records;
  kstring_t line = KS_INITIALIZE;
  ~Worker() {
    for (bam1_t* b : records) bam_destroy1(b);
    ks_free(&line);
  }
};

// A chunk's output: SAM text, or BAM records packed (io/sam_writer's pack_record).
struct ChunkOutput {
  std::string bytes;
  BatchCounts counts;
};

class BatchMapper {
 public:
  BatchMapper(const index::SuffixIndex& index, const MapOptions& options, MapDevices& devices, const sam_hdr_t* header,
              bool binary, std::string read_group_id)
      : index_(index), options_(options), params_(options.params), devices_(devices), end_mapper_(index, params_),
        records_(index.reference(), {read_group_id, params_.all_alignments, params_.mark_secondary,
                                     params_.soft_clip_supplementary, params_.scoring}),
        header_(header), binary_(binary) {
    take_ready_devices(0, std::nullopt);
    if (params_.insert_mean > 0) sizes_ = given_fr_sizes(params_.insert_mean, params_.insert_sd);
  }

  // Batch `unit` of the job (a unit of the job: ranks take batches in turn).
  std::vector<ChunkOutput> map(const ReadBatch& batch, std::size_t unit) {
    take_ready_devices(unit, batch.input_read);
    const std::size_t n = batch.reads.size(), ends = batch.paired ? 2 : 1;
    const std::size_t per_chunk =
        chunk_fragments(n / ends, map_threads_, kChunkFragments, most_chunk_fragments_) * ends;
    const std::size_t chunks = (n + per_chunk - 1) / per_chunk;
    letters_.resize(n);
    results_.resize(n);
    Stopwatch clock;
    parallel_for(chunks, map_threads_, [&](std::size_t c, unsigned w) {
      map_ends(batch, c * per_chunk, std::min(n, (c + 1) * per_chunk), workers_[w]);
    });
    const double ends_seconds = clock.lap();
    const std::vector<FinishChunk> finish = finish_chunks(batch, unit);
    seconds_.insert_sizes += clock.lap();  // not the devices' speed: may wait for another rank's batch
    std::vector<ChunkOutput> out(finish.size());
    parallel_for(finish.size(), map_threads_, [&](std::size_t c, unsigned w) {
      finish_chunk(batch, finish[c], workers_[w], out[c]);
    });
    const double finish_seconds = clock.lap();
    seconds_.ends += ends_seconds;
    seconds_.finish += finish_seconds;
    count_speed(n, ends_seconds + finish_seconds);
    return out;
  }

  StepSeconds& seconds() { return seconds_; }
  bool on_gpus() const { return stage_ == Stage::gpus; }
  // After the job's last batch (`units` in all).
  void finish(std::size_t units) {
    if (estimates_sizes_) relay_.finish(units);
  }

 private:
  // Between batches, the workers take the devices that are ready (a new stage): the first batch's
  // (`unit` 0) are those of the start. `input_read`: the share of the input read with batch `unit`.
  void take_ready_devices(std::size_t unit, std::optional<double> input_read) {
    // Reads of unknown size start held GPUs once enough batches are left for a trial.
    if (devices_.held() && batches_left(unit, input_read, dist::size()) >= kBatchesWorthATrial) devices_.start_gpus();
    const Stage stage = faster_of(devices_.stage(), unit, input_read);
    if (stage == stage_ && !workers_.empty()) return;
    stage_ = stage;
    map_threads_ = devices_.threads(stage);
    most_chunk_fragments_ = stage == Stage::gpus ? kGpuChunkFragments : kChunkFragments;
    std::vector<Worker> workers(map_threads_);
    for (unsigned k = 0; k < map_threads_; ++k) {
      Worker& w = workers[k];
      w.seeder = devices_.make_seeder(stage, k, end_mapper_.seed_finder(), index_, params_);
      w.scorer = devices_.make_scorer(stage, k);
      w.aligner = std::make_unique<LocusAligner>(index_, params_.scoring, *w.scorer);
    }
    workers_.swap(workers);
    log_info("map: {}{} threads, {}", unit == 0 ? "" : fmt::format("from batch {} on, ", unit + 1), map_threads_,
             devices_.description(stage));
  }

  // The speed of the batch just mapped, `reads` in `seconds`, for --device auto's choice. The
  // GPUs' first batch also sets their workers' buffers up: not their speed.
  void count_speed(std::size_t reads, double seconds) {
    if (stage_ == Stage::gpus && ++gpu_batches_ == 1) return;
    (stage_ == Stage::gpus ? gpu_reads_per_second_ : cpu_reads_per_second_) =
        static_cast<double>(reads) / std::max(seconds, 1e-6);
  }

  // With --device auto, once GPUs are set up: each of them and the CPU maps a batch (the GPUs two,
  // their first not counted), and the one that mapped faster maps the rest. On some genomes and
  // reads the CPU maps faster than the GPUs (their seeds and alignments save less than their round
  // trips cost): 150 bp single reads of a 20 Mbp synthetic genome on an H100 machine
  // (docs/performance.md). With too few batches left for that, the CPU maps them (map/gpu_trial.hpp).
  Stage faster_of(Stage ready, std::size_t unit, std::optional<double> input_read) {
    if (ready != Stage::gpus || options_.device != engine::DeviceChoice::automatic) return ready;
    if (faster_) return *faster_;
    const double left = batches_left(unit, input_read, dist::size());
    if (gpu_batches_ == 0 && left < kBatchesWorthATrial) {
      if (share_known(input_read)) {
        faster_ = Stage::cpu;
        log_info("map: the GPUs are ready with about {:.0f} batches left, too few to try them on: the CPU's cores "
                 "map the rest",
                 left);
      } else if (!told_trial_waits_) {
        told_trial_waits_ = true;
        log_info("map: the GPUs are ready; the reads come through a pipe, of a size not known ahead: they are tried "
                 "once {:.0f} batches are read",
                 kBatchesWorthATrial * dist::size());
      }
      return Stage::cpu;
    }
    if (gpu_reads_per_second_ == 0) return Stage::gpus;
    if (cpu_reads_per_second_ == 0) return Stage::cpu;
    faster_ = gpu_reads_per_second_ >= cpu_reads_per_second_ ? Stage::gpus : Stage::cpu;
    log_info("map: the GPUs mapped {:.0f} reads/s, the CPU {:.0f}: from batch {} on, the {} map", gpu_reads_per_second_,
             cpu_reads_per_second_, unit + 1, faster_ == Stage::gpus ? "GPUs" : "CPU's cores");
    return *faster_;
  }

  // Seeds, chains, one kernel call, and each end's placements.
  void map_ends(const ReadBatch& batch, std::size_t first, std::size_t last, Worker& w) {
    std::vector<EndTasks> tasks(last - first);
    w.aligner->clear();
    for (std::size_t r = first; r < last; ++r) letters_[r].assign(batch.reads[r].letters);
    end_mapper_.add_tasks({letters_.data() + first, last - first}, *w.seeder, *w.aligner, tasks);
    w.aligner->score_all();
    w.aligner->score_wider(params_.band_margin);
    for (std::size_t r = first; r < last; ++r)
      end_mapper_.collect(tasks[r - first], *w.aligner, letters_[r], batch.read_number(r), batch.paired,
                          results_[r]);
  }

  // Reads [first, last) of one part, finished with that part's insert sizes.
  struct FinishChunk {
    std::size_t first, last;
    PairSizes sizes;
  };

  // Each part's insert sizes, estimated in order from its own pairs (and the estimate before when
  // they are too few: the batch before's last, from whichever rank mapped it), and its reads in
  // chunks. Mate rescues are few per fragment (a mate seeds found nowhere near): larger chunks fill
  // the kernel's lanes with them, while leaving a few chunks per thread.
  std::vector<FinishChunk> finish_chunks(const ReadBatch& batch, std::size_t unit) {
    const std::size_t ends = batch.paired ? 2 : 1;
    const std::size_t per_chunk =
        chunk_fragments(batch.reads.size() / ends, map_threads_, kChunkFragments, kRescueChunkFragments) * ends;
    std::vector<FinishChunk> chunks;
    std::size_t part_first = 0;
    if (estimates_sizes_) sizes_ = relay_.take(unit);
    for (const std::size_t part_last : batch.part_ends) {
      if (estimates_sizes_) estimate_sizes(part_first, part_last);
      for (std::size_t first = part_first; first < part_last; first += per_chunk)
        chunks.push_back({first, std::min(part_last, first + per_chunk), sizes_});
      part_first = part_last;
    }
    if (estimates_sizes_) relay_.pass(unit, sizes_);
    return chunks;
  }

  void estimate_sizes(std::size_t first, std::size_t last) {
    const bool first_estimate = !sizes_.known();
    sizes_ = estimate_insert_sizes({results_.data() + first, last - first}, sizes_);
    if (!sizes_.known() && !told_no_estimate_) {
      told_no_estimate_ = true;
      log_info("map: too few pairs with both ends placed within {} letters of each other, in one orientation, to "
               "estimate insert sizes: ends are placed unpaired until a part of -K read letters gives an estimate (-I "
               "gives one)",
               kMaxEstimatedInsert);
    }
    if (!first_estimate || !sizes_.known()) return;
    for (std::size_t o = 0; o < sizes_.of.size(); ++o)
      if (const InsertSizes& s = sizes_.of[o]; s.known)
        log_info("map: insert size {} {:.1f} +- {:.1f} (proper {}-{}), from {} pairs; estimated again for every {} "
                 "read letters (-K)",
                 kOrientationNames[o], s.mean, s.sd, s.low, s.high, s.pairs, options_.batch_bases);
  }

  // Mate rescue, the pair's choice, and the records.
  void finish_chunk(const ReadBatch& batch, const FinishChunk& chunk, Worker& w, ChunkOutput& out) {
    const std::size_t first = chunk.first, last = chunk.last;
    const PairSizes& sizes = chunk.sizes;
    if (batch.paired && !params_.skip_rescue) rescue_mates(batch, first, last, sizes, w);
    std::vector<bam1_t*> records;
    const std::size_t step = batch.paired ? 2 : 1;
    for (std::size_t r = first; r < last; r += step) {
      bool proper = false;
      if (batch.paired)
        proper = params_.skip_pairing
                     ? proper_pair(results_[r], results_[r + 1], sizes)
                     : choose_pair(results_[r], results_[r + 1], letters_[r].length(), letters_[r + 1].length(), sizes,
                                   params_, batch.fragment_number(r));
      // -5 may have made another part of a split end primary than the one the pair's choice took.
      if (batch.paired && params_.primary5) proper = proper_pair(results_[r], results_[r + 1], sizes);
      for (std::size_t e = 0; e < step; ++e) trace_reported(results_[r + e], letters_[r + e], index_, params_);
      for (std::size_t e = 0; e < step; ++e) {
        const EndRecordInput end{&batch.reads[r + e], &results_[r + e], &letters_[r + e]};
        const EndRecordInput mate{&batch.reads[r + 1 - e], &results_[r + 1 - e], &letters_[r + 1 - e]};
        records_.add(end, batch.paired ? &mate : nullptr, static_cast<int>(e), proper, records);
        out.counts.reads += 1;
        out.counts.mapped += results_[r + e].mapped();
      }
      out.counts.proper_pairs += proper;
    }
    for (bam1_t* b : records) {
      if (binary_) {
        pack_record(b, out.bytes);
      } else {
        w.line.l = 0;
        if (sam_format1(header_, b, &w.line) < 0) throw std::bad_alloc();
        out.bytes.append(w.line.s, w.line.l);
        out.bytes.push_back('\n');
      }
      bam_destroy1(b);
    }
  }

  void rescue_mates(const ReadBatch& batch, std::size_t first, std::size_t last, const PairSizes& sizes, Worker& w) {
    if (!sizes.known()) return;
    std::vector<std::vector<RescueTask>> tasks(last - first);
    w.aligner->clear();
    for (std::size_t r = first; r < last; ++r) {
      const std::size_t mate = r ^ 1;
      queue_rescues(results_[mate], mate % 2 == 0, letters_[mate].length(), letters_[r], results_[r], sizes,
                    index_.reference(), params_, *w.aligner, tasks[r - first]);
    }
    w.aligner->score_all();
    for (std::size_t r = first; r < last; ++r)
      add_rescued(tasks[r - first], *w.aligner, letters_[r].length(), batch.read_number(r), params_, results_[r]);
  }

  const index::SuffixIndex& index_;
  const MapOptions& options_;
  const MapParams& params_;
  MapDevices& devices_;
  EndMapper end_mapper_;
  RecordBuilder records_;
  const sam_hdr_t* header_;
  bool binary_;
  Stage stage_ = Stage::gpus_starting;
  // Each device's speed on its last batch, 0 before one, and the faster once both have mapped one
  // (--device auto's choice).
  double cpu_reads_per_second_ = 0, gpu_reads_per_second_ = 0;
  std::size_t gpu_batches_ = 0;
  std::optional<Stage> faster_;
  bool told_trial_waits_ = false;
  unsigned map_threads_ = 0;  // threads that seed and align
  std::vector<Worker> workers_;
  std::size_t most_chunk_fragments_ = kChunkFragments;
  std::vector<EndLetters> letters_;
  std::vector<EndResult> results_;
  PairSizes sizes_;  // the last part's
  bool told_no_estimate_ = false;
  // Pairs without -I: each batch starts from the estimate the batch before ended with.
  bool estimates_sizes_ = (options_.interleaved || !options_.reads2.empty()) && params_.insert_mean <= 0;
  dist::Relay<PairSizes> relay_{sizes_};
  StepSeconds seconds_;
};

// Batch `unit`'s chunks, to rank 0's output in input order.
void write_chunks(dist::OrderedOutput& out, std::size_t unit, const std::vector<ChunkOutput>& chunks,
                  BatchCounts& totals) {
  for (const ChunkOutput& c : chunks) {
    out.write(unit, c.bytes);
    totals.reads += c.counts.reads;
    totals.mapped += c.counts.mapped;
    totals.proper_pairs += c.counts.proper_pairs;
  }
  out.end(unit);
}

// Maps every batch, reading the next and writing the one before while one is mapped. A batch holds
// a part of -K letters per few mapping threads: each mapping step ends when its slowest thread does, so
// more threads need more work per step (bwa mem reads -K letters per thread, but then its insert
// sizes, and so its output, change with the thread count; parts do not). Batches are the job's
// units: this rank maps its own (`units` counts them all) and returns their counts.
BatchCounts map_batches(ReadInput& input, BatchMapper& mapper, dist::OrderedOutput& out, std::size_t batch_bases,
                        unsigned threads, dist::UnitCounter& units) {
  // Every rank cuts the reads alike: rank 0's parts per batch (how parts are grouped changes no output).
  const std::size_t parts = dist::from_rank_zero(parts_per_batch(threads));
  const auto read_own = [&](ReadBatch& into, std::size_t& unit) {
    return units.next_mine([&] { return input.next(into, batch_bases, parts); },
                           [&] { return input.pass_over(batch_bases, parts); }, unit);
  };
  BatchCounts totals;
  StepSeconds& seconds = mapper.seconds();
  ReadBatch batch, next;
  std::size_t unit = 0, next_unit = 0;
  std::future<bool> reading;
  std::future<void> writing;
  try {
    Stopwatch clock;
    bool more = read_own(batch, unit);
    seconds.input_wait += clock.lap();
    while (more) {
      reading = std::async(std::launch::async, [&] { return read_own(next, next_unit); });
      std::vector<ChunkOutput> chunks = mapper.map(batch, unit);
      clock.lap();
      if (writing.valid()) writing.get();
      seconds.output_wait += clock.lap();
      writing = std::async(std::launch::async, [&out, &totals, unit, chunks = std::move(chunks)] {
        write_chunks(out, unit, chunks, totals);
      });
      more = reading.get();
      seconds.input_wait += clock.lap();
      std::swap(batch, next);
      unit = next_unit;
    }
    if (writing.valid()) writing.get();
    seconds.output_wait += clock.lap();
  } catch (...) {
    if (reading.valid()) reading.wait();  // neither may outlive what it works on
    if (writing.valid()) writing.wait();
    throw;
  }
  return totals;
}

// Each GPU's seconds in kernels, against the run's `wall` seconds.
void log_gpu_seconds(const MapGpus& gpus, double wall) {
  for (std::size_t g = 0; g < gpus.aligners.size(); ++g) {
    const double seeding = gpus.seeders[g] ? gpus.seeders[g]->device_seconds() : 0.0;
    const double aligning = gpus.aligners[g]->device_seconds();
    // Summed over the workers' streams, which may overlap: an upper bound of the time the GPU was busy.
    log_info("map: GPU {} kernels: seeds {:.2f} s, alignments {:.2f} s; {:.0f} % of the run's wall time", g, seeding,
             aligning, wall > 0 ? 100 * (seeding + aligning) / wall : 0.0);
  }
}

// Why the reads are too few to try the GPUs on (map/gpu_trial.hpp), where their files' sizes bound
// them (a letter takes a byte at least). Else gzip files large enough by their compressed bytes
// alone are not; the batches of the rest (pipes, smaller gzip files) are counted as they are read.
std::optional<std::string> too_few_reads_for_gpus(const MapOptions& options) {
  const std::vector<std::string> paths{options.reads1, options.reads2};
  const std::size_t batch_letters = parts_per_batch(std::max(1u, options.threads)) * options.batch_bases;
  const std::optional<std::uint64_t> letters = size_as_read(paths);
  const std::optional<double> batches = batches_at_most(letters, batch_letters, dist::size());
  if (!batches) {
    const double batches_at_least =
        static_cast<double>(letters_at_least(paths)) / static_cast<double>(batch_letters) / dist::size();
    if (batches_at_least >= kBatchesWorthATrial) return "";
    return std::nullopt;
  }
  if (*batches >= kBatchesWorthATrial) return "";
  return fmt::format("map: the reads hold {} letters at most, {:.1f} batches: too few to try the GPUs on, the CPU "
                     "maps them",
                     *letters, *batches);
}

void check_options(const MapOptions& options) {
  if (options.params.min_seed < 1) throw UsageError("-k must be at least 1");
  check_sam_path(options.out);
}

}  // namespace

void check_reference(const index::ReferenceText& ref, const std::string& path) {
  std::set<std::string_view> seen;
  for (std::size_t s = 0; s < ref.sequences(); ++s) {
    if (ref.lengths[s] == 0) throw InputError(path, fmt::format("reference sequence '{}' has no letters", ref.names[s]));
    if (!seen.insert(ref.names[s]).second)
      throw InputError(path, fmt::format("two reference sequences are named '{}'", ref.names[s]));
  }
}

void run_map(const MapOptions& given) {
  check_options(given);
  check_not_an_input(given.out, std::array{given.reference, given.reads1, given.reads2});
  MapOptions options = given;
  options.params.aligner = kernels::extend_cpu_aligner(options.kernel);
  // CUDA starts while MPI's start is awaited (check_same_inputs) and the index is read.
  const engine::GpuStart gpu_start =
      engine::plan_gpu_start(options.device, [&] { return too_few_reads_for_gpus(options); });
  dist::check_same_inputs({given.reference, given.reads1, given.reads2});

  Stopwatch clock;
  const index::SuffixIndex index = index::load_or_build_index(options.reference, options.threads);
  check_reference(index.reference(), options.reference);
  MapDevices devices(options, index, gpu_start.held);
  const auto [read_group, read_group_id] = read_group_line(options.read_group);
  ReadInput input(options.reads1, options.reads2, options.interleaved,
                  {options.comment_tags, own_tags(!read_group_id.empty())});
  log_info("map: {}", input.paired() ? "paired reads" : "single reads");
  if (!gpu_start.why_cpu.empty()) log_info("{}", gpu_start.why_cpu);
  const SamHeader header(sam_header(index.reference(), read_group, options.command_line));
  // Made before the output: --device gpu without a GPU fails here, having written nothing.
  BatchMapper mapper(index, options, devices, header.get(), is_bam_path(options.out), read_group_id);
  std::optional<SamWriter> writer;  // rank 0's
  if (dist::writes_output()) writer.emplace(options.out, header, options.threads, options.bam_level);
  dist::OrderedOutput out([&](std::string_view bytes) {
    if (writer->binary()) writer->write_packed(bytes);
    else writer->write_text(bytes);
  });
  dist::UnitCounter units;
  // With GPUs from the start, a part per few of their mapping threads (more threads need more work
  // per step); else a part per few cores, also while GPUs are set up.
  const unsigned part_threads = devices.threads(options.device == engine::DeviceChoice::gpu ? Stage::gpus : Stage::cpu);
  const BatchCounts mine = map_batches(input, mapper, out, options.batch_bases, part_threads, units);
  mapper.finish(units.count());
  if (devices.held())
    log_info("{}", engine::small_job_line(fmt::format("map: the reads came to {} batches: too few to try the GPUs on, "
                                                      "the CPU mapped them",
                                                      units.count())));
  // Each rank's wait for its reads (ms) too: a job that more ranks would not speed up shows there.
  const auto waited_ms = static_cast<std::uint64_t>(1000 * mapper.seconds().input_wait);
  const auto shares = out.finish(units.count(), {mine.reads, mine.mapped, mine.proper_pairs, waited_ms});
  if (!writer) return;
  writer->commit();
  const auto totals = dist::summed(shares);  // reads, mapped, proper pairs
  const StepSeconds& s = mapper.seconds();
  log_info("map: wall seconds: seeds and alignment {:.2f}, insert sizes {:.2f}, mate rescue and records {:.2f}, "
           "waiting for reads {:.2f}, waiting for output {:.2f}",
           s.ends, s.insert_sizes, s.finish, s.input_wait, s.output_wait);
  const double wall = clock.lap();
  if (mapper.on_gpus()) log_gpu_seconds(devices.gpus(), wall);
  const std::uint64_t reads = totals[0], mapped = totals[1], proper_pairs = totals[2];
  log_info("map: {} reads, {} mapped ({:.2f} %), {} proper pairs; {:.2f} s, peak memory {:.0f} MiB", reads, mapped,
           reads ? 100.0 * static_cast<double>(mapped) / static_cast<double>(reads) : 0.0, proper_pairs, wall,
           peak_memory_mib());
  dist::log_shares(shares, 0, "reads", [](const dist::RankShare& share) {
    return fmt::format(", {:.2f} s waiting for reads", static_cast<double>(share.counts.at(3)) / 1000);
  });
}

}  // namespace hyalign::map
