// The suffix index, its file, and the maximal-match finder against the plain definition.
#include <filesystem>
#include <functional>
#include <fstream>
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "engine/devices.hpp"
#include "kernels/cuda/mem_cuda.hpp"
#include "index/index_file.hpp"
#include "index/sa_pieces.hpp"
#include "index/suffix_index.hpp"
#include "kernels/mem_kernel.hpp"
#include "test_support.hpp"

namespace hyalign {
namespace {

using kernels::MemKind;
using kernels::MemMatch;
using kernels::MemParams;

using test::reference_of;

std::string random_letters(std::mt19937& rng, std::size_t n, std::string_view alphabet = "acgt") {
  std::string s(n, 'a');
  for (char& c : s) c = alphabet[rng() % alphabet.size()];
  return s;
}

// Reference shapes that stress different paths: random, repeat-rich (copies with a few changes),
// tandem repeats, a homopolymer, N runs and other letters.
std::vector<std::string> reference_shape(std::mt19937& rng, int shape) {
  switch (shape) {
    case 0: return {random_letters(rng, 1500)};
    case 1: {
      const std::string unit = random_letters(rng, 120);
      std::string s;
      for (int copy = 0; copy < 10; ++copy) {
        std::string c = unit;
        c[rng() % c.size()] = "acgt"[rng() % 4];
        s += c + random_letters(rng, rng() % 20);
      }
      return {s, unit, random_letters(rng, 200)};
    }
    case 2: {
      std::string s;
      for (int i = 0; i < 200; ++i) s += "acgtt";
      return {s + random_letters(rng, 100), std::string(300, 'a')};
    }
    default: return {random_letters(rng, 300) + std::string(100, 'n') + random_letters(rng, 300, "acgtnrykm"),
                     random_letters(rng, 40), "acgt"};
  }
}

std::string query_from(std::mt19937& rng, const std::vector<std::string>& sequences) {
  switch (rng() % 7) {
    case 0: return random_letters(rng, rng() % 200);
    case 1: return std::string(rng() % 60, "an"[rng() % 2]);
    case 2: {  // long runs, and an unchanged piece of a reference (they share long periodic stretches)
      const std::string& s = sequences[rng() % sequences.size()];
      const std::size_t start = rng() % (s.size() + 1);
      return std::string(rng() % 160, "ant"[rng() % 3]) + s.substr(start, rng() % 300) +
             std::string(rng() % 120, "an"[rng() % 2]);
    }
    default: {  // a mutated piece of a reference sequence, maybe running over its ends
      const std::string& s = sequences[rng() % sequences.size()];
      const std::size_t start = rng() % (s.size() + 1);
      std::string q = s.substr(start, rng() % 250);
      for (char& c : q)
        if (rng() % 25 == 0) c = "acgtn"[rng() % 5];
      if (rng() % 3 == 0) q = random_letters(rng, rng() % 10) + q;
      return q;
    }
  }
}

TEST(MemFinder, EqualsTheDefinitionOnEveryShapeKindAndOption) {
  std::mt19937 rng(20261123);
  for (int shape = 0; shape < 4; ++shape) {
    const auto sequences = reference_shape(rng, shape);
    const index::SuffixIndex idx = index::SuffixIndex::build(reference_of(sequences), 2);
    for (MemKind kind : {MemKind::maxmatch, MemKind::mumreference, MemKind::mum})
      for (std::uint32_t min_length : {1u, 3u, 8u, 12u, 20u, 33u})
        for (bool bases_only : {false, true}) {
          const MemParams params{kind, min_length, bases_only};
          const kernels::MemFinder finder(idx, params);
          for (int q = 0; q < 12; ++q) {
            const std::string query = query_from(rng, sequences);
            std::vector<MemMatch> found;
            finder.find(query, found);
            if (kind == MemKind::mum) kernels::keep_mums(found);
            const auto expected = kernels::find_mems_scalar(idx.text(), query, params);
            ASSERT_EQ(found, expected) << "shape " << shape << " kind " << static_cast<int>(kind) << " -l "
                                       << min_length << (bases_only ? " -n" : "") << " query " << query;
          }
        }
  }
}

// Strands for a kernel: queries of every shape, plus ones that stress a device's limits: long
// strands (many seeds, several GPU work items), and homopolymers against homopolymer references
// (more matches than a GPU item holds).
std::vector<std::string> kernel_strands(std::mt19937& rng, const std::vector<std::string>& sequences) {
  std::vector<std::string> strands;
  for (int q = 0; q < 40; ++q) strands.push_back(query_from(rng, sequences));
  const std::string& s = sequences[rng() % sequences.size()];
  strands.push_back(s.substr(0, 700) + random_letters(rng, 300) + s.substr(s.size() / 2, 500));
  strands.push_back(std::string(300, 'a'));
  strands.push_back("");
  return strands;
}

// Strands joined as a kernel takes them, with each strand's matches by the definition (with -mum's
// rule): computed once per case, as the definition's quadratic scan is most of a test's time.
struct DefinitionCase {
  std::vector<std::string> strands;
  std::string letters;
  std::vector<std::uint64_t> starts{0};
  std::vector<std::vector<MemMatch>> expected;
  DefinitionCase(const index::SuffixIndex& idx, const MemParams& params, std::vector<std::string> all)
      : strands(std::move(all)) {
    for (const std::string& s : strands) {
      letters += s;
      starts.push_back(letters.size());
      expected.push_back(kernels::find_mems_scalar(idx.text(), s, params));
      if (params.kind == MemKind::mum) kernels::keep_mums(expected.back());
    }
  }
};

// Runs `kernel` over the case's strands in ranges of several sizes and checks every strand.
void expect_kernel_equals_definition(kernels::MemKernel& kernel, const MemParams& params, const DefinitionCase& c,
                                     const std::string& context) {
  const kernels::StrandSet set{c.letters, c.starts};
  const std::size_t n = c.strands.size();
  for (std::size_t range : {std::size_t{1}, std::size_t{7}, n}) {
    for (std::size_t first = 0; first < n; first += range) {
      kernels::StrandMatches out;
      out.first = first;
      const std::size_t count = std::min(range, n - first);
      kernel.find(set, first, count, out);
      ASSERT_EQ(out.count(), count) << context;
      for (std::size_t i = first; i < first + count; ++i) {
        const std::vector<MemMatch> found(out.of(i).begin(), out.of(i).end());
        ASSERT_EQ(found, c.expected[i]) << context << " kind " << static_cast<int>(params.kind) << " -l "
                                        << params.min_length << (params.bases_only ? " -n" : "") << " strand " << i
                                        << " of " << n << " (range " << range << "): " << c.strands[i];
      }
    }
  }
}

using MakeKernel = std::function<std::unique_ptr<kernels::MemKernel>(const index::SuffixIndex&, const MemParams&)>;

// Every kernel `make_kernels` make, on every reference shape, kind and option, against the definition.
void expect_kernels_equal_definition(const std::vector<MakeKernel>& make_kernels) {
  std::mt19937 rng(977);
  for (int shape = 0; shape < 4; ++shape) {
    const auto sequences = reference_shape(rng, shape);
    const index::SuffixIndex idx = index::SuffixIndex::build(reference_of(sequences), 2);
    for (MemKind kind : {MemKind::maxmatch, MemKind::mumreference, MemKind::mum})
      for (std::uint32_t min_length : {2u, 5u, 12u, 20u, 40u})
        for (bool bases_only : {false, true}) {
          const MemParams params{kind, min_length, bases_only};
          const DefinitionCase c(idx, params, kernel_strands(rng, sequences));
          for (const MakeKernel& make_kernel : make_kernels) {
            const auto kernel = make_kernel(idx, params);
            expect_kernel_equals_definition(*kernel, params, c,
                                            "shape " + std::to_string(shape) + ", " + std::string(kernel->name()));
            if (::testing::Test::HasFatalFailure()) return;
          }
        }
  }
}

// The CPU finder over a suffix array split into about `pieces` pieces, each piece's matches found
// on their own (without -mum's rule) and merged, as a GPU that cannot hold the whole array does.
class PiecedCpuKernel final : public kernels::MemKernel {
 public:
  PiecedCpuKernel(const index::SuffixIndex& idx, MemParams params, std::size_t pieces)
      : kind_(params.kind), name_("cpu in about " + std::to_string(pieces) + " pieces") {
    const unsigned seed_length = kernels::MemFinder(idx, params).seed_length();
    MemParams per_piece = params;
    if (per_piece.kind == MemKind::mum) per_piece.kind = MemKind::mumreference;
    for (const auto rows : index::split_suffix_array(idx, idx.suffix_array().size() / pieces + 1, seed_length))
      finders_.emplace_back(idx, per_piece, rows);
  }
  std::string_view name() const override { return name_; }
  std::size_t pieces() const { return finders_.size(); }
  // Each piece's matches of every strand (the seeds' marks from all pieces first), then merged.
  void find(const kernels::StrandSet& strands, std::size_t first, std::size_t count,
            kernels::StrandMatches& out) override {
    std::vector<kernels::StrandMatches> found(finders_.size());
    for (auto& piece : found) piece.first = first;
    kernels::MemFinder::Scratch scratch;
    std::vector<MemMatch> matches;
    for (std::size_t i = first; i < first + count; ++i) {
      kernels::MemFinder::SeedMarks repeated;
      for (const auto& finder : finders_) finder.mark_repeated_seeds(strands.strand(i), repeated, scratch);
      for (std::size_t p = 0; p < finders_.size(); ++p) {
        finders_[p].find(strands.strand(i), matches, scratch, &repeated);
        kernels::append_strand(matches, MemKind::maxmatch, found[p]);
      }
    }
    kernels::merge_piece_matches(found, kind_, out);
  }

 private:
  MemKind kind_;
  std::string name_;
  std::vector<kernels::MemFinder> finders_;
};

// The CPU kernel, and the finder over suffix arrays split into 3 and 16 pieces, on the same cases.
TEST(MemKernel, CpuKernelWholeAndOverSuffixArrayPiecesEqualsTheDefinition) {
  std::vector<MakeKernel> make_kernels{
      [](const index::SuffixIndex& idx, const MemParams& params) { return kernels::make_mem_cpu_kernel(idx, params); }};
  const std::vector<std::size_t> pieces_asked{3, 16};
  std::vector<std::size_t> most_pieces(pieces_asked.size(), 0);
  for (std::size_t p = 0; p < pieces_asked.size(); ++p)
    make_kernels.push_back([&, p](const index::SuffixIndex& idx, const MemParams& params) {
      auto kernel = std::make_unique<PiecedCpuKernel>(idx, params, pieces_asked[p]);
      most_pieces[p] = std::max(most_pieces[p], kernel->pieces());
      return kernel;
    });
  expect_kernels_equal_definition(make_kernels);
  for (std::size_t p = 0; p < pieces_asked.size(); ++p)
    EXPECT_GE(most_pieces[p], pieces_asked[p]) << "the references were not split as asked";
}

// Every cut of a split suffix array lies between the rows of two different prefixes, so the rows
// of every pattern at least that long are in one piece.
TEST(SuffixArrayPieces, CoverTheArrayAndNeverSplitAPatternsRows) {
  std::mt19937 rng(5);
  for (int shape = 0; shape < 4; ++shape) {
    const auto sequences = reference_shape(rng, shape);
    const index::SuffixIndex idx = index::SuffixIndex::build(reference_of(sequences), 2);
    const auto rows = static_cast<std::uint32_t>(idx.suffix_array().size());
    for (unsigned prefix_length : {1u, 3u, 8u})
      for (std::size_t most_rows : {std::size_t{1}, std::size_t{17}, std::size_t{rows / 3}}) {
        const auto pieces = index::split_suffix_array(idx, most_rows, prefix_length);
        ASSERT_FALSE(pieces.empty());
        ASSERT_EQ(pieces.front().lo, 0u);
        ASSERT_EQ(pieces.back().hi, rows);
        for (std::size_t p = 0; p + 1 < pieces.size(); ++p) ASSERT_EQ(pieces[p].hi, pieces[p + 1].lo);
        for (const auto& piece : pieces) ASSERT_LT(piece.lo, piece.hi);
        for (int q = 0; q < 200; ++q) {
          const std::string query = query_from(rng, sequences);
          if (query.size() < prefix_length) continue;
          const auto found = idx.find(query.substr(0, prefix_length + rng() % (query.size() - prefix_length + 1)));
          if (found.empty()) continue;
          const bool in_one = std::any_of(pieces.begin(), pieces.end(),
                                          [&](const auto& p) { return p.lo <= found.lo && found.hi <= p.hi; });
          ASSERT_TRUE(in_one) << "shape " << shape << " prefix " << prefix_length << " most rows " << most_rows;
        }
        if (prefix_length == 8 && most_rows == 17) {
          EXPECT_GT(pieces.size(), 2u) << "shape " << shape;
        }
      }
  }
}

class MemGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    if (engine::usable_gpus().empty()) GTEST_SKIP() << "SKIPPED: no usable GPU: " << engine::gpu_unavailable_reason();
  }
};

TEST_F(MemGpu, GpuKernelEqualsTheDefinition) {
  expect_kernels_equal_definition({[](const index::SuffixIndex& idx, const MemParams& params) {
    return kernels::cuda::make_mem_gpu_kernel(engine::usable_gpus().front().index, idx, params);
  }});
}

// Memory for a GPU kernel that holds about 1/`pieces` of the suffix array at a time.
std::size_t gpu_memory_for_pieces(const index::SuffixIndex& idx, std::size_t pieces) {
  return kernels::cuda::mem_gpu_bytes_beside_suffix_array(idx) + idx.suffix_array().size_bytes() / pieces;
}

// Seeds of a few letters cut the array only where its first letters change (a quarter of it per
// letter), and the homopolymer reference's poly-a rows are a fifth of it: pieces of a third are
// asked for from -l 5 on.
TEST_F(MemGpu, GpuKernelOverSuffixArrayPiecesEqualsTheDefinition) {
  bool split = false;
  expect_kernels_equal_definition({[&](const index::SuffixIndex& idx, const MemParams& params) {
    const std::size_t memory = params.min_length >= 5 ? gpu_memory_for_pieces(idx, 3) : 0;
    auto kernel = kernels::cuda::make_mem_gpu_kernel(engine::usable_gpus().front().index, idx, params, memory);
    split = split || kernel->name().find("pieces") != std::string_view::npos;
    return kernel;
  }});
  EXPECT_TRUE(split) << "no suffix array was split";
}

// A larger repeat-rich reference (prefix table and seeds of genome depth) and thousands of reads:
// the GPU equals the CPU finder, which the tests above hold to the definition.
TEST_F(MemGpu, GpuKernelEqualsTheCpuKernelOnManyReads) {
  std::mt19937 rng(31);
  std::string genome = random_letters(rng, 400000);
  for (int copy = 0; copy < 300; ++copy) {  // interspersed copies of a few units, lightly mutated
    const std::size_t from = rng() % 1000, to = rng() % (genome.size() - 2000);
    for (std::size_t i = 0; i < 300; ++i) genome[to + i] = rng() % 50 ? genome[from + i] : "acgt"[rng() % 4];
  }
  const index::SuffixIndex idx = index::SuffixIndex::build(reference_of({genome, genome.substr(1000, 5000)}), 2);
  std::string letters;
  std::vector<std::uint64_t> starts{0};
  for (int r = 0; r < 20000; ++r) {
    std::string read = genome.substr(rng() % (genome.size() - 150), 150);
    for (char& c : read)
      if (rng() % 60 == 0) c = "acgtn"[rng() % 5];
    letters += read;
    starts.push_back(letters.size());
  }
  const kernels::StrandSet set{letters, starts};
  for (MemKind kind : {MemKind::maxmatch, MemKind::mumreference, MemKind::mum}) {
    const MemParams params{kind, 20, false};
    const auto cpu = kernels::make_mem_cpu_kernel(idx, params);
    kernels::StrandMatches expected;
    cpu->find(set, 0, set.size(), expected);
    for (std::size_t memory : {std::size_t{0}, gpu_memory_for_pieces(idx, 4)}) {  // whole, and in pieces
      const auto gpu = kernels::cuda::make_mem_gpu_kernel(engine::usable_gpus().front().index, idx, params, memory);
      kernels::StrandMatches found;
      gpu->find(set, 0, set.size(), found);
      ASSERT_EQ(found.offsets, expected.offsets) << "kind " << static_cast<int>(kind) << " on " << gpu->name();
      ASSERT_EQ(found.matches, expected.matches) << "kind " << static_cast<int>(kind) << " on " << gpu->name();
    }
  }
}

TEST(SuffixIndex, FindsEveryOccurrenceOfAPattern) {
  std::mt19937 rng(7);
  const auto sequences = reference_shape(rng, 1);
  const index::SuffixIndex idx = index::SuffixIndex::build(reference_of(sequences), 1);
  for (int trial = 0; trial < 200; ++trial) {
    const std::string& s = sequences[rng() % sequences.size()];
    const std::string pattern = s.substr(rng() % s.size(), 1 + rng() % 16);
    std::size_t expected = 0;
    for (std::size_t p = idx.text().find(pattern); p != std::string_view::npos; p = idx.text().find(pattern, p + 1))
      ++expected;
    EXPECT_EQ(idx.find(pattern).size(), expected) << pattern;
  }
  EXPECT_TRUE(idx.find("acgtacgtacgtacgtacgtacgtacgtacgtacgtacgtx").empty());
}

class IndexFileTest : public ::testing::Test {
 protected:
  std::filesystem::path dir_ = std::filesystem::temp_directory_path() / ("hyalign_index_test_" + std::to_string(getpid()));
  void SetUp() override { std::filesystem::create_directories(dir_); }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path(const char* name) const { return (dir_ / name).string(); }
  // A copy of `from` with the byte at `offset` changed.
  std::string damaged_copy(const char* from, const char* name, std::uint64_t offset) const {
    std::filesystem::copy_file(path(from), path(name), std::filesystem::copy_options::overwrite_existing);
    std::fstream f(path(name), std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(static_cast<std::streamoff>(offset));
    const char was = static_cast<char>(f.get());
    f.seekp(static_cast<std::streamoff>(offset));
    f.put(static_cast<char>(~was));
    return path(name);
  }
  std::string read_error(const std::string& file) const {
    try {
      index::read_index(file, 3);
    } catch (const InputError& e) {
      return e.what();
    }
    return "no error";
  }
};

TEST_F(IndexFileTest, RoundTripsAndRefusesTruncatedDamagedAndForeignFiles) {
  std::mt19937 rng(3);
  const index::SuffixIndex built = index::SuffixIndex::build(reference_of(reference_shape(rng, 3)), 2);
  index::write_index(built, path("ref.hymi"));
  ASSERT_TRUE(index::is_index_file(path("ref.hymi")));
  const index::SuffixIndex read = index::read_index(path("ref.hymi"), 2);
  EXPECT_EQ(read.text(), built.text());
  EXPECT_EQ(read.reference().names, built.reference().names);
  EXPECT_TRUE(std::equal(read.suffix_array().begin(), read.suffix_array().end(), built.suffix_array().begin(),
                         built.suffix_array().end()));

  const auto size = std::filesystem::file_size(path("ref.hymi"));
  std::filesystem::copy_file(path("ref.hymi"), path("short.hymi"));
  std::filesystem::resize_file(path("short.hymi"), size - 100);
  try {
    index::read_index(path("short.hymi"), 2);
    FAIL() << "a truncated index was read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("truncated"), std::string::npos) << e.what();
  }
  std::filesystem::copy_file(path("ref.hymi"), path("damaged.hymi"));
  {
    std::fstream f(path("damaged.hymi"), std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(size / 2));
    f.put('\x7f');
  }
  EXPECT_THROW(index::read_index(path("damaged.hymi"), 2), InputError);
  std::ofstream(path("foreign.hymi")) << ">not an index\nACGT\n";
  EXPECT_FALSE(index::is_index_file(path("foreign.hymi")));
}

// An index of several checksum blocks (8 MiB each) is read on several threads, and a changed byte
// in any block is caught by that block's checksum.
TEST_F(IndexFileTest, ChecksEveryBlockOfALargeIndex) {
  std::mt19937 rng(4);
  const index::SuffixIndex built =
      index::SuffixIndex::build(reference_of({random_letters(rng, 900000), random_letters(rng, 1100000)}), 2);
  index::write_index(built, path("large.hymi"));
  const auto size = std::filesystem::file_size(path("large.hymi"));
  ASSERT_GT(size, std::uint64_t{16} << 20) << "fewer than three blocks";
  const index::SuffixIndex read = index::read_index(path("large.hymi"), 3);
  EXPECT_EQ(read.text(), built.text());
  EXPECT_EQ(read.reference().starts, built.reference().starts);
  EXPECT_TRUE(std::ranges::equal(read.suffix_array(), built.suffix_array()));
  EXPECT_TRUE(std::ranges::equal(read.buckets(), built.buckets(),
                                 [](auto a, auto b) { return a.lo == b.lo && a.hi == b.hi; }));
  for (std::uint64_t offset : {std::uint64_t{1000}, std::uint64_t{9} << 20, size - 1}) {
    const std::string error = read_error(damaged_copy("large.hymi", "damaged.hymi", offset));
    EXPECT_NE(error.find("damaged (checksum mismatch)"), std::string::npos) << "byte " << offset << ": " << error;
  }
}

TEST_F(IndexFileTest, RefusesAnIndexOfTheFirstFormatVersion) {
  std::mt19937 rng(6);
  index::write_index(index::SuffixIndex::build(reference_of(reference_shape(rng, 0)), 1), path("ref.hymi"));
  const std::string old_version = path("old.hymi");
  std::filesystem::copy_file(path("ref.hymi"), old_version);
  std::fstream(old_version, std::ios::in | std::ios::out | std::ios::binary).seekp(7).put('1');
  ASSERT_TRUE(index::is_index_file(old_version));
  EXPECT_NE(read_error(old_version).find("index format version 01 is not the one this hyalign reads (02)"),
            std::string::npos)
      << read_error(old_version);
}

}  // namespace
}  // namespace hyalign
