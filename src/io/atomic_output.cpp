#include "io/atomic_output.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "core/error.hpp"

namespace hyalign {

AtomicOutput::AtomicOutput(std::string path) : path_(std::move(path)) {
  if (path_ == "-") {
    to_stdout_ = true;
    file_ = stdout;
    return;
  }
  std::filesystem::path target(path_);
  std::filesystem::path dir = target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
  std::string pattern = (dir / ("." + target.filename().string() + ".tmp.XXXXXX")).string();
  int fd = mkstemp(pattern.data());
  if (fd < 0) throw UsageError(fmt::format("{}: cannot create output file: {}", path_, std::strerror(errno)));
  temp_path_ = pattern;
  file_ = fdopen(fd, "w");
  if (!file_) {
    ::close(fd);
    std::remove(temp_path_.c_str());
    throw UsageError(fmt::format("{}: cannot open output file: {}", path_, std::strerror(errno)));
  }
}

AtomicOutput::~AtomicOutput() {
  if (to_stdout_ || committed_) return;
  std::fclose(file_);
  std::remove(temp_path_.c_str());
}

void AtomicOutput::write(std::string_view text) { std::fwrite(text.data(), 1, text.size(), file_); }

void AtomicOutput::commit() {
  if (committed_) return;
  if (to_stdout_) {
    committed_ = true;
    if (std::fflush(stdout) != 0) throw UsageError(fmt::format("standard output: write failed: {}", std::strerror(errno)));
    return;
  }
  bool failed = std::ferror(file_) != 0;
  failed |= std::fflush(file_) != 0;
  failed |= fsync(fileno(file_)) != 0 && errno != EINVAL;
  int saved_errno = errno;
  failed |= std::fclose(file_) != 0;
  committed_ = true;  // the temporary is closed either way; remove it below on failure
  if (failed) {
    std::remove(temp_path_.c_str());
    throw UsageError(fmt::format("{}: write failed: {}", path_, std::strerror(saved_errno)));
  }
  if (std::rename(temp_path_.c_str(), path_.c_str()) != 0) {
    int e = errno;
    std::remove(temp_path_.c_str());
    throw UsageError(fmt::format("{}: cannot move output into place: {}", path_, std::strerror(e)));
  }
}

}  // namespace hyalign
