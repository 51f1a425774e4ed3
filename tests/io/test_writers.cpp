#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "io/alignment_writer.hpp"
#include "io/atomic_output.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using namespace hyalign;

namespace {
std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}
using test::TempDir;
}  // namespace

TEST(AtomicOutput, AppearsOnlyAfterCommit) {
  TempDir dir;
  fs::path target = dir.path / "out.txt";
  {
    AtomicOutput out(target.string());
    out.write("hello\n");
    EXPECT_FALSE(fs::exists(target));
    out.commit();
  }
  EXPECT_EQ(slurp(target), "hello\n");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path), fs::directory_iterator()), 1);
}

TEST(AtomicOutput, AbandonedOutputLeavesOldFileAndNoTemporary) {
  TempDir dir;
  fs::path target = dir.path / "out.txt";
  std::ofstream(target) << "old";
  {
    AtomicOutput out(target.string());
    out.write("half written");
  }
  EXPECT_EQ(slurp(target), "old");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path), fs::directory_iterator()), 1);
}

TEST(AtomicOutput, UnwritableDirectoryIsAnError) {
  EXPECT_THROW(AtomicOutput("/nonexistent-dir/out.txt"), std::runtime_error);
}

TEST(AlignmentWriter, PhylipPadsNamesToLongestPlusOne) {
  TempDir dir;
  fs::path target = dir.path / "a.phy";
  AtomicOutput out(target.string());
  AlignmentWriter w(out, AlignmentFormat::phylip, 2, 4, 4);
  w.add_row("A", "AC-T");
  w.add_row("Carp", "ACGT");
  out.commit();
  EXPECT_EQ(slurp(target), "2 4\nA    AC-T\nCarp ACGT\n");
}

TEST(AlignmentWriter, FastaWritesOneLinePerRow) {
  TempDir dir;
  fs::path target = dir.path / "a.fa";
  AtomicOutput out(target.string());
  AlignmentWriter w(out, AlignmentFormat::fasta, 2, 4, 4);
  w.add_row("A", "AC-T");
  w.add_row("Carp", "ACGT");
  out.commit();
  EXPECT_EQ(slurp(target), ">A\nAC-T\n>Carp\nACGT\n");
}
