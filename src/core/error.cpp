#include "core/error.hpp"

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

namespace hyalign {

static std::string position_message(std::string_view file, std::size_t line, std::size_t column,
                                    std::string_view problem) {
  if (column > 0) return fmt::format("{}:{}:{}: {}", file, line, column, problem);
  return fmt::format("{}:{}: {}", file, line, problem);
}

std::string excerpt(std::string_view text) {
  std::string out;
  for (char c : text.substr(0, 20)) out.push_back(c >= 0x20 && c < 0x7f ? c : '?');
  return text.size() > 20 ? out + "..." : out;
}

std::string shown_character(char c) {
  if (c >= 0x20 && c < 0x7f) return fmt::format("'{}'", c);
  return fmt::format("byte 0x{:02x}", static_cast<unsigned char>(c));
}

InputError::InputError(std::string_view file, std::size_t line, std::string_view problem, std::size_t column)
    : std::runtime_error(position_message(file, line, column, problem)) {}

InputError::InputError(std::string_view file, std::string_view problem)
    : std::runtime_error(fmt::format("{}: {}", file, problem)) {}

OutputError::OutputError(std::string_view path, int error_number)
    : std::runtime_error(fmt::format("{}: cannot write: {}", path, std::strerror(error_number ? error_number : EIO))) {}

}  // namespace hyalign
