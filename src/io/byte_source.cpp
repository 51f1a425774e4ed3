#include "io/byte_source.hpp"

#include <fcntl.h>
#include <isa-l/igzip_lib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "core/error.hpp"

namespace hyalign {
namespace {

#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
constexpr std::size_t kInput = 64;  // fuzzing builds read tiny pieces: every gzip block crosses refills
#else
constexpr std::size_t kInput = 256 * 1024;  // compressed bytes per read(2)
#endif
constexpr std::size_t kBlocksAhead = 2;  // decoded blocks waiting for the caller, at most

bool is_gzip_head(const unsigned char* head) { return head[0] == 0x1f && head[1] == 0x8b; }

// A file descriptor's bytes, read(2) until the request is filled or the file ends. `size` is the
// file's, where known (not for a pipe).
class FileBytes {
 public:
  FileBytes(int fd, bool owned, std::optional<std::uint64_t> size = std::nullopt)
      : fd_(fd), owned_(owned), size_(size) {}
  ~FileBytes() {
    if (owned_) ::close(fd_);
  }
  FileBytes(const FileBytes&) = delete;
  FileBytes& operator=(const FileBytes&) = delete;

  std::size_t read(char* out, std::size_t n) {
    std::size_t got = 0;
    while (got < n && !ended_) {
      const ssize_t r = ::read(fd_, out + got, n - got);
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) throw ByteSource::Error(fmt::format("read error: {}", std::strerror(errno)));
      if (r == 0) ended_ = true;
      got += static_cast<std::size_t>(r);
    }
    consumed_.fetch_add(got, std::memory_order_relaxed);
    return got;
  }
  bool ended() const { return ended_; }
  std::optional<std::uint64_t> size() const { return size_; }
  // Whether the bytes still to read start as gzip does; only where the size is known (a regular
  // file, read ahead here without moving its offset: standard input loses nothing).
  bool starts_gzip() const {
    unsigned char head[2] = {};
    const off_t at = ::lseek(fd_, 0, SEEK_CUR);
    return at >= 0 && ::pread(fd_, head, 2, at) == 2 && is_gzip_head(head);
  }
  // Any thread may ask while another reads.
  std::optional<double> fraction_read() const {
    if (!size_ || *size_ == 0) return std::nullopt;
    return std::min(1.0, static_cast<double>(consumed_.load(std::memory_order_relaxed)) / static_cast<double>(*size_));
  }

 private:
  int fd_;
  bool owned_;
  std::optional<std::uint64_t> size_;
  std::atomic<std::uint64_t> consumed_{0};
  bool ended_ = false;
};

// Fills a buffer with the input's bytes as they are or decoded; fewer than asked only at the end.
// `produced` counts the bytes written as they are, so that those before a failure are kept (the
// error then names the line where the good data end).
class Decoder {
 public:
  virtual ~Decoder() = default;
  virtual void fill(char* out, std::size_t n, std::size_t& produced) = 0;
};

// The bytes already read to tell gzip from plain text, then the rest of the file.
class PlainDecoder final : public Decoder {
 public:
  PlainDecoder(std::unique_ptr<FileBytes> file, std::string head) : file_(std::move(file)), head_(std::move(head)) {}
  void fill(char* out, std::size_t n, std::size_t& produced) override {
    produced = std::min(n, head_.size() - head_used_);
    std::memcpy(out, head_.data() + head_used_, produced);
    head_used_ += produced;
    produced += file_->read(out + produced, n - produced);
  }

 private:
  std::unique_ptr<FileBytes> file_;
  std::string head_;
  std::size_t head_used_ = 0;
};

const char* isal_problem(int code) {
  switch (code) {
    case ISAL_INVALID_BLOCK: return "invalid deflate block";
    case ISAL_INVALID_SYMBOL: return "invalid deflate symbol";
    case ISAL_INVALID_LOOKBACK: return "invalid back-reference distance";
    case ISAL_INVALID_WRAPPER: return "invalid gzip header";
    case ISAL_UNSUPPORTED_METHOD: return "unsupported compression method";
    case ISAL_INCORRECT_CHECKSUM: return "checksum mismatch";
    case ISAL_NEED_DICT: return "needs a preset dictionary";
    default: return "unknown ISA-L error";
  }
}

// gzip members one after another (as gzip -c a b and bgzip write), decoded by ISA-L's inflate with
// each member's header parsed and its CRC and length checked. Zero bytes after the last member (tar
// padding) are ignored; any other trailing bytes are an error rather than silently dropped.
class GzipDecoder final : public Decoder {
 public:
  GzipDecoder(std::unique_ptr<FileBytes> file, std::string head) : file_(std::move(file)), in_(kInput + head.size()) {
    std::memcpy(in_.data(), head.data(), head.size());
    in_end_ = head.size();
    start_member();
  }

  void fill(char* out, std::size_t n, std::size_t& produced) override {
    produced = 0;
    while (produced < n) {
      if (member_done_ && !next_member()) break;
      if (in_begin_ == in_end_ && !file_->ended()) refill();
      state_.next_in = in_.data() + in_begin_;
      state_.avail_in = static_cast<std::uint32_t>(in_end_ - in_begin_);
      state_.next_out = reinterpret_cast<std::uint8_t*>(out + produced);
      state_.avail_out = static_cast<std::uint32_t>(std::min<std::size_t>(n - produced, UINT32_MAX));
      const int code = isal_inflate(&state_);
      if (code < 0 || code == ISAL_NEED_DICT)
        throw ByteSource::Error(fmt::format("corrupt gzip data: {}", isal_problem(code)));
      produced = static_cast<std::size_t>(reinterpret_cast<char*>(state_.next_out) - out);
      in_begin_ = static_cast<std::size_t>(state_.next_in - in_.data());
      if (state_.block_state == ISAL_BLOCK_FINISH) {
        member_done_ = true;
      } else if (state_.avail_out > 0 && in_begin_ == in_end_ && file_->ended()) {
        throw ByteSource::Error("truncated gzip data (unexpected end of file)");
      }
    }
  }

 private:
  void start_member() {
    isal_inflate_init(&state_);
    state_.crc_flag = ISAL_GZIP;
    member_done_ = false;
  }

  void refill() {
    if (in_begin_ > 0) {
      std::memmove(in_.data(), in_.data() + in_begin_, in_end_ - in_begin_);
      in_end_ -= in_begin_;
      in_begin_ = 0;
    }
    in_end_ += file_->read(reinterpret_cast<char*>(in_.data()) + in_end_, in_.size() - in_end_);
  }

  // After a member: the next one's start, or the end of the input.
  bool next_member() {
    while (in_end_ - in_begin_ < 2 && !file_->ended()) refill();
    if (in_begin_ == in_end_) return false;
    if (in_end_ - in_begin_ >= 2 && in_[in_begin_] == 0x1f && in_[in_begin_ + 1] == 0x8b) {
      start_member();
      return true;
    }
    for (;;) {  // only zeros may follow
      if (std::any_of(in_.begin() + in_begin_, in_.begin() + in_end_, [](std::uint8_t b) { return b != 0; }))
        throw ByteSource::Error("data after the end of the gzip data that is not another gzip member");
      in_begin_ = in_end_;
      if (file_->ended()) return false;
      refill();
    }
  }

  std::unique_ptr<FileBytes> file_;
  std::vector<std::uint8_t> in_;
  std::size_t in_begin_ = 0, in_end_ = 0;
  inflate_state state_{};
  bool member_done_ = false;
};

// The bytes of a regular file from `fd`'s offset on (where its reading starts); none for a pipe.
std::optional<std::uint64_t> bytes_ahead(int fd, const struct stat& st) {
  if (!S_ISREG(st.st_mode)) return std::nullopt;
  const off_t at = ::lseek(fd, 0, SEEK_CUR);
  if (at < 0 || at > st.st_size) return std::nullopt;
  return static_cast<std::uint64_t>(st.st_size - at);
}

std::unique_ptr<FileBytes> open_file(const std::string& path) {
  struct stat st {};
  if (path == "-")
    return std::make_unique<FileBytes>(0, false, ::fstat(0, &st) == 0 ? bytes_ahead(0, st) : std::nullopt);
  if (::stat(path.c_str(), &st) != 0) {
    // A shell's <(...) is a /dev/fd/N of the shell's children; mpirun's ranks are not among them.
    const bool shell_pipe = errno == ENOENT && path.starts_with("/dev/fd/");
    throw InputError(path, fmt::format("cannot open: {}{}", std::strerror(errno),
                                       shell_pipe ? " (a shell pipe such as <(...) does not reach processes that mpirun "
                                                    "or a job launcher starts: give a file)"
                                                  : ""));
  }
  if (S_ISDIR(st.st_mode)) throw InputError(path, "cannot open: is a directory");
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw InputError(path, fmt::format("cannot open: {}", std::strerror(errno)));
  return std::make_unique<FileBytes>(fd, true, bytes_ahead(fd, st));
}

// Plain or gzip, told by the first two bytes.
std::unique_ptr<Decoder> make_decoder(std::unique_ptr<FileBytes> file) {
  std::string head(2, '\0');
  head.resize(file->read(head.data(), head.size()));
  if (head.size() == 2 && is_gzip_head(reinterpret_cast<const unsigned char*>(head.data())))
    return std::make_unique<GzipDecoder>(std::move(file), std::move(head));
  return std::make_unique<PlainDecoder>(std::move(file), std::move(head));
}

}  // namespace

// The decoding thread and the caller share this; a thread blocked reading standard input is left
// to end with the process rather than joined, so it holds its own reference.
struct ByteSourceShared {
  std::unique_ptr<Decoder> decoder;
  const FileBytes* file = nullptr;  // the decoder's
  std::size_t block = 0;
  std::mutex mutex;
  std::condition_variable changed;
  std::deque<std::vector<char>> ready;  // decoded, in order
  std::vector<std::vector<char>> spare;
  bool ended = false, stop = false;
  std::exception_ptr error;

  void decode_ahead() {
    for (;;) {
      std::vector<char> buffer;
      {
        std::unique_lock lock(mutex);
        changed.wait(lock, [&] { return stop || !spare.empty(); });
        if (stop) return;
        buffer = std::move(spare.back());
        spare.pop_back();
      }
      std::size_t got = 0;
      std::exception_ptr failure;
      try {
        buffer.resize(block);
        decoder->fill(buffer.data(), block, got);
      } catch (...) {
        failure = std::current_exception();  // after the `got` bytes before it
      }
      buffer.resize(got);
      std::lock_guard lock(mutex);
      if (got > 0) ready.push_back(std::move(buffer));
      if (failure || got == 0) {
        error = failure;
        ended = true;
      }
      changed.notify_all();
      if (ended) return;
    }
  }
};

struct ByteSource::Impl {
  std::shared_ptr<ByteSourceShared> shared = std::make_shared<ByteSourceShared>();
  std::vector<char> current;  // the block last returned
  std::thread thread;
  bool standard_input = false;
};

ByteSource::ByteSource(const std::string& path, std::size_t block) : impl_(std::make_unique<Impl>()) {
  ByteSourceShared& s = *impl_->shared;
  s.block = std::max<std::size_t>(block, 1);
  impl_->standard_input = path == "-";
  try {
    std::unique_ptr<FileBytes> file = open_file(path);
    s.file = file.get();
    s.decoder = make_decoder(std::move(file));
  } catch (const Error& e) {
    throw InputError(impl_->standard_input ? "<stdin>" : path, e.what());
  }
  s.spare.resize(kBlocksAhead);
  impl_->thread = std::thread([shared = impl_->shared] { shared->decode_ahead(); });
}

ByteSource::~ByteSource() {
  {
    std::lock_guard lock(impl_->shared->mutex);
    impl_->shared->stop = true;
  }
  impl_->shared->changed.notify_all();
  if (impl_->standard_input) impl_->thread.detach();
  else impl_->thread.join();
}

std::string_view ByteSource::next() {
  ByteSourceShared& s = *impl_->shared;
  std::unique_lock lock(s.mutex);
  if (impl_->current.capacity() > 0) s.spare.push_back(std::move(impl_->current));  // leaves it empty
  s.changed.notify_all();
  s.changed.wait(lock, [&] { return !s.ready.empty() || s.ended; });
  if (s.ready.empty()) {
    if (s.error) std::rethrow_exception(s.error);
    return {};
  }
  impl_->current = std::move(s.ready.front());
  s.ready.pop_front();
  return {impl_->current.data(), impl_->current.size()};
}

std::optional<double> ByteSource::fraction_read() const { return impl_->shared->file->fraction_read(); }

namespace {
struct StoredSize {
  std::uint64_t bytes = 0;
  bool gzip = false;
};
// A regular file's size and whether it is gzip; none for anything else. Only a regular file is
// opened here: a named pipe's writer would take this for its reader and lose what it wrote once it
// is closed. A path that cannot be read is its reader's to report.
std::optional<StoredSize> stored_size(const std::string& path) {
  struct stat st {};
  if ((path == "-" ? ::fstat(0, &st) : ::stat(path.c_str(), &st)) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  try {
    const std::unique_ptr<FileBytes> file = open_file(path);
    if (!file->size()) return std::nullopt;
    return StoredSize{*file->size(), file->starts_gzip()};
  } catch (const InputError&) {
    return std::nullopt;
  }
}
}  // namespace

std::optional<std::uint64_t> size_as_read(const std::string& path) {
  const std::optional<StoredSize> stored = stored_size(path);
  if (!stored || stored->gzip) return std::nullopt;
  return stored->bytes;
}

std::uint64_t letters_at_least(const std::vector<std::string>& paths) {
  std::uint64_t letters = 0;
  for (const std::string& path : paths) {
    if (path.empty()) continue;
    const std::optional<StoredSize> stored = stored_size(path);
    if (stored && stored->gzip) letters += stored->bytes;
  }
  return letters;
}

std::optional<std::uint64_t> size_as_read(const std::vector<std::string>& paths) {
  std::uint64_t bytes = 0;
  for (const std::string& path : paths) {
    if (path.empty()) continue;
    const std::optional<std::uint64_t> size = size_as_read(path);
    if (!size) return std::nullopt;
    bytes += *size;
  }
  return bytes;
}

}  // namespace hyalign
