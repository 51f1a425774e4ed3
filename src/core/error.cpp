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

InputError::InputError(std::string_view file, std::size_t line, std::string_view problem, std::size_t column)
    : std::runtime_error(position_message(file, line, column, problem)) {}

InputError::InputError(std::string_view file, std::string_view problem)
    : std::runtime_error(fmt::format("{}: {}", file, problem)) {}

OutputError::OutputError(std::string_view path, int error_number)
    : std::runtime_error(fmt::format("{}: cannot write: {}", path, std::strerror(error_number ? error_number : EIO))) {}

}  // namespace hyalign
