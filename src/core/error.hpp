#pragma once
// Errors users see. Every message is one line: "file:line:column: problem" (line/column when known).
#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

namespace hyalign {

// A problem in an input file the user gave us.
// Input text for an error line: its first 20 characters, each byte that is no printable ASCII
// character shown as '?', and "..." where there was more.
std::string excerpt(std::string_view text);
// One input character for an error line: 'c' where printable ASCII, else "byte 0xNN".
std::string shown_character(char c);

class InputError : public std::runtime_error {
 public:
  InputError(std::string_view file, std::size_t line, std::string_view problem, std::size_t column = 0);
  InputError(std::string_view file, std::string_view problem);  // whole-file problem, no line
};

// A write that failed (disk full, closed device, lost mount): "PATH: cannot write: REASON".
class OutputError : public std::runtime_error {
 public:
  OutputError(std::string_view path, int error_number);  // errno; 0 reads as an I/O error
};

// A problem with the command line or the combination of inputs (not tied to a file position).
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace hyalign
