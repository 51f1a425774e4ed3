// The map's seed search on map-shaped work: both strands of reads sampled from a genome with 1 %
// substitutions, searched by the CPU (map/seeds.cpp, in the mapper's chunks of 64 reads) on one
// thread and on every thread, and by the GPU fed by one thread and by every thread (a searcher
// each), with the kernels' own time. Strands per second and the GPU / all-threads ratio, in one
// run; the number of hits found is checked equal.
// usage: hyalign_bench_seed GENOME.fa [READS (200000)] [LENGTH (150)] [ROUNDS (3)]
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "core/parallel.hpp"
#include "engine/devices.hpp"
#include "index/reference_text.hpp"
#include "index/suffix_index.hpp"
#include "kernels/cuda/seed_cuda.hpp"
#include "map/seeds.hpp"

namespace {

using namespace hyalign;

constexpr std::size_t kCpuChunk = 128;      // strands per CPU call (the mapper's 64 reads)
constexpr std::size_t kGpuChunk = 1 << 16;  // strands per GPU call

std::string other_strand(std::string s) {
  std::reverse(s.begin(), s.end());
  for (char& c : s) c = c == 'a' ? 't' : c == 'c' ? 'g' : c == 'g' ? 'c' : c == 't' ? 'a' : c;
  return s;
}

std::vector<std::string> sample_strands(const std::string& text, std::size_t reads, std::size_t length) {
  std::mt19937 rng(5);
  std::vector<std::string> strands;
  while (strands.size() < 2 * reads) {
    std::string read = text.substr(rng() % (text.size() - length), length);
    if (read.find(index::kSeparator) != std::string::npos) continue;
    for (char& c : read)
      if (rng() % 100 == 0) c = "acgt"[rng() % 4];
    strands.push_back(other_strand(read));
    strands.push_back(std::move(read));
  }
  return strands;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Best of `rounds`: every strand searched in chunks of `chunk` by `threads` threads, each with its
// own search function; returns the matches (CPU: hits' distinct seeds) counted in the last round.
template <typename MakeSearch>
double best_time(std::size_t strands, std::size_t chunk, unsigned threads, int rounds, MakeSearch&& make_search,
                 std::size_t& found) {
  double best = 1e30;
  for (int r = 0; r < rounds; ++r) {
    std::vector<decltype(make_search())> searches;
    for (unsigned t = 0; t < threads; ++t) searches.push_back(make_search());
    std::atomic<std::size_t> count{0};
    const auto start = std::chrono::steady_clock::now();
    parallel_for((strands + chunk - 1) / chunk, threads, [&](std::size_t c, unsigned w) {
      count += searches[w](c * chunk, std::min(strands, (c + 1) * chunk));
    });
    best = std::min(best, seconds_since(start));
    found = count;
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s GENOME.fa [READS] [LENGTH] [ROUNDS]\n", argv[0]);
    return 2;
  }
  const std::size_t reads = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 200000;
  const std::size_t length = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 150;
  const int rounds = argc > 4 ? std::atoi(argv[4]) : 3;
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  const index::SuffixIndex index = index::SuffixIndex::build(index::read_reference(argv[1]), threads);
  const std::vector<std::string> strands = sample_strands(index.reference().text, reads, length);
  const map::MapParams params;
  const map::SeedFinder finder(index, params);

  // Hits counted: a CPU match's copies, or the rows of a GPU match with few enough copies.
  auto cpu_search = [&] {
    return [&](std::size_t first, std::size_t last) {
      std::vector<std::vector<map::SeedHit>> hits(last - first);
      std::vector<map::SeedQuery> queries;
      for (std::size_t s = first; s < last; ++s) queries.push_back({strands[s], false, &hits[s - first], nullptr});
      finder.find(queries);
      std::size_t n = 0;
      for (const auto& h : hits) n += h.size();
      return n;
    };
  };
  std::size_t cpu_found = 0;
  const double cpu1 = best_time(strands.size(), kCpuChunk, 1, rounds, cpu_search, cpu_found);
  const double cpun = best_time(strands.size(), kCpuChunk, threads, rounds, cpu_search, cpu_found);
  std::printf("# %zu strands of %zu letters, genome %zu letters, %u threads, best of %d\n", strands.size(), length,
              index.text().size(), threads, rounds);
  std::printf("cpu 1 thread:   %.3f s, %.0f strands/s\n", cpu1, strands.size() / cpu1);
  std::printf("cpu %u threads: %.3f s, %.0f strands/s\n", threads, cpun, strands.size() / cpun);

  const auto gpus = engine::usable_gpus();
  if (gpus.empty()) {
    std::printf("gpu: none (%s)\n", engine::gpu_unavailable_reason().c_str());
    return 0;
  }
  const kernels::SeedSearchParams gpu_params{params.min_seed,
                                             static_cast<std::uint32_t>(params.min_seed * params.reseed_factor + 0.5)};
  const auto kernel = kernels::cuda::make_seed_gpu_kernel(gpus.front().index, index, gpu_params);
  std::vector<std::string_view> views(strands.begin(), strands.end());
  auto gpu_search = [&] {
    return [&, searcher = std::shared_ptr<kernels::cuda::SeedGpuSearcher>(kernel->make_searcher())](
               std::size_t first, std::size_t last) {
      std::vector<kernels::SeedMatch> matches;
      std::vector<std::uint32_t> ends;
      searcher->find({views.data() + first, last - first}, matches, ends);
      std::size_t n = 0;
      for (const kernels::SeedMatch& m : matches)
        if (m.hi - m.lo <= params.max_occurrences) n += m.hi - m.lo;
      return n;
    };
  };
  std::size_t gpu_found = 0;
  const double gpu1 = best_time(strands.size(), kGpuChunk, 1, rounds, gpu_search, gpu_found);
  const double kernel_before = kernel->device_seconds();
  const double gpun = best_time(strands.size(), kGpuChunk / 4, threads, rounds, gpu_search, gpu_found);
  const double kernel_seconds = (kernel->device_seconds() - kernel_before) / rounds;
  std::printf("gpu, 1 feeding thread:   %.3f s, %.0f strands/s\n", gpu1, strands.size() / gpu1);
  std::printf("gpu, %u feeding threads: %.3f s, %.0f strands/s (kernels %.3f s a round)\n", threads, gpun,
              strands.size() / gpun, kernel_seconds);
  std::printf("gpu / cpu %u threads: %.2fx; hits cpu %zu, gpu %zu%s\n", threads, cpun / gpun, cpu_found,
              gpu_found, cpu_found == gpu_found ? "" : "  MISMATCH");
  return cpu_found == gpu_found ? 0 : 1;
}
