// Sequence sources passing over chunks (skip_chunk, for ranks that split a database): the chunks
// kept are those a source reading every chunk gives, ids and all, for FASTA and makedb databases.
#include "io/coded_sequences.hpp"

#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "io/database.hpp"
#include "test_support.hpp"

using namespace hyalign;

namespace {

// 60 proteins of 1-80 letters, with alignment gaps (not residues: they must not move chunk ends)
// and a letter outside BLOSUM62's alphabet in every tenth.
std::string write_proteins(const test::TempDir& dir) {
  std::mt19937 rng(3);
  const std::string path = dir.file("db.fa");
  std::ofstream out(path);
  for (int i = 0; i < 60; ++i) {
    std::string s = test::random_sequence(rng, test::kAmino, 1 + rng() % 80);
    s.insert(rng() % s.size(), "--.");
    if (i % 10 == 0) s += 'J';
    out << ">s" << i << " text\n" << s << "\n";
  }
  return path;
}

struct Chunk {
  std::vector<std::size_t> ids;
  std::string names, residues;
  bool operator==(const Chunk&) const = default;
};

Chunk copy_of(const CodedSequences& batch) {
  return {{batch.ids.begin(), batch.ids.end()},
          {batch.names.begin(), batch.names.end()},
          {batch.residues.begin(), batch.residues.end()}};
}

std::vector<Chunk> every_chunk(SequenceSource& source) {
  std::vector<Chunk> chunks;
  CodedSequences batch;
  while (source.next_chunk(batch)) chunks.push_back(copy_of(batch));
  return chunks;
}

// Chunks c with c % ranks == rank read, the others passed over.
std::vector<Chunk> chunks_of_rank(SequenceSource& source, std::size_t rank, std::size_t ranks) {
  std::vector<Chunk> chunks;
  CodedSequences batch;
  for (std::size_t c = 0;; ++c) {
    if (c % ranks != rank) {
      if (!source.skip_chunk()) break;
      chunks.emplace_back();
    } else {
      if (!source.next_chunk(batch)) break;
      chunks.push_back(copy_of(batch));
    }
  }
  return chunks;
}

void expect_skipping_keeps_chunks(const std::string& path, std::size_t max_residues, std::size_t first_cut = 0) {
  const ScoreMatrix matrix = ScoreMatrix::builtin("BLOSUM62");
  const std::vector<Chunk> all = every_chunk(*open_sequences(path, matrix, max_residues, 2, first_cut));
  ASSERT_GT(all.size(), 5u);
  for (std::size_t ranks : {2, 3})
    for (std::size_t rank = 0; rank < ranks; ++rank) {
      const auto source = open_sequences(path, matrix, max_residues, 2, first_cut);
      const std::vector<Chunk> kept = chunks_of_rank(*source, rank, ranks);
      ASSERT_EQ(kept.size(), all.size()) << rank << " of " << ranks;
      bool unknown_read = false;
      for (std::size_t c = rank; c < all.size(); c += ranks) {
        EXPECT_EQ(kept[c], all[c]) << "chunk " << c << ", rank " << rank << " of " << ranks;
        unknown_read |= all[c].residues.find(static_cast<char>(matrix.unknown_code())) != std::string::npos;
      }
      // Letters are counted where a chunk is read, so the ranks' counts add up to one reader's.
      EXPECT_EQ(source->unknown_letters().empty(), !unknown_read);
    }
}

TEST(CodedSequences, FastaChunksPassedOverEndWhereReadChunksEnd) {
  test::TempDir dir;
  expect_skipping_keeps_chunks(write_proteins(dir), 200);
}

// A first chunk cut short (held GPUs start once it is read) ends with the record that takes it to
// the cut; the chunks after it are cut as usual, and together they hold every record once, in order.
TEST(CodedSequences, AFastaFirstChunkCutEndsWithTheRecordThatReachesTheCut) {
  test::TempDir dir;
  const std::string path = write_proteins(dir);
  const ScoreMatrix matrix = ScoreMatrix::builtin("BLOSUM62");
  const std::vector<Chunk> whole = every_chunk(*open_sequences(path, matrix, 1 << 20, 2));
  ASSERT_EQ(whole.size(), 1u);
  for (const std::size_t cut : {1, 50, 120}) {
    const auto source = open_sequences(path, matrix, 200, 2, cut);
    CodedSequences batch;
    Chunk joined;
    for (std::size_t c = 0; source->next_chunk(batch); ++c) {
      if (c == 0) {
        EXPECT_GE(batch.total_residues(), cut);
        EXPECT_LT(batch.total_residues() - batch.length(batch.size() - 1), cut) << "cut " << cut;
      } else {
        EXPECT_LE(batch.total_residues(), 200u);
      }
      const Chunk chunk = copy_of(batch);
      joined.ids.insert(joined.ids.end(), chunk.ids.begin(), chunk.ids.end());
      joined.names += chunk.names;
      joined.residues += chunk.residues;
    }
    EXPECT_EQ(joined, whole.front()) << "cut " << cut;
  }
  // A cut past the chunk size leaves the chunks as they were.
  EXPECT_EQ(every_chunk(*open_sequences(path, matrix, 200, 2, 5000)), every_chunk(*open_sequences(path, matrix, 200, 2)));
}

TEST(CodedSequences, FastaChunksPassedOverWithAFirstChunkCutEndWhereReadChunksEnd) {
  test::TempDir dir;
  expect_skipping_keeps_chunks(write_proteins(dir), 200, 70);
}

TEST(CodedSequences, DatabaseChunksPassedOverUnread) {
  test::TempDir dir;
  const std::string db = dir.file("db.hydb");
  write_database(write_proteins(dir), db, 200);
  expect_skipping_keeps_chunks(db, 0);
}

}  // namespace
