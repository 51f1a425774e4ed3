#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/error.hpp"
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

namespace {
mode_t mode_of(const fs::path& p) {
  struct stat st {};
  ::stat(p.c_str(), &st);
  return st.st_mode & 07777;
}
// Sets the umask for the lifetime of the object.
struct ScopedUmask {
  explicit ScopedUmask(mode_t mask) : old(::umask(mask)) {}
  ~ScopedUmask() { ::umask(old); }
  mode_t old;
};
}  // namespace

TEST(AtomicOutput, NewFileGetsTheUmaskMode) {
  TempDir dir;
  for (mode_t mask : {mode_t{022}, mode_t{077}, mode_t{002}}) {
    ScopedUmask scoped(mask);
    const fs::path target = dir.path / ("out" + std::to_string(mask));
    AtomicOutput out(target.string());
    out.write("x");
    out.commit();
    EXPECT_EQ(mode_of(target), 0666 & ~mask) << "umask " << std::oct << mask;
  }
}

TEST(AtomicOutput, ReplacedFileKeepsItsMode) {
  TempDir dir;
  const fs::path target = dir.path / "out.txt";
  std::ofstream(target) << "old";
  ::chmod(target.c_str(), 0640);
  AtomicOutput out(target.string());
  out.write("new");
  out.commit();
  EXPECT_EQ(slurp(target), "new");
  EXPECT_EQ(mode_of(target), 0640u);
}

TEST(AtomicOutput, DeviceIsWrittenInPlaceAndNeverReplaced) {
  {
    AtomicOutput out("/dev/null");
    out.write("discarded");
    out.commit();
  }
  struct stat st {};
  ASSERT_EQ(::stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
}

TEST(AtomicOutput, FullDeviceFailsWithTheReason) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full on this system";
  AtomicOutput out("/dev/full");
  try {
    out.write(std::string(1 << 16, 'x'));  // more than the stdio buffer: fails in write or in commit
    out.commit();
    FAIL() << "writing to /dev/full succeeded";
  } catch (const OutputError& e) {
    EXPECT_STREQ(e.what(), "/dev/full: cannot write: No space left on device");
  }
  EXPECT_THROW(out.commit(), OutputError);  // a caught failure is reported again, never committed
  struct stat st {};
  ASSERT_EQ(::stat("/dev/full", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
}

TEST(AtomicOutput, DirectoryTargetIsRefusedUpFront) {
  TempDir dir;
  EXPECT_THROW(AtomicOutput(dir.path.string()), UsageError);
}

TEST(AtomicOutput, FinishedOutputsReplaceTargetsOnlyAtCommit) {
  TempDir dir;
  const fs::path a = dir.path / "a", b = dir.path / "b";
  AtomicOutput out_a(a.string()), out_b(b.string());
  out_a.write("A");
  out_b.write("B");
  out_a.finish();
  out_b.finish();
  EXPECT_FALSE(fs::exists(a));
  out_a.commit();
  out_b.commit();
  EXPECT_EQ(slurp(a) + slurp(b), "AB");
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
