#pragma once
// Output that appears complete or not at all. A regular file (or a new path) is written to a
// temporary file next to it and renamed over it by commit(); if the object is destroyed first
// (error, exception) the temporary is removed and the target is untouched. Where the filesystem
// allows, the temporary has no name until commit(), so that even a process killed outright
// (SIGKILL, the OOM killer, an MPI launcher ending a job) leaves nothing behind. The file gets the mode a
// plain open would give: an existing file keeps its mode, a new one gets 0666 less the umask.
// A symbolic link stays and the file it names is replaced. Devices, pipes, sockets and anything
// under /dev or /proc are written in place; "-", /dev/stdout, /dev/fd/N and /proc/self/fd/N write
// to the descriptor the process already has. A temporary left by a signal (SIGINT, SIGTERM,
// SIGHUP, SIGQUIT) is removed before the process ends. Every write is checked, and commit() flushes and closes: a failure
// anywhere throws OutputError naming the path.
#include <cstddef>
#include <cstdio>
#include <span>
#include <string>
#include <string_view>

namespace hyalign {

class AtomicOutput {
 public:
  explicit AtomicOutput(std::string path);  // throws OutputError/UsageError if it cannot be created
  ~AtomicOutput();
  AtomicOutput(const AtomicOutput&) = delete;
  AtomicOutput& operator=(const AtomicOutput&) = delete;

  void write(std::string_view text);
  // The open file's descriptor, after a flush, for a library that writes the output itself (htslib
  // for BAM); it must be done (its own copy closed) before finish() or commit().
  int descriptor();
  // Flushes and closes, so every write error has surfaced; the target is not replaced yet. Lets a
  // tool with several outputs finish all of them before it commits any. A write that failed
  // earlier is reported here again, so an output whose error was caught never commits.
  void finish();
  void commit();  // finish(), then rename the temporary over the target
  const std::string& path() const { return path_; }
  // Tests only: false makes new outputs take named temporaries, as on filesystems without
  // unnamed ones (NFS), so that both ways are tested on any machine.
  static void allow_unnamed_temporaries(bool allowed);

 private:
  [[noreturn]] void fail(int error);
  void open_in_place(int fd);
  void remove_temporary();
  void name_unnamed_temporary();
  std::string path_;
  std::string target_path_;  // the file replaced: path_ with symbolic links resolved
  std::string temp_path_;    // a named temporary; empty when unnamed or written in place
  bool unnamed_ = false;     // the temporary has no name yet (O_TMPFILE)
  int kept_fd_ = -1;         // after finish(): keeps the unnamed temporary alive until commit()
  std::size_t temp_slot_ = 0;  // its entry in the table of temporaries removed on a signal
  std::FILE* file_ = nullptr;
  bool to_stdout_ = false;
  bool finished_ = false;
  int error_ = 0;  // errno of the first failure
  bool committed_ = false;
};

// A UsageError when `output` names one of `inputs` (the same file, under any name): the output
// would replace an input the user still has no other copy of.
void check_not_an_input(std::string_view output, std::span<const std::string> inputs);

// A UsageError for an output name whose ending promises compression (.gz, .bgz, .bz2, .xz, .zst):
// `written` (the format the tool writes, uncompressed) under such a name would be silently wrong.
void check_uncompressed_name(std::string_view path, std::string_view written);

}  // namespace hyalign
