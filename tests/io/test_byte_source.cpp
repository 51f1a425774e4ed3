#include "io/byte_source.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <fstream>
#include <thread>
#include <optional>
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "test_support.hpp"

using namespace hyalign;

namespace {

const test::TempDir& temp() {
  static const test::TempDir dir;
  return dir;
}

std::string write_file(const std::string& name, std::string_view content) {
  const std::string path = temp().file(name);
  std::ofstream out(path, std::ios::binary);
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  return path;
}

// One gzip member of `text`, compressed by zlib.
std::string gzip_member(std::string_view text, int level = 6) {
  z_stream z{};
  EXPECT_EQ(deflateInit2(&z, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&z, text.size()), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

// Text of `n` bytes that compresses neither too well nor too badly.
std::string some_text(std::size_t n, unsigned seed) {
  std::mt19937 random(seed);
  std::string text;
  while (text.size() < n) {
    text += "@read" + std::to_string(random()) + "\n";
    for (int i = 0; i < 60; ++i) text.push_back("ACGT"[random() % 4]);
    text += "\n";
  }
  text.resize(n);
  return text;
}

std::string read_all(const std::string& path, std::size_t block) {
  ByteSource source(path, block);
  std::string all;
  for (std::string_view got = source.next(); !got.empty(); got = source.next()) {
    EXPECT_LE(got.size(), block);
    all.append(got);
  }
  return all;
}

void expect_error(const std::string& path, const std::string& fragment) {
  try {
    read_all(path, 4096);
    ADD_FAILURE() << "no error for " << path;
  } catch (const ByteSource::Error& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

}  // namespace

TEST(ByteSource, PlainBytesPassThroughInBlocks) {
  for (std::size_t size : {0, 1, 2, 3, 4095, 4096, 4097, 300000}) {
    const std::string text = some_text(size, static_cast<unsigned>(size));
    const std::string path = write_file("plain" + std::to_string(size), text);
    for (std::size_t block : {1, 7, 4096, 1 << 20}) {
      if (block * 1000 < size) continue;  // a block per byte of a large file only costs time
      EXPECT_EQ(read_all(path, block), text) << size << " " << block;
    }
  }
}

TEST(ByteSource, GzipMembersAreDecodedOneAfterAnother) {
  const std::string a = some_text(500000, 1), b = some_text(3, 2), c = some_text(70000, 3);
  // Stored (level 0) and compressed members, an empty one among them, as `cat x.gz y.gz` makes.
  const std::string bytes = gzip_member(a) + gzip_member(b, 0) + gzip_member("") + gzip_member(c, 9);
  const std::string path = write_file("members.gz", bytes);
  for (std::size_t block : {1000, 65536, 1 << 20}) EXPECT_EQ(read_all(path, block), a + b + c) << block;
  // Zero padding after the last member (as tar leaves) is not data.
  EXPECT_EQ(read_all(write_file("padded.gz", bytes + std::string(1000, '\0')), 4096), a + b + c);
}

TEST(ByteSource, BrokenGzipIsAnError) {
  const std::string text = some_text(200000, 4);
  const std::string gz = gzip_member(text);
  expect_error(write_file("cut.gz", gz.substr(0, gz.size() / 2)), "truncated gzip data");
  expect_error(write_file("no_trailer.gz", gz.substr(0, gz.size() - 3)), "truncated gzip data");
  std::string flipped = gz;
  flipped[gz.size() - 6] ^= 0x40;  // in the CRC
  expect_error(write_file("crc.gz", flipped), "corrupt gzip data");
  expect_error(write_file("garbage_after.gz", gz + "plain text after the gzip data\n"), "not another gzip member");
}

TEST(ByteSource, MissingFileAndDirectoryAreInputErrors) {
  EXPECT_THROW(ByteSource(temp().file("no_such_file"), 4096), InputError);
  EXPECT_THROW(ByteSource(temp().path.string(), 4096), InputError);
}

TEST(ByteSource, StopsEarlyWithoutReadingToTheEnd) {
  const std::string path = write_file("big.gz", gzip_member(some_text(3000000, 5)));
  ByteSource source(path, 1000);
  EXPECT_EQ(source.next().size(), 1000u);  // the destructor stops the decoding thread mid-file
}

TEST(ByteSource, BytesBeforeAnErrorComeFirst) {
  const std::string text = some_text(3000, 6);
  const std::string path = write_file("then_garbage.gz", gzip_member(text) + "not gzip");
  ByteSource source(path, 1 << 20);
  std::string got;
  try {
    for (std::string_view block = source.next(); !block.empty(); block = source.next()) got.append(block);
    ADD_FAILURE() << "no error for the trailing text";
  } catch (const ByteSource::Error&) {
    EXPECT_EQ(got, text);  // the reader's error names the line where the good data end
  }
}

TEST(ByteSource, SharesReadGrowToOneAndSizesAreKnownForPlainFilesOnly) {
  const std::string text = some_text(3000000, 7);
  for (const std::string& path : {write_file("share.txt", text), write_file("share.gz", gzip_member(text))}) {
    ByteSource source(path, 4096);
    double last = 0;
    for (std::string_view block = source.next(); !block.empty(); block = source.next()) {
      const std::optional<double> read = source.fraction_read();
      ASSERT_TRUE(read.has_value()) << path;
      EXPECT_GE(*read, last) << path;
      last = *read;
    }
    EXPECT_DOUBLE_EQ(last, 1.0) << path;
    EXPECT_GT(last, 0.0);
  }
  EXPECT_EQ(size_as_read(temp().file("share.txt")), std::optional<std::uint64_t>(text.size()));
  EXPECT_EQ(size_as_read(temp().file("share.gz")), std::nullopt);  // its size decoded is not in the file
  EXPECT_EQ(size_as_read(temp().file("no_such_file")), std::nullopt);  // the reader says why
  EXPECT_EQ(size_as_read(temp().path.string()), std::nullopt);           // a directory
}

// The fewest letters the files' sizes suggest: a gzip file's compressed bytes; plain files (whose
// size is known), pipes, directories and missing files add none.
TEST(ByteSource, LettersAtLeastCountGzipFilesByTheirCompressedBytes) {
  const std::string gz = write_file("least.gz", gzip_member(some_text(200000, 9)));
  const std::string plain = write_file("least.txt", some_text(100000, 10));
  const auto compressed = static_cast<std::uint64_t>(std::filesystem::file_size(gz));
  EXPECT_EQ(letters_at_least({gz}), compressed);
  EXPECT_EQ(letters_at_least({gz, gz, ""}), 2 * compressed);
  EXPECT_EQ(letters_at_least({plain, temp().file("no_such_file"), temp().path.string()}), 0u);
  EXPECT_EQ(letters_at_least({plain, gz}), compressed);
  int ends[2];
  ASSERT_EQ(::pipe(ends), 0);
  EXPECT_EQ(letters_at_least({"/dev/fd/" + std::to_string(ends[0])}), 0u);
  ::close(ends[0]);
  ::close(ends[1]);
}

TEST(ByteSource, ThePartReadOfAPipeIsUnknown) {
  int ends[2];
  ASSERT_EQ(::pipe(ends), 0);
  const std::string text = "@r\nACGT\n+\nIIII\n";
  ASSERT_EQ(::write(ends[1], text.data(), text.size()), static_cast<ssize_t>(text.size()));
  ::close(ends[1]);
  const std::string path = "/dev/fd/" + std::to_string(ends[0]);
  EXPECT_EQ(size_as_read(path), std::nullopt);
  {
    ByteSource source(path, 4096);
    EXPECT_EQ(source.next(), text);
    EXPECT_EQ(source.fraction_read(), std::nullopt);
  }
  ::close(ends[0]);
}

// `hyalign map ref.fa - <reads.fq`: standard input that is a regular file has a size, what is left of
// it from its offset, and asking for it reads nothing away.
TEST(ByteSource, StandardInputThatIsAFileHasTheSizeLeft) {
  const std::string text = some_text(100000, 8);
  const std::string plain = write_file("stdin.txt", text), gz = write_file("stdin.gz", gzip_member(text));
  const int saved = ::dup(0);
  ASSERT_GE(saved, 0);
  for (const std::string& path : {plain, gz}) {
    const int fd = ::open(path.c_str(), O_RDONLY);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::dup2(fd, 0), 0);
    ::close(fd);
    const bool gzip = path == gz;
    const off_t offset = gzip ? 0 : 10;
    ASSERT_EQ(::lseek(0, offset, SEEK_SET), offset);
    EXPECT_EQ(size_as_read("-"), gzip ? std::nullopt : std::optional<std::uint64_t>(text.size() - 10)) << path;
    EXPECT_EQ(::lseek(0, 0, SEEK_CUR), offset) << "nothing read away";
    EXPECT_EQ(read_all("-", 4096), text.substr(static_cast<std::size_t>(offset)));
  }
  ::dup2(saved, 0);
  ::close(saved);
}

// A named pipe is not opened to ask its size: its writer would take that for its reader.
TEST(ByteSource, ANamedPipeIsReadOnceWhole) {
  const std::string fifo = temp().file("reads.fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string text = "@r\nACGT\n+\nIIII\n";
  std::thread writer([&] {
    const int fd = ::open(fifo.c_str(), O_WRONLY);  // waits for the reader
    EXPECT_EQ(::write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
    ::close(fd);
  });
  EXPECT_EQ(size_as_read(fifo), std::nullopt);
  EXPECT_EQ(read_all(fifo, 4096), text);
  writer.join();
}
