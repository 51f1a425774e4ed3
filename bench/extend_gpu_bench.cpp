// The map's extension kernels on batches shaped like its work: reads against chain windows (band
// about 33) and mate rescues (band about 400). GCUPS (cells = read letters x band) of the best CPU
// kernel on one thread and on every thread, on one thread in 16-bit lanes (a start bonus too large
// for 8-bit lanes: the same cells), and of the GPU kernel, with the GPU / all-threads ratio, in one
// run; the GPU fed by one thread and by every thread (a stream each), and its kernels alone (device
// time, without packing and transfers). Scores are checked equal between the kernels.
// Then the tracebacks `map` runs on the placements it reports (extend_cpu_aligner's aligners, one
// thread): reads of 150 bp to 10 kb in bands of about 40, and a mate rescue's wide band; GCUPS of
// each aligner this CPU has, and whether each gives the scalar aligner's alignments.
// usage: hyalign_bench_extend [TASKS (200000; 0: tracebacks only)] [ROUNDS (3)]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <thread>
#include <vector>

#include "engine/cpu_features.hpp"
#include "engine/devices.hpp"
#include "kernels/cuda/extend_cuda.hpp"
#include "kernels/extend_kernel.hpp"

namespace {

using namespace hyalign;

struct Shape {
  const char* name;
  std::size_t length;
  std::uint32_t band;
};

struct Batch {
  std::vector<std::uint8_t> letters;  // each task's query, then its target
  std::vector<kernels::ExtendTask> tasks;
};

// Reads with 1 % substitutions against windows holding them in the middle of the band.
Batch make_batch(const Shape& shape, std::size_t count, std::mt19937& rng) {
  Batch b;
  const std::size_t per_task = shape.length + shape.length + shape.band - 1;
  b.letters.resize(per_task * count);
  for (std::size_t k = 0; k < count; ++k) {
    std::uint8_t* query = b.letters.data() + k * per_task;
    std::uint8_t* target = query + shape.length;
    for (std::size_t i = 0; i < shape.length + shape.band - 1; ++i) target[i] = rng() % 4;
    for (std::size_t i = 0; i < shape.length; ++i)
      query[i] = rng() % 100 == 0 ? rng() % 4 : target[i + shape.band / 2];
  }
  for (std::size_t k = 0; k < count; ++k) {
    const std::uint8_t* query = b.letters.data() + k * per_task;
    b.tasks.push_back({{query, shape.length}, query + shape.length, shape.band});
  }
  return b;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The best of `rounds` runs of `threads` scorers over slices of the batch.
double time_scoring(const kernels::ExtendKernel& kernel, const Batch& b, unsigned threads, int rounds,
                    std::vector<kernels::ExtendScore>& results) {
  results.assign(b.tasks.size(), {});
  std::vector<std::unique_ptr<kernels::ExtendScorer>> scorers;
  for (unsigned t = 0; t < threads; ++t) scorers.push_back(kernel.make_scorer());
  constexpr std::size_t kSlice = 16384;  // tasks per scorer call, as the mapper's batches
  double best = 1e30;
  for (int r = 0; r < rounds; ++r) {
    const auto start = std::chrono::steady_clock::now();
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t)
      pool.emplace_back([&, t] {
        for (std::size_t first = t * kSlice; first < b.tasks.size(); first += threads * kSlice) {
          const std::size_t n = std::min(kSlice, b.tasks.size() - first);
          scorers[t]->score({b.tasks.data() + first, n}, {results.data() + first, n});
        }
      });
    for (std::thread& th : pool) th.join();
    best = std::min(best, seconds_since(start));
  }
  return best;
}

bool same_alignment(const kernels::ExtendAlignment& a, const kernels::ExtendAlignment& b) {
  return a.best == b.best && a.query_begin == b.query_begin && a.target_begin == b.target_begin && a.cigar == b.cigar;
}

// The best of `rounds` passes of `align` over the batch on one thread.
double time_tracebacks(kernels::ExtendAligner align, const kernels::ExtendScoring& scoring, const Batch& b, int rounds,
                       std::vector<kernels::ExtendAlignment>& results) {
  results.resize(b.tasks.size());
  double best = 1e30;
  for (int r = 0; r < rounds; ++r) {
    const auto start = std::chrono::steady_clock::now();
    for (std::size_t k = 0; k < b.tasks.size(); ++k) results[k] = align(b.tasks[k], scoring);
    best = std::min(best, seconds_since(start));
  }
  return best;
}

void print_tracebacks(const kernels::ExtendScoring& scoring, int rounds, std::mt19937& rng) {
  using engine::KernelChoice;
  std::vector<KernelChoice> aligners{KernelChoice::scalar};
  for (KernelChoice choice : {KernelChoice::avx2, KernelChoice::avx512})
    if (engine::cpu_supports(choice)) aligners.push_back(choice);
  std::printf("\n# tracebacks, one thread, GCUPS (read letters x band), best of %d\n%-24s", rounds, "shape");
  for (KernelChoice choice : aligners) std::printf(" %10s", std::string(engine::kernel_name(choice)).c_str());
  std::printf(" %10s %5s\n", "best/scalar", "same");
  for (const auto& [shape, count] : {std::pair{Shape{"read 150, band 33", 150, 33}, 20000},
                                      std::pair{Shape{"read 1000, band 41", 1000, 41}, 2000},
                                      std::pair{Shape{"read 10000, band 41", 10000, 41}, 200},
                                      std::pair{Shape{"rescue 150, band 400", 150, 400}, 2000}}) {
    const Batch b = make_batch(shape, count, rng);
    const double cells = static_cast<double>(count) * shape.length * shape.band;
    std::vector<kernels::ExtendAlignment> reference, results;
    bool same = true;
    double scalar_seconds = 0, best_seconds = 1e30;
    std::printf("%-24s", shape.name);
    for (KernelChoice choice : aligners) {
      const double seconds = time_tracebacks(kernels::extend_cpu_aligner(choice), scoring, b, rounds,
                                             choice == KernelChoice::scalar ? reference : results);
      if (choice == KernelChoice::scalar) scalar_seconds = seconds;
      else same = same && std::equal(results.begin(), results.end(), reference.begin(), same_alignment);
      best_seconds = std::min(best_seconds, seconds);
      std::printf(" %10.2f", cells / seconds / 1e9);
    }
    std::printf(" %10.2f %5s\n", scalar_seconds / best_seconds, same ? "yes" : "NO");
  }
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t count = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 200000;
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 3;
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  const kernels::ExtendScoring scoring;
  const auto cpu = kernels::make_extend_cpu_kernel(engine::KernelChoice::automatic, scoring);
  kernels::ExtendScoring wide_lanes = scoring;
  wide_lanes.clip5 = 256;
  const auto cpu16 = kernels::make_extend_cpu_kernel(engine::KernelChoice::automatic, wide_lanes);
  const auto gpus = engine::usable_gpus();
  const auto gpu = gpus.empty() ? nullptr : kernels::cuda::make_extend_gpu_kernel(gpus.front().index, scoring);
  if (!gpu) std::printf("# no usable GPU (%s): CPU only\n", engine::gpu_unavailable_reason().c_str());
  std::printf("# %zu tasks per shape, best of %d; CPU kernel %s, %u threads\n", count, rounds,
              std::string(cpu->name()).c_str(), threads);
  std::printf("%-22s %10s %10s %10s %10s %10s %12s %9s %5s\n", "shape", "cpu1", "cpuN", "cpu1 16b", "gpu1", "gpuN",
              "gpu kernels", "gpuN/cpuN", "same");
  std::mt19937 rng(1);
  std::vector<Shape> shapes{Shape{"read 150, band 33", 150, 33}, Shape{"read 100, band 33", 100, 33},
                            Shape{"read 150, band 64", 150, 64}, Shape{"rescue 150, band 400", 150, 400}};
  if (count == 0) shapes.clear();
  for (const Shape& shape : shapes) {
    const std::size_t n = shape.band > 100 ? count / 10 : count;
    const Batch b = make_batch(shape, n, rng);
    const double cells = static_cast<double>(n) * shape.length * shape.band;
    std::vector<kernels::ExtendScore> one, all, on_gpu, in_16_bits;
    const double t1 = time_scoring(*cpu, b, 1, rounds, one);
    const double tn = time_scoring(*cpu, b, threads, rounds, all);
    const double t16 = time_scoring(*cpu16, b, 1, rounds, in_16_bits);
    double tg1 = 0, tgn = 0, kernel_seconds = 0;
    bool same = one == all;
    if (gpu) {
      const double before = gpu->device_seconds();  // one stream: its kernels do not overlap
      tg1 = time_scoring(*gpu, b, 1, rounds, on_gpu);
      kernel_seconds = (gpu->device_seconds() - before) / rounds;
      same = same && on_gpu == one;
      tgn = time_scoring(*gpu, b, threads, rounds, on_gpu);
      same = same && on_gpu == one;
    }
    auto gcups = [&](double seconds) { return seconds > 0 ? cells / seconds / 1e9 : 0.0; };
    std::printf("%-22s %10.2f %10.2f %10.2f %10.2f %10.2f %12.2f %9.2f %5s\n", shape.name, gcups(t1), gcups(tn),
                gcups(t16), gcups(tg1), gcups(tgn), gcups(kernel_seconds), tgn > 0 ? tn / tgn : 0.0, same ? "yes" : "NO");
  }
  print_tracebacks(scoring, rounds, rng);
  return 0;
}
