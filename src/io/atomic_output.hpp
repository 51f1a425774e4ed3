#pragma once
// Output that appears complete or not at all: written to a temporary file next to the target, renamed
// over it by commit(). If the object is destroyed without commit() (error, exception) the temporary
// file is removed and the target is untouched. Path "-" writes to standard output.
#include <cstdio>
#include <string>
#include <string_view>

namespace hyalign {

class AtomicOutput {
 public:
  explicit AtomicOutput(std::string path);  // throws UsageError if the directory is not writable
  ~AtomicOutput();
  AtomicOutput(const AtomicOutput&) = delete;
  AtomicOutput& operator=(const AtomicOutput&) = delete;

  void write(std::string_view text);
  std::FILE* file() { return file_; }
  void commit();  // flush, check for write errors, rename; throws UsageError on failure
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::string temp_path_;
  std::FILE* file_ = nullptr;
  bool to_stdout_ = false;
  bool committed_ = false;
};

}  // namespace hyalign
