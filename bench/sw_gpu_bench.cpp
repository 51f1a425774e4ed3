// Smith–Waterman search on the GPU, scores only, on the work CUDASW++4.0 is measured with
// (../shared/data/sw/README.md): the 20 benchmark queries (tests/data/sw/queries20.fasta) against
// a pseudo-database of N copies of one random protein of length L (letters ARNDCQEGHILKMFPSTWYV
// uniform, Mersenne Twister seed 42; default 1,000,000 × 256), BLOSUM62, gap open 11, extend 1.
// With --mixed, the database is random proteins whose lengths are drawn from the query lengths
// (the same total residues, sorted longest first as `hyalign search` hands them out); with
// --db FILE, the proteins of a FASTA file (e.g. from hyalign_make_proteins), sorted the same way.
//
// Reports kernel GCUPS (time inside the kernel, from CUDA events) and wall GCUPS of the whole call
// (query upload, kernel, score download and unpacking). GCUPS = query residues × database residues
// / seconds. Every score of the pseudo-database is checked against the scalar reference (all copies
// are equal); with --mixed, every --check-every'th target is.
// --write-fasta FILE writes the database as FASTA for end-to-end runs of `hyalign search`.
//
// usage: hyalign_bench_sw_gpu [DATA_DIR] [--copies N] [--length L] [--mixed] [--check-every K]
//                             [--db FASTA] [--queries N (the first N)] [--write-fasta FILE]
#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "bench_support.hpp"
#include "core/parallel.hpp"
#include "core/score_matrix.hpp"
#include "engine/devices.hpp"
#include "kernels/cuda/sw_cuda.hpp"
#include "kernels/sw_kernel.hpp"

using namespace hyalign;
using namespace hyalign::engine;
using namespace hyalign::kernels;
using hyalign::bench::now;
using hyalign::bench::read_fasta;

namespace {

struct Encoded {
  std::vector<std::uint8_t> residues;
  std::vector<std::size_t> offsets{0};
  SwSequences view() const { return {residues.data(), offsets.data(), offsets.size() - 1}; }
  void add(const std::string& s, const ScoreMatrix& m) {
    for (char c : s) residues.push_back(m.encode(c));
    offsets.push_back(residues.size());
  }
};

}  // namespace

int main(int argc, char** argv) {
  std::string data_dir = HYALIGN_DATA_DIR, fasta_out, db_in;
  std::size_t copies = 1000000, length = 256, check_every = 1000, query_count = 0;
  bool mixed = false;
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    if (arg == "--copies" && a + 1 < argc) copies = std::strtoul(argv[++a], nullptr, 10);
    else if (arg == "--length" && a + 1 < argc) length = std::strtoul(argv[++a], nullptr, 10);
    else if (arg == "--check-every" && a + 1 < argc) check_every = std::max(1ul, std::strtoul(argv[++a], nullptr, 10));
    else if (arg == "--write-fasta" && a + 1 < argc) fasta_out = argv[++a];
    else if (arg == "--db" && a + 1 < argc) db_in = argv[++a];
    else if (arg == "--queries" && a + 1 < argc) query_count = std::strtoul(argv[++a], nullptr, 10);
    else if (arg == "--mixed") mixed = true;
    else data_dir = arg;
  }
  const auto gpus = engine::usable_gpus();
  if (gpus.empty()) {
    fmt::print("hyalign_bench_sw_gpu: SKIPPED: no usable GPU: {}\n", engine::gpu_unavailable_reason());
    return 0;
  }
  std::vector<std::string> queries = read_fasta(data_dir + "/sw/queries20.fasta");
  if (query_count > 0 && query_count < queries.size()) queries.resize(query_count);
  if (queries.empty()) return 1;
  const ScoreMatrix matrix = ScoreMatrix::builtin("BLOSUM62");
  const SwScoring scoring{&matrix, 11, 1};

  std::mt19937 rng(42);
  const std::string amino = "ARNDCQEGHILKMFPSTWYV";
  std::uniform_int_distribution<std::size_t> pick_letter(0, amino.size() - 1), pick_query(0, queries.size() - 1);
  auto random_protein = [&](std::size_t n) {
    std::string s(n, 'A');
    for (char& c : s) c = amino[pick_letter(rng)];
    return s;
  };
  std::vector<std::string> db;
  if (!db_in.empty()) {
    db = read_fasta(db_in);
    mixed = true;  // checked and described as mixed lengths
  } else if (mixed) {
    for (std::size_t total = 0; total < copies * length;) {
      db.push_back(random_protein(queries[pick_query(rng)].size()));
      total += db.back().size();
    }
  } else {
    db.assign(copies, random_protein(length));
  }
  if (mixed) std::stable_sort(db.begin(), db.end(), [](const auto& a, const auto& b) { return a.size() > b.size(); });
  Encoded enc_queries, enc_db;
  for (const auto& q : queries) enc_queries.add(q, matrix);
  for (const auto& s : db) enc_db.add(s, matrix);
  if (!fasta_out.empty()) {
    std::ofstream out(fasta_out);
    for (std::size_t i = 0; i < db.size(); ++i) out << ">db" << i << '\n' << db[i] << '\n';
    fmt::print("wrote {}\n", fasta_out);
  }
  const double query_residues = static_cast<double>(enc_queries.residues.size());
  const double db_residues = static_cast<double>(enc_db.residues.size());
  db.clear();
  db.shrink_to_fit();

  auto kernel = cuda::make_sw_gpu_kernel(gpus.front().index, scoring);
  kernel->set_targets(enc_db.view());
  auto scorer = kernel->make_scorer();
  fmt::print("hyalign_bench_sw_gpu: {} queries ({} residues) x {} {} ({} residues), BLOSUM62 11/1, {}\n",
             queries.size(), query_residues, enc_db.view().count,
             !db_in.empty() ? db_in
             : mixed        ? "random proteins with the query length distribution"
                            : fmt::format("copies of one length-{} protein", length),
             db_residues, kernel->name());

  // Warm-up on a slice, then every query against the whole database in one tile.
  std::vector<int> scores(queries.size() * enc_db.view().count);
  scorer->score_tile(enc_queries.view(), enc_db.view(),
                     {0, std::min<std::size_t>(4096, enc_db.view().count), 0, std::min<std::size_t>(2, queries.size())},
                     scores.data());
  const double kernel_before = kernel->device_seconds();
  const double start = now();
  scorer->score_tile(enc_queries.view(), enc_db.view(), {0, enc_db.view().count, 0, queries.size()}, scores.data());
  const double wall = now() - start;
  const double kernel_seconds = kernel->device_seconds() - kernel_before;
  const double cells = query_residues * db_residues;
  fmt::print("  kernel: {:.3f} s, {:.0f} GCUPS\n", kernel_seconds, cells / kernel_seconds / 1e9);
  fmt::print("  wall (upload, kernel, download, unpack): {:.3f} s, {:.0f} GCUPS\n", wall, cells / wall / 1e9);

  // Exactness.
  const std::size_t n = enc_db.view().count;
  std::vector<std::size_t> wrong_per_query(queries.size(), 0), checked_per_query(queries.size(), 0);
  parallel_for(queries.size(), 16, [&](std::size_t q, unsigned) {
    const auto query = enc_queries.view().sequence(q);
    const int* row = scores.data() + q * n;
    if (!mixed) {
      const int expected = sw_score_scalar(query, enc_db.view().sequence(0), scoring);
      for (std::size_t t = 0; t < n; ++t) wrong_per_query[q] += row[t] != expected;
      checked_per_query[q] = n;
    } else {
      for (std::size_t t = q % check_every; t < n; t += check_every, ++checked_per_query[q])
        wrong_per_query[q] += row[t] != sw_score_scalar(query, enc_db.view().sequence(t), scoring);
    }
  });
  const std::size_t checked = std::accumulate(checked_per_query.begin(), checked_per_query.end(), std::size_t{0});
  const std::size_t wrong = std::accumulate(wrong_per_query.begin(), wrong_per_query.end(), std::size_t{0});
  fmt::print("  scores checked against the scalar reference: {}, different: {}\n", checked, wrong);
  return wrong == 0 ? 0 : 2;
}
