// Scoring-phase throughput of hyalign papara's kernels, in GCUPS (query residues × columns × branches
// per second), compared as ratios within one run:
//   1. the real benchmark: q2_16S reference (1013 branches × 1285 columns) with the 500 gut reads;
//   2. synthetic references of 1k, 10k and 100k columns (same reads), to show speed is flat in length;
//   3. thread scaling of the fastest kernel.
// With --gpu: the GPU kernel alone (kernel-only and end-to-end scoring GCUPS), all CPU cores alone,
// and both together from one queue, on three workloads: the q2_16S reference with the gut reads
// (50-521 bp) replicated N times (--replicate N, default 20) so the GPU is full, the same reference
// with 200 full-length reads (1.1-1.3 kb, long200.fasta) replicated N times, and the Pfam Pkinase
// protein set with its reads replicated to 1e12 cells.
// usage: hyalign_bench_papara [DATA_DIR] [--seconds S] [--gpu [--replicate N]]
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <map>
#include <random>
#include <string>
#include <thread>

#include <fmt/format.h>

#include "core/log.hpp"
#include "engine/devices.hpp"
#include "kernels/cuda/papara_cuda.hpp"
#include "kernels/papara_kernel.hpp"
#include "papara/ancestral.hpp"
#include "papara/inputs.hpp"
#include "papara/placement.hpp"

using namespace hyalign;
using namespace hyalign::engine;
using namespace hyalign::kernels;

namespace {

struct Measurement {
  double gcups = 0;
  double seconds = 0;
};

// Scores the first `query_count` queries against all targets; repeats until `min_seconds` passed.
Measurement measure(KernelChoice choice, const PaparaTargets& targets, const StateSequences& all_queries,
                    std::size_t query_count, unsigned threads, double min_seconds) {
  StateSequences queries;
  for (std::size_t q = 0; q < std::min(query_count, all_queries.size()); ++q)
    queries.add(all_queries.name(q), all_queries.sequence(q));
  const PaparaProblem problem{targets, &queries, &Alphabet::dna(), {}};
  const auto kernel = make_papara_cpu_kernel(choice, problem);
  const double cells = static_cast<double>(queries.total_residues()) * static_cast<double>(targets.columns) *
                       static_cast<double>(targets.count);
  double seconds = 0;
  std::size_t runs = 0;
  const auto start = std::chrono::steady_clock::now();
  do {
    papara::score_all_targets({{kernel.get(), threads, 1, ""}}, problem, kernel->block_width(), false);
    ++runs;
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  } while (seconds < min_seconds);
  return {cells * static_cast<double>(runs) / seconds / 1e9, seconds / static_cast<double>(runs)};
}

struct SyntheticBranches {
  std::vector<StateSet> states;
  std::vector<std::uint8_t> cgap;
  PaparaTargets targets;
  SyntheticBranches(std::size_t branches, std::size_t columns, std::mt19937& rng) {
    states.resize(branches * columns);
    cgap.resize(branches * columns);
    for (auto& s : states) s = rng() % 5 ? StateSet{1} << (rng() % 4) : StateSet{15};
    for (auto& c : cgap) c = rng() % 3 == 0;
    targets = {branches, columns, states.data(), cgap.data()};
  }
};

struct DeviceRun {
  double wall = 0, gcups = 0, kernel_gcups = 0, feeder_cpu_fraction = 0, gpu_share = 0;
};

DeviceRun run_devices(const std::vector<papara::DeviceWorkers>& devices, const PaparaProblem& problem,
                      const PaparaKernel* gpu) {
  const double kernel_before = gpu ? gpu->device_seconds() : 0;
  const auto start = std::chrono::steady_clock::now();
  const auto result = papara::score_all_targets(devices, problem, 32, false);
  DeviceRun run;
  run.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  double cells = 0;
  for (const auto& d : result.devices) cells += d.cells;
  run.gcups = cells / run.wall / 1e9;
  for (std::size_t i = 0; i < devices.size(); ++i)
    if (devices[i].kernel == gpu) {
      const auto& d = result.devices[i];
      run.kernel_gcups = d.cells / (gpu->device_seconds() - kernel_before) / 1e9;
      run.feeder_cpu_fraction = d.cpu_seconds / run.wall;
      run.gpu_share = d.cells / cells;
    }
  return run;
}

void gpu_benchmark(const std::string& workload, const PaparaTargets& targets, const Alphabet& alphabet,
                   const StateSequences& reads, std::size_t replicate, const engine::GpuInfo& device) {
  StateSequences queries;
  for (std::size_t r = 0; r < replicate; ++r)
    for (std::size_t q = 0; q < reads.size(); ++q) queries.add(reads.name(q), reads.sequence(q));
  const PaparaProblem problem{targets, &queries, &alphabet, {}};
  const double cells = static_cast<double>(queries.total_residues()) * targets.columns * targets.count;
  const auto gpu = cuda::make_papara_gpu_kernel(device.index, problem);
  const auto cpu = make_papara_cpu_kernel(KernelChoice::automatic, problem);
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  // The hybrid run is what --device auto plans: a core for the GPU's worker, the rest CPU workers.
  const papara::DeviceWorkers gpu_workers{gpu.get(), 1, 1u << 20, "gpu"}, cpu_workers{cpu.get(), cores, 1, "cpu"},
      cpu_beside_gpu{cpu.get(), std::max(1u, cores - 1), 1, "cpu"};

  fmt::print("\nGPU benchmark: {} ({:.1f} GiB free), {} ×{} = {} queries, {} branches × {} columns, {:.3g} cells\n",
             device.name, device.free_bytes / 1073741824.0, workload, replicate, queries.size(), targets.count,
             targets.columns, cells);
  run_devices({gpu_workers}, problem, gpu.get());  // warm-up: context, module load, first allocations
  const DeviceRun g = run_devices({gpu_workers}, problem, gpu.get());
  const DeviceRun c = run_devices({cpu_workers}, problem, nullptr);
  const DeviceRun h = run_devices({cpu_beside_gpu, gpu_workers}, problem, gpu.get());
  fmt::print("{:<36} {:>10} {:>12} {:>14}\n", "scoring run", "wall s", "GCUPS", "kernel GCUPS");
  fmt::print("{:<36} {:>10.3f} {:>12.1f} {:>14.1f}\n", "GPU alone (" + std::string(gpu->name()) + ")", g.wall, g.gcups,
             g.kernel_gcups);
  fmt::print("{:<36} {:>10.3f} {:>12.1f} {:>14}\n", fmt::format("CPU alone ({} threads, {})", cores, cpu->name()),
             c.wall, c.gcups, "-");
  fmt::print("{:<36} {:>10.3f} {:>12.1f} {:>14.1f}\n",
             fmt::format("hybrid ({} CPU threads + GPU, one queue)", cpu_beside_gpu.workers), h.wall, h.gcups,
             h.kernel_gcups);
  fmt::print("GPU alone / CPU alone: {:.1f}x; hybrid wall / fastest alone: {:.3f}\n", c.wall / g.wall,
             h.wall / std::min(g.wall, c.wall));
  fmt::print("hybrid / (GPU alone + CPU alone): {:.3f}; GPU share of cells in hybrid: {:.1f}%\n",
             h.gcups / (g.gcups + c.gcups), 100 * h.gpu_share);
  fmt::print("GPU feeding thread CPU time / wall: {:.1f}% (GPU alone), {:.1f}% (hybrid)\n",
             100 * g.feeder_cpu_fraction, 100 * h.feeder_cpu_fraction);
}

// Branch vectors of a reference alignment and tree with the queries beside them.
struct Workload {
  papara::PaparaInputs inputs;
  papara::BranchVectors branches;
  PaparaTargets targets() const { return {branches.branches, branches.columns, branches.states.data(), branches.cgap.data()}; }
};

Workload load_workload(const std::string& tree, const std::string& alignment, const std::string& queries,
                       const Alphabet& alphabet) {
  Workload w{papara::load_inputs({tree, alignment, queries}, alphabet, true), {}};
  w.branches = papara::compute_branch_vectors(w.inputs, alphabet, papara::GapModel::probabilistic, 2);
  return w;
}

int gpu_benchmarks(const std::string& data, std::size_t replicate) {
  const auto gpus = engine::usable_gpus();
  if (gpus.empty()) {
    fmt::print("SKIPPED: GPU benchmark: {}\n", engine::gpu_unavailable_reason());
    return 0;
  }
  const std::string q2 = data + "/papara/q2_16S/", pk = data + "/papara/protein_Pkinase/";
  const Workload gut = load_workload(q2 + "ref.unrooted.nwk", q2 + "ref.phy", q2 + "gut500.fasta", Alphabet::dna());
  gpu_benchmark("q2_16S × gut500 (50-521 bp)", gut.targets(), Alphabet::dna(), gut.inputs.queries, replicate, gpus[0]);
  const Workload full = load_workload(q2 + "ref.unrooted.nwk", q2 + "ref.phy", q2 + "long200.fasta", Alphabet::dna());
  gpu_benchmark("q2_16S × long200 (1.1-1.3 kb)", full.targets(), Alphabet::dna(), full.inputs.queries, replicate,
                gpus[0]);
  const Workload protein = load_workload(pk + "ref.tre", pk + "ref.phy", pk + "query.fasta", Alphabet::protein());
  const double cells_per_copy = static_cast<double>(protein.inputs.queries.total_residues()) *
                                protein.branches.columns * protein.branches.branches;
  gpu_benchmark("Pkinase (Pfam) protein", protein.targets(), Alphabet::protein(), protein.inputs.queries,
                static_cast<std::size_t>(std::ceil(1e12 / cells_per_copy)), gpus[0]);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string data = HYALIGN_DATA_DIR;
  double min_seconds = 1.0;
  bool gpu = false;
  std::size_t replicate = 20;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--seconds" && i + 1 < argc) min_seconds = std::atof(argv[++i]);
    else if (a == "--replicate" && i + 1 < argc) replicate = static_cast<std::size_t>(std::atol(argv[++i]));
    else if (a == "--gpu") gpu = true;
    else data = a;
  }
  Log::instance().set_quiet(true);
  if (gpu) return gpu_benchmarks(data, replicate);
  const std::string q2 = data + "/papara/q2_16S/";
  const Workload gut = load_workload(q2 + "ref.unrooted.nwk", q2 + "ref.phy", q2 + "gut500.fasta", Alphabet::dna());
  const PaparaTargets real = gut.targets();
  const StateSequences& reads = gut.inputs.queries;

  std::vector<KernelChoice> kernels;
  for (KernelChoice k : {KernelChoice::scalar, KernelChoice::avx2, KernelChoice::avx512})
    if (cpu_supports(k)) kernels.push_back(k);
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());

  fmt::print("hyalign papara scoring benchmark: {} reads ({} residues), 1 thread unless stated\n", reads.size(),
             reads.total_residues());
  fmt::print("{:<44} {:>10} {:>10} {:>10}\n", "workload", "kernel", "GCUPS", "s/run");
  std::map<std::string, double> gcups;
  auto report = [&](const std::string& workload, KernelChoice k, Measurement m, const std::string& tag) {
    fmt::print("{:<44} {:>10} {:>10.2f} {:>10.3f}\n", workload, kernel_name(k), m.gcups, m.seconds);
    gcups[tag] = m.gcups;
  };
  for (KernelChoice k : kernels) {
    const std::size_t n = k == KernelChoice::scalar ? 10 : reads.size();  // scalar: a sample of the reads
    report(fmt::format("q2_16S × gut500 ({} reads)", n), k, measure(k, real, reads, n, 1, min_seconds),
           fmt::format("real/{}", kernel_name(k)));
  }
  std::mt19937 rng(42);
  for (std::size_t columns : {1000u, 10000u, 100000u}) {
    SyntheticBranches synthetic(64, columns, rng);
    for (KernelChoice k : kernels) {
      // About 1e11 cells per SIMD run and 1e9 per scalar run (mean read length ~440).
      const double budget = k == KernelChoice::scalar ? 1e9 : 1e11;
      const auto n = static_cast<std::size_t>(std::max(1.0, budget / (440.0 * 64.0 * static_cast<double>(columns))));
      report(fmt::format("synthetic {}k columns × 64 br ({} reads)", columns / 1000, std::min(n, reads.size())), k,
             measure(k, synthetic.targets, reads, n, 1, min_seconds), fmt::format("{}/{}", columns, kernel_name(k)));
    }
  }
  const KernelChoice best = kernels.back();
  const Measurement one = measure(best, real, reads, reads.size(), 1, min_seconds);
  const Measurement all = measure(best, real, reads, reads.size(), cores, min_seconds);
  fmt::print("{:<44} {:>10} {:>10.2f} {:>10.3f}\n", "q2_16S × gut500, 1 thread", kernel_name(best), one.gcups, one.seconds);
  fmt::print("{:<44} {:>10} {:>10.2f} {:>10.3f}\n", fmt::format("q2_16S × gut500, {} threads", cores),
             kernel_name(best), all.gcups, all.seconds);

  fmt::print("\nratios (same run)\n");
  for (KernelChoice k : kernels)
    if (k != KernelChoice::scalar)
      fmt::print("  {} / scalar on q2_16S: {:.1f}x\n", kernel_name(k),
                 gcups[fmt::format("real/{}", kernel_name(k))] / gcups["real/scalar"]);
  if (kernels.size() == 3) fmt::print("  avx512 / avx2 on q2_16S: {:.2f}x\n", gcups["real/avx512"] / gcups["real/avx2"]);
  for (KernelChoice k : kernels)
    fmt::print("  {}: 100k / 1k columns: {:.2f}, 10k / 1k: {:.2f}\n", kernel_name(k),
               gcups[fmt::format("100000/{}", kernel_name(k))] / gcups[fmt::format("1000/{}", kernel_name(k))],
               gcups[fmt::format("10000/{}", kernel_name(k))] / gcups[fmt::format("1000/{}", kernel_name(k))]);
  fmt::print("  {} threads / 1 thread ({}): {:.2f}x\n", cores, kernel_name(best), all.gcups / one.gcups);
  return 0;
}
