// Smith–Waterman search throughput, one thread, side by side in one run: hyalign's score kernels
// (scalar, avx2, avx512) against parasail's vectorised functions (libparasail; the Debian build has
// no inter-sequence API, so every intra-sequence AVX2 family it ships is measured: striped and scan
// with a query profile built once per query, diag; 8-bit, 16-bit and saturation-checked "sat").
//
// Workload: the 20 CUDASW++4.0 benchmark queries (tests/data/sw/queries20.fasta) against a synthetic
// database of random proteins (letters ARNDCQEGHILKMFPSTWYV uniform, lengths drawn from the query
// lengths, Mersenne Twister seed 42). Every variant scores all 20 queries against the same first
// --targets database sequences (sorted by length, as `hyalign search` hands them out); the scalar
// kernel gets a tenth of them. By default the parasail striped-profile AVX2 functions (its fastest
// here); --all adds scan, diag and SSE4.1; --ours measures hyalign only. BLOSUM62, gap open 11, extend 1 (parasail: open 12, extend 1).
// GCUPS = query residues × target residues / seconds. Scores are cross-checked against parasail's
// saturation-checked striped function.
//
// usage: hyalign_bench_sw [DATA_DIR] [--targets N (default 2000)] [--db N (default 20000)] [--all] [--ours]
#include <parasail.h>
#include <parasail/matrices/blosum62.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "bench_support.hpp"
#include "core/score_matrix.hpp"
#include "kernels/sw_kernel.hpp"

using namespace hyalign;
using namespace hyalign::engine;
using namespace hyalign::kernels;
using hyalign::bench::now;
using hyalign::bench::read_fasta;

namespace {

struct Result {
  std::string name;
  double gcups = 0;
  bool exact = true;  // every score exact (8-bit parasail variants saturate)
  long long checksum = 0;
  std::size_t saturated = 0;
};

}  // namespace

int main(int argc, char** argv) {
  std::string data_dir = HYALIGN_DATA_DIR;
  std::size_t target_count = 2000, db_size = 20000;
  bool all_variants = false, ours_only = false;
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    if (arg == "--targets" && a + 1 < argc) target_count = std::strtoul(argv[++a], nullptr, 10);
    else if (arg == "--db" && a + 1 < argc) db_size = std::strtoul(argv[++a], nullptr, 10);
    else if (arg == "--all") all_variants = true;
    else if (arg == "--ours") ours_only = true;
    else data_dir = arg;
  }
  const std::vector<std::string> queries = read_fasta(data_dir + "/sw/queries20.fasta");
  if (queries.empty()) return 1;

  // Synthetic database.
  std::mt19937 rng(42);
  const std::string amino = "ARNDCQEGHILKMFPSTWYV";
  std::uniform_int_distribution<std::size_t> pick_letter(0, amino.size() - 1), pick_length(0, queries.size() - 1);
  std::vector<std::string> db(db_size);
  for (auto& s : db) {
    s.resize(queries[pick_length(rng)].size());
    for (char& c : s) c = amino[pick_letter(rng)];
  }
  target_count = std::min(target_count, db.size());
  std::vector<std::string> sample(db.begin(), db.begin() + static_cast<long>(target_count));
  std::stable_sort(sample.begin(), sample.end(), [](const auto& a, const auto& b) { return a.size() < b.size(); });

  const ScoreMatrix matrix = ScoreMatrix::builtin("BLOSUM62");
  const SwScoring scoring{&matrix, 11, 1};
  std::size_t query_residues = 0, sample_residues = 0;
  for (const auto& q : queries) query_residues += q.size();
  for (const auto& s : sample) sample_residues += s.size();
  fmt::print("hyalign_bench_sw: {} queries ({} residues) x {} database sequences ({} residues; database of {}),\n"
             "BLOSUM62 11/1, 1 thread\n\n",
             queries.size(), query_residues, sample.size(), sample_residues, db.size());

  // Encoded copies for hyalign.
  std::vector<std::vector<std::uint8_t>> enc_queries;
  for (const auto& q : queries) {
    enc_queries.emplace_back();
    for (char c : q) enc_queries.back().push_back(matrix.encode(c));
  }
  std::vector<std::uint8_t> residues;
  std::vector<std::size_t> offsets{0};
  for (const auto& s : sample) {
    for (char c : s) residues.push_back(matrix.encode(c));
    offsets.push_back(residues.size());
  }

  std::vector<Result> results;
  auto run_ours = [&](KernelChoice choice, std::size_t count) {
    Result r;
    r.name = fmt::format("hyalign {}", kernel_name(choice));
    if (!cpu_supports(choice)) {
      fmt::print("{:<40} skipped (CPU lacks the instruction set)\n", r.name);
      return;
    }
    auto kernel = make_sw_cpu_kernel(choice, scoring);
    auto scorer = kernel->make_scorer();
    SwSequences targets{residues.data(), offsets.data(), count};
    std::vector<int> scores(count);
    const double t0 = now();
    for (const auto& q : enc_queries) {
      scorer->score(q, targets, 0, count, scores.data());
      for (int s : scores) r.checksum += s;
    }
    const double seconds = now() - t0;
    r.gcups = static_cast<double>(query_residues) * static_cast<double>(offsets[count]) / seconds * 1e-9;
    if (count != sample.size()) r.name += fmt::format(" ({} targets)", count);
    fmt::print("{:<40} {:8.2f} GCUPS  ({:.2f} s)\n", r.name, r.gcups, seconds);
    results.push_back(r);
  };

  using ProfileFn = parasail_result_t* (*)(const parasail_profile_t*, const char*, int, int, int);
  using ProfileMake = parasail_profile_t* (*)(const char*, int, const parasail_matrix_t*);
  using PlainFn = parasail_result_t* (*)(const char*, int, const char*, int, int, int, const parasail_matrix_t*);
  auto run_parasail = [&](const std::string& name, bool exact, const std::function<int(std::size_t q, std::size_t t, bool&)>& one,
                          const std::function<void(std::size_t)>& prepare, const std::function<void()>& release) {
    Result r;
    r.name = "parasail " + name;
    r.exact = exact;
    const double t0 = now();
    for (std::size_t q = 0; q < queries.size(); ++q) {
      prepare(q);
      for (std::size_t t = 0; t < sample.size(); ++t) {
        bool saturated = false;
        r.checksum += one(q, t, saturated);
        r.saturated += saturated;
      }
      release();
    }
    const double seconds = now() - t0;
    r.gcups = static_cast<double>(query_residues) * static_cast<double>(sample_residues) / seconds * 1e-9;
    fmt::print("{:<40} {:8.2f} GCUPS  ({:.2f} s){}\n", r.name, r.gcups, seconds,
               r.saturated ? fmt::format("  {} saturated results (not exact)", r.saturated) : "");
    results.push_back(r);
  };
  parasail_profile_t* profile = nullptr;
  auto with_profile = [&](const std::string& name, bool exact, ProfileMake make, ProfileFn fn) {
    run_parasail(
        name, exact,
        [&](std::size_t, std::size_t t, bool& saturated) {
          parasail_result_t* res = fn(profile, sample[t].data(), static_cast<int>(sample[t].size()), 12, 1);
          const int s = parasail_result_get_score(res);
          saturated = parasail_result_is_saturated(res);
          parasail_result_free(res);
          return s;
        },
        [&](std::size_t q) { profile = make(queries[q].data(), static_cast<int>(queries[q].size()), &parasail_blosum62); },
        [&] { parasail_profile_free(profile), profile = nullptr; });
  };
  auto plain = [&](const std::string& name, bool exact, PlainFn fn) {
    run_parasail(
        name, exact,
        [&](std::size_t q, std::size_t t, bool& saturated) {
          parasail_result_t* res = fn(queries[q].data(), static_cast<int>(queries[q].size()), sample[t].data(),
                                      static_cast<int>(sample[t].size()), 12, 1, &parasail_blosum62);
          const int s = parasail_result_get_score(res);
          saturated = parasail_result_is_saturated(res);
          parasail_result_free(res);
          return s;
        },
        [](std::size_t) {}, [] {});
  };

  run_ours(KernelChoice::scalar, std::max<std::size_t>(1, sample.size() / 10));
  run_ours(KernelChoice::avx2, sample.size());
  run_ours(KernelChoice::avx512, sample.size());
  const std::size_t ours_end = results.size();
  const bool avx2 = __builtin_cpu_supports("avx2") && !ours_only;
  if (avx2) {
    with_profile("sw_striped_profile_avx2_256_sat", true, parasail_profile_create_avx_256_sat,
                 parasail_sw_striped_profile_avx2_256_sat);
    with_profile("sw_striped_profile_avx2_256_16", true, parasail_profile_create_avx_256_16,
                 parasail_sw_striped_profile_avx2_256_16);
    with_profile("sw_striped_profile_avx2_256_8", false, parasail_profile_create_avx_256_8,
                 parasail_sw_striped_profile_avx2_256_8);
  }
  if (avx2 && all_variants) {
    with_profile("sw_scan_profile_avx2_256_sat", true, parasail_profile_create_avx_256_sat,
                 parasail_sw_scan_profile_avx2_256_sat);
    with_profile("sw_scan_profile_avx2_256_16", true, parasail_profile_create_avx_256_16,
                 parasail_sw_scan_profile_avx2_256_16);
    plain("sw_diag_avx2_256_sat", true, parasail_sw_diag_avx2_256_sat);
  }
  if (!ours_only && all_variants)
    with_profile("sw_striped_profile_sse41_128_sat", true, parasail_profile_create_sse_128_sat,
                 parasail_sw_striped_profile_sse41_128_sat);

  // Cross-check: every exact variant over the full sample has the same score sum.
  long long reference = 0;
  bool have_reference = false;
  for (std::size_t i = ours_end; i < results.size(); ++i)
    if (results[i].exact) reference = results[i].checksum, have_reference = true;
  bool consistent = true;
  for (std::size_t i = 0; i < results.size() && have_reference; ++i)
    if (results[i].exact && results[i].name.find("targets)") == std::string::npos && results[i].checksum != reference)
      consistent = false, fmt::print("SCORE MISMATCH: {} checksum {} vs {}\n", results[i].name, results[i].checksum, reference);

  double best_exact = 0, best_any = 0;
  std::string best_exact_name, best_any_name;
  for (std::size_t i = ours_end; i < results.size(); ++i) {
    if (results[i].exact && results[i].gcups > best_exact) best_exact = results[i].gcups, best_exact_name = results[i].name;
    if (results[i].gcups > best_any) best_any = results[i].gcups, best_any_name = results[i].name;
  }
  if (best_any == 0) return consistent ? 0 : 1;
  fmt::print("\nfastest parasail (exact scores): {} {:.2f} GCUPS; fastest parasail (any): {} {:.2f} GCUPS\n",
             best_exact_name, best_exact, best_any_name, best_any);
  for (std::size_t i = 0; i < ours_end; ++i)
    fmt::print("{:<40} {:6.2f}x fastest exact parasail, {:6.2f}x fastest parasail\n", results[i].name,
               results[i].gcups / best_exact, results[i].gcups / best_any);
  fmt::print("scores: {}\n", consistent ? "all exact variants agree" : "MISMATCH");
  return consistent ? 0 : 1;
}
