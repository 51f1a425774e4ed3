#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>

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

std::ptrdiff_t entries(const fs::path& dir) {
  return std::distance(fs::directory_iterator(dir), fs::directory_iterator());
}
}  // namespace

// Files are written through unnamed temporaries where the filesystem has them, else through named
// ones (NFS): each test of a file output runs both ways.
class AtomicOutputTemporaries : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override { AtomicOutput::allow_unnamed_temporaries(GetParam()); }
  void TearDown() override { AtomicOutput::allow_unnamed_temporaries(true); }
};
INSTANTIATE_TEST_SUITE_P(Both, AtomicOutputTemporaries, ::testing::Values(true, false),
                         [](const auto& info) { return info.param ? "unnamed" : "named"; });

TEST_P(AtomicOutputTemporaries, AppearsOnlyAfterCommit) {
  TempDir dir;
  fs::path target = dir.path / "out.txt";
  {
    AtomicOutput out(target.string());
    out.write("hello\n");
    EXPECT_FALSE(fs::exists(target));
    out.commit();
  }
  EXPECT_EQ(slurp(target), "hello\n");
  EXPECT_EQ(entries(dir.path), 1);
}

TEST_P(AtomicOutputTemporaries, AbandonedOutputLeavesOldFileAndNoTemporary) {
  TempDir dir;
  fs::path target = dir.path / "out.txt";
  std::ofstream(target) << "old";
  {
    AtomicOutput out(target.string());
    out.write("half written");
  }
  EXPECT_EQ(slurp(target), "old");
  EXPECT_EQ(entries(dir.path), 1);
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

TEST_P(AtomicOutputTemporaries, NewFileGetsTheUmaskMode) {
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

TEST_P(AtomicOutputTemporaries, ReplacedFileKeepsItsMode) {
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

TEST(AtomicOutput, PipeIsWrittenInPlaceAndNeverReplaced) {
  TempDir dir;
  const fs::path fifo = dir.path / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const int reader = ::open(fifo.c_str(), O_RDWR | O_NONBLOCK);  // a reader, so opening for writing does not wait
  ASSERT_GE(reader, 0);
  {
    AtomicOutput out(fifo.string());
    out.write("through the pipe");
    out.commit();
  }
  char buffer[64] = {};
  EXPECT_EQ(::read(reader, buffer, sizeof buffer), 16);
  EXPECT_STREQ(buffer, "through the pipe");
  ::close(reader);
  struct stat st {};
  ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  EXPECT_EQ(entries(dir.path), 1);
}

TEST_P(AtomicOutputTemporaries, SymbolicLinkStaysAndItsFileIsReplaced) {
  TempDir dir;
  fs::create_directory(dir.path / "data");
  const fs::path file = dir.path / "data" / "real.txt", link = dir.path / "link.txt";
  { std::ofstream(file) << "old"; }
  ::chmod(file.c_str(), 0640);
  fs::create_symlink(file, link);
  {
    AtomicOutput out(link.string());
    out.write("new");
    out.commit();
  }
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(slurp(file), "new");
  EXPECT_EQ(mode_of(file), 0640u);
  EXPECT_EQ(entries(dir.path / "data"), 1);
}

// /dev/fd/N names a descriptor the process has (a shell redirection): it is written from where it
// stands, never opened anew (which would truncate what came before) nor replaced.
TEST(AtomicOutput, OwnDescriptorIsWrittenWhereItStands) {
  TempDir dir;
  const fs::path file = dir.path / "redirected.txt";
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::write(fd, "header\n", 7), 7);
  {
    AtomicOutput out("/dev/fd/" + std::to_string(fd));
    out.write("body\n");
    out.commit();
  }
  ::close(fd);
  EXPECT_EQ(slurp(file), "header\nbody\n");
  EXPECT_EQ(entries(dir.path), 1);
}

namespace {
// Forks a child that writes `target` (and finishes it, if asked), then raises `signal`; returns the
// signal that ended the child, 0 if it ended otherwise, -1 if it could not be run.
int write_then_raise(const fs::path& target, int signal, bool finish) {
  const pid_t child = ::fork();
  if (child < 0) return -1;
  if (child == 0) {
    AtomicOutput out(target.string());
    out.write("partial");
    if (finish) out.finish();
    ::raise(signal);
    ::_exit(0);  // not reached
  }
  int status = 0;
  if (::waitpid(child, &status, 0) != child) return -1;
  return WIFSIGNALED(status) ? WTERMSIG(status) : 0;
}
}  // namespace

// A signal that ends the process (Ctrl-C, kill) removes the temporary first.
TEST_P(AtomicOutputTemporaries, SignalRemovesTheTemporary) {
  TempDir dir;
  EXPECT_EQ(write_then_raise(dir.path / "out.txt", SIGTERM, false), SIGTERM);
  EXPECT_EQ(entries(dir.path), 0);
}

// A process killed outright (SIGKILL: the OOM killer, an MPI launcher ending a job) runs no
// handler; an unnamed temporary goes with it, before and after finish().
TEST(AtomicOutput, KilledProcessLeavesNothing) {
  TempDir dir;
  const int probe = ::open(dir.path.c_str(), O_TMPFILE | O_WRONLY, 0600);
  if (probe < 0) GTEST_SKIP() << "this filesystem has no unnamed files (O_TMPFILE): named temporaries are used";
  ::close(probe);
  for (const bool finished : {false, true}) {
    EXPECT_EQ(write_then_raise(dir.path / "out.txt", SIGKILL, finished), SIGKILL);
    EXPECT_EQ(entries(dir.path), 0) << (finished ? "after finish()" : "while writing");
  }
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

TEST_P(AtomicOutputTemporaries, FinishedOutputsReplaceTargetsOnlyAtCommit) {
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
