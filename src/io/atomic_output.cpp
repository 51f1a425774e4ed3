#include "io/atomic_output.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "core/error.hpp"

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

}  // namespace

AtomicOutput::AtomicOutput(std::string path) : path_(std::move(path)) {
  if (path_ == "-") {
    to_stdout_ = true;
    file_ = stdout;
    return;
  }
  struct stat existing {};
  const bool exists = ::stat(path_.c_str(), &existing) == 0;
  if (exists && S_ISDIR(existing.st_mode)) throw UsageError(fmt::format("{}: is a directory", path_));
  if (exists && !S_ISREG(existing.st_mode)) {  // a device or pipe: written in place
    file_ = std::fopen(path_.c_str(), "w");
    if (!file_) throw OutputError(path_, errno);
    return;
  }
  const mode_t mode = exists ? (existing.st_mode & 07777) : (0666 & ~current_umask());
  std::filesystem::path target(path_);
  std::filesystem::path dir = target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
  std::string pattern = (dir / ("." + target.filename().string() + ".tmp.XXXXXX")).string();
  const int fd = mkstemp(pattern.data());
  if (fd < 0) throw OutputError(path_, errno);
  temp_path_ = pattern;
  if (fchmod(fd, mode) != 0 || !(file_ = fdopen(fd, "w"))) {
    const int error = errno;
    ::close(fd);
    std::remove(temp_path_.c_str());
    throw OutputError(path_, error);
  }
}

AtomicOutput::~AtomicOutput() {
  if (to_stdout_ || committed_) return;
  if (!finished_) std::fclose(file_);
  if (!temp_path_.empty()) std::remove(temp_path_.c_str());
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

void AtomicOutput::finish() {
  if (error_) fail(error_);
  if (finished_) return;
  if (std::fflush(file_) != 0 || std::ferror(file_)) fail(errno);
  if (to_stdout_) {
    finished_ = true;
    return;
  }
  // Data must be on disk before the rename makes it the target (fsync is EINVAL on pipes/devices).
  if (!temp_path_.empty() && fsync(fileno(file_)) != 0 && errno != EINVAL) fail(errno);
  finished_ = true;
  if (std::fclose(file_) != 0) fail(errno);
}

void AtomicOutput::commit() {
  if (committed_) return;
  finish();
  if (!temp_path_.empty() && std::rename(temp_path_.c_str(), path_.c_str()) != 0) fail(errno);
  committed_ = true;
}

}  // namespace hyalign
