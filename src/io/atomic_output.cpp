#include "io/atomic_output.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include <fmt/format.h>

#include "core/error.hpp"
#include "io/text.hpp"

namespace hyalign {
namespace {

// The process umask, read without changing it (Linux reports it in /proc/self/status).
mode_t current_umask() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("Umask:", 0) == 0) return static_cast<mode_t>(std::strtoul(line.c_str() + 6, nullptr, 8));
  const mode_t mask = umask(022);  // no /proc: read it by setting it, then put it back
  umask(mask);
  return mask;
}

// The descriptor a path names when it is one of the process's own: /dev/stdout, /dev/fd/N,
// /proc/self/fd/N. Opening such a path anew would truncate what the shell opened (and lose what
// was written before us), so the descriptor itself is written; -1 for any other path.
int own_descriptor(const std::string& path) {
  if (path == "/dev/stdout") return STDOUT_FILENO;
  if (path == "/dev/stderr") return STDERR_FILENO;
  for (const char* prefix : {"/dev/fd/", "/proc/self/fd/"}) {
    const std::size_t length = std::strlen(prefix);
    if (path.size() <= length || path.compare(0, length, prefix) != 0) continue;
    char* end = nullptr;
    const long fd = std::strtol(path.c_str() + length, &end, 10);
    if (*end == '\0' && fd >= 0 && fd < 1 << 20) return static_cast<int>(fd);
  }
  return -1;
}

// Paths under /dev and /proc are never replaced, even when they resolve to a regular file.
bool is_system_path(const std::string& path) {
  return path.rfind("/dev/", 0) == 0 || path.rfind("/proc/", 0) == 0;
}

// Temporary files to remove if a signal ends the process (Ctrl-C, kill, a lost terminal). The
// handler may only call async-signal-safe functions, so the names sit in a fixed table of C strings.
constexpr std::size_t kMaxTemporaries = 64;
std::array<std::atomic<char*>, kMaxTemporaries> temporaries{};

extern "C" void remove_temporaries_and_die(int signal_number) {
  for (auto& slot : temporaries)
    if (char* name = slot.load()) ::unlink(name);
  std::signal(signal_number, SIG_DFL);
  std::raise(signal_number);
}

void install_signal_cleanup() {
  static const bool installed = [] {
    for (int s : {SIGINT, SIGTERM, SIGHUP, SIGQUIT})
      if (std::signal(s, SIG_IGN) != SIG_IGN) std::signal(s, remove_temporaries_and_die);  // keep an ignore
    return true;
  }();
  (void)installed;
}

// Registers a temporary for removal on a signal; returns its slot, or kMaxTemporaries if the table
// is full (the file is then only removed by the destructor).
std::size_t register_temporary(const std::string& path) {
  install_signal_cleanup();
  char* copy = ::strdup(path.c_str());
  if (!copy) return kMaxTemporaries;
  for (std::size_t i = 0; i < kMaxTemporaries; ++i) {
    char* empty = nullptr;
    if (temporaries[i].compare_exchange_strong(empty, copy)) return i;
  }
  std::free(copy);
  return kMaxTemporaries;
}

void unregister_temporary(std::size_t slot) {
  if (slot < kMaxTemporaries) std::free(temporaries[slot].exchange(nullptr));
}

std::string temp_directory(const std::string& target_path) {
  const std::filesystem::path target(target_path);
  return target.has_parent_path() ? target.parent_path().string() : std::string(".");
}

// The file that `path`, a symbolic link whose chain names no file yet, names in the end: the link
// is kept and that file made, as writing through the link would make it.
std::string last_link_target(const std::string& path) {
  namespace fs = std::filesystem;
  fs::path at = path;
  std::error_code error;
  for (int hop = 0; hop < 40 && fs::is_symlink(fs::symlink_status(at, error)); ++hop) {
    const fs::path next = fs::read_symlink(at, error);
    if (error) break;
    at = next.is_absolute() ? next : at.parent_path() / next;
  }
  return at.string();
}

// A hidden name next to the target; the X's are for mkstemp.
std::string temp_pattern(const std::string& target_path) {
  const std::filesystem::path target(target_path);
  return (std::filesystem::path(temp_directory(target_path)) / fmt::format(".{}.tmp.XXXXXX", target.filename().string()))
      .string();
}

// A file with no name in `dir` (Linux's O_TMPFILE): if the process dies in any way, SIGKILL and
// the OOM killer included, the system frees it and nothing is left behind. Giving it a name later
// goes through /proc/self/fd, so without /proc, or on a filesystem that has no such files (NFS,
// older kernels), returns -1 and the caller takes a named temporary instead.
int open_unnamed_temporary(const std::string& dir) {
#ifdef O_TMPFILE
  if (::access("/proc/self/fd", X_OK) != 0) return -1;
  return ::open(dir.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
#else
  (void)dir;
  return -1;
#endif
}

bool unnamed_temporaries_allowed = true;

}  // namespace

void AtomicOutput::allow_unnamed_temporaries(bool allowed) { unnamed_temporaries_allowed = allowed; }

AtomicOutput::AtomicOutput(std::string path) : path_(std::move(path)) {
  if (path_ == "-" || own_descriptor(path_) == STDOUT_FILENO) {
    to_stdout_ = true;
    file_ = stdout;
    return;
  }
  if (const int fd = own_descriptor(path_); fd >= 0) {
    open_in_place(fd);
    return;
  }
  struct stat existing {};
  const bool exists = ::stat(path_.c_str(), &existing) == 0;
  if (exists && S_ISDIR(existing.st_mode)) throw UsageError(fmt::format("{}: is a directory", path_));
  // A symbolic link is kept and the file it names is replaced (or made); a device, pipe or anything
  // reached through /dev or /proc is written in place.
  std::string target_path = exists ? path_ : last_link_target(path_);
  if (exists && S_ISREG(existing.st_mode)) {
    char* resolved = ::realpath(path_.c_str(), nullptr);
    if (!resolved) throw OutputError(path_, errno);
    target_path = resolved;
    std::free(resolved);
  }
  if ((exists && !S_ISREG(existing.st_mode)) || is_system_path(path_) || is_system_path(target_path)) {
    open_in_place(-1);
    return;
  }
  target_path_ = target_path;
  const mode_t mode = exists ? (existing.st_mode & 07777) : (0666 & ~current_umask());
  int fd = unnamed_temporaries_allowed ? open_unnamed_temporary(temp_directory(target_path_)) : -1;
  if (fd >= 0) {
    unnamed_ = true;
  } else {
    std::string pattern = temp_pattern(target_path_);
    fd = mkstemp(pattern.data());
    if (fd < 0) throw OutputError(path_, errno);
    temp_path_ = pattern;
    temp_slot_ = register_temporary(temp_path_);
  }
  if (fchmod(fd, mode) != 0 || !(file_ = fdopen(fd, "w"))) {
    const int error = errno;
    ::close(fd);
    remove_temporary();
    throw OutputError(path_, error);
  }
}

// Writes to the path itself, or to a copy of descriptor fd when fd >= 0.
void AtomicOutput::open_in_place(int fd) {
  if (fd >= 0) {
    const int copy = ::fcntl(fd, F_DUPFD_CLOEXEC, 3);
    if (copy < 0 || !(file_ = fdopen(copy, "w"))) {
      const int error = errno;
      if (copy >= 0) ::close(copy);
      throw OutputError(path_, error);
    }
    return;
  }
  file_ = std::fopen(path_.c_str(), "w");
  if (!file_) throw OutputError(path_, errno);
}

void AtomicOutput::remove_temporary() {
  if (temp_path_.empty()) return;
  std::remove(temp_path_.c_str());
  unregister_temporary(temp_slot_);
  temp_path_.clear();
}

AtomicOutput::~AtomicOutput() {
  if (kept_fd_ >= 0) ::close(kept_fd_);  // an unnamed temporary not committed goes with it
  if (to_stdout_ || committed_) return;
  if (!finished_) std::fclose(file_);
  remove_temporary();
}

void AtomicOutput::fail(int error) {
  if (!to_stdout_ && !finished_) std::fclose(file_);
  finished_ = true;  // closed; the destructor removes the temporary
  if (!error_) error_ = error ? error : EIO;
  throw OutputError(to_stdout_ ? std::string("standard output") : path_, error_);
}

void AtomicOutput::write(std::string_view text) {
  if (error_) fail(error_);
  if (finished_) throw std::logic_error(fmt::format("{}: write after finish", path_));
  if (std::fwrite(text.data(), 1, text.size(), file_) != text.size()) fail(errno);
}

int AtomicOutput::descriptor() {
  if (error_) fail(error_);
  if (std::fflush(file_) != 0) fail(errno);
  return fileno(file_);
}

void AtomicOutput::finish() {
  if (error_) fail(error_);
  if (finished_) return;
  if (std::fflush(file_) != 0 || std::ferror(file_)) fail(errno);
  if (to_stdout_) {
    finished_ = true;
    return;
  }
  // Data must be on disk before the rename makes it the target (fsync is EINVAL on pipes/devices).
  const bool temporary = unnamed_ || !temp_path_.empty();
  if (temporary && fsync(fileno(file_)) != 0 && errno != EINVAL) fail(errno);
  // An unnamed temporary lives while a descriptor is open: one is kept until commit() names it.
  if (unnamed_ && (kept_fd_ = ::fcntl(fileno(file_), F_DUPFD_CLOEXEC, 3)) < 0) fail(errno);
  finished_ = true;
  if (std::fclose(file_) != 0) fail(errno);
}

void AtomicOutput::commit() {
  if (committed_) return;
  finish();
  if (unnamed_) name_unnamed_temporary();
  if (!temp_path_.empty()) {
    if (std::rename(temp_path_.c_str(), target_path_.c_str()) != 0) fail(errno);
    unregister_temporary(temp_slot_);
  }
  committed_ = true;
}

// Links the unnamed temporary under a hidden name next to the target, for the rename: a link
// straight onto the target cannot replace an existing file.
void AtomicOutput::name_unnamed_temporary() {
  const std::string proc_path = fmt::format("/proc/self/fd/{}", kept_fd_);
  std::random_device entropy;
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::string name = temp_pattern(target_path_);
    name.resize(name.size() - 6);
    name += fmt::format("{:06x}", entropy() & 0xffffffu);
    if (::linkat(AT_FDCWD, proc_path.c_str(), AT_FDCWD, name.c_str(), AT_SYMLINK_FOLLOW) == 0) {
      temp_path_ = name;
      temp_slot_ = register_temporary(temp_path_);
      ::close(kept_fd_);
      kept_fd_ = -1;
      unnamed_ = false;
      return;
    }
    if (errno != EEXIST) fail(errno);
  }
  fail(EEXIST);
}

void check_not_an_input(std::string_view output, std::span<const std::string> inputs) {
  if (output.empty() || output == "-") return;
  for (const std::string& input : inputs) {
    std::error_code cannot_tell;  // a missing or unreadable file is reported where it is opened
    if (!input.empty() && input != "-" && std::filesystem::equivalent(output, input, cannot_tell))
      throw UsageError(fmt::format("-o {}: that is the input {}, which the output would replace", output, input));
  }
}

void check_uncompressed_name(std::string_view path, std::string_view written) {
  for (const std::string_view compressed : {".gz", ".bgz", ".bz2", ".xz", ".zst"})
    if (text::ends_with_any_case(path, compressed))
      throw UsageError(fmt::format("-o {}: the output is {}, not {} (write it to a pipe through a compressor)",
                                   path, written, compressed));
}

}  // namespace hyalign
