#include "io/sam_tags.hpp"

#include <charconv>
#include <cstdint>
#include <cstring>
#include <limits>
#include <new>
#include <stdexcept>

#include <fmt/format.h>

namespace hyalign {
namespace {

bool is_letter(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Little-endian bytes, as BAM stores numbers on every host.
void put_bytes(std::string& out, std::uint64_t bits, int bytes) {
  for (int k = 0; k < bytes; ++k) out.push_back(static_cast<char>((bits >> (8 * k)) & 0xff));
}
void put_float(std::string& out, float value) {
  std::uint32_t bits = 0;
  std::memcpy(&bits, &value, sizeof bits);
  put_bytes(out, bits, 4);
}

// [-+]?[0-9]+, as an integer; false for other text or beyond 64 bits.
bool parse_integer(std::string_view text, std::int64_t& value) {
  if (!text.empty() && text[0] == '+') text.remove_prefix(1);
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, value);
  return !text.empty() && error == std::errc() && stop == end;
}

// [-+]?[0-9]*\.?[0-9]+([eE][-+]?[0-9]+)?, the SAM spec's float, as a float.
bool parse_float(std::string_view text, float& value) {
  std::size_t k = 0;
  if (k < text.size() && (text[k] == '+' || text[k] == '-')) ++k;
  std::size_t digits = 0;
  while (k < text.size() && is_digit(text[k])) ++k, ++digits;
  if (k < text.size() && text[k] == '.') {
    ++k;
    while (k < text.size() && is_digit(text[k])) ++k, ++digits;
  }
  if (digits == 0) return false;
  if (k < text.size() && (text[k] == 'e' || text[k] == 'E')) {
    ++k;
    if (k < text.size() && (text[k] == '+' || text[k] == '-')) ++k;
    const std::size_t exponent = k;
    while (k < text.size() && is_digit(text[k])) ++k;
    if (k == exponent) return false;
  }
  if (k != text.size()) return false;
  if (text[0] == '+') text.remove_prefix(1);
  double wide = 0;  // rounded to a float from the double, as htslib rounds it
  const auto [stop, error] = std::from_chars(text.data(), text.data() + text.size(), wide);
  value = static_cast<float>(wide);
  return error == std::errc() && stop == text.data() + text.size();
}

struct IntegerType {
  char type;
  std::int64_t low, high;
  int bytes;
};
constexpr IntegerType kIntegerTypes[] = {
    {'c', -128, 127, 1},      {'C', 0, 255, 1}, {'s', -32768, 32767, 2}, {'S', 0, 65535, 2},
    {'i', std::numeric_limits<std::int32_t>::min(), std::numeric_limits<std::int32_t>::max(), 4},
    {'I', 0, std::numeric_limits<std::uint32_t>::max(), 4}};

// SAM's 'i' values: 32 bits, signed or not.
constexpr std::int64_t kLeastInteger = std::numeric_limits<std::int32_t>::min();
constexpr std::int64_t kGreatestInteger = std::numeric_limits<std::uint32_t>::max();

const IntegerType* integer_type(char type) {
  for (const IntegerType& t : kIntegerTypes)
    if (t.type == type) return &t;
  return nullptr;
}

// An 'i' value in the smallest of BAM's integer types that holds it, unsigned unless it is negative
// (as htslib's parser stores it).
void encode_integer(std::string_view value, SamTag& tag) {
  std::int64_t v = 0;
  if (!parse_integer(value, v) || v < kLeastInteger || v > kGreatestInteger)
    throw std::invalid_argument(fmt::format("'{}' is not an integer of SAM's range", value));
  for (const IntegerType& t : kIntegerTypes)
    if ((v < 0) == (t.low < 0) && v >= t.low && v <= t.high) {
      tag.type = t.type;
      put_bytes(tag.data, static_cast<std::uint64_t>(v), t.bytes);
      return;
    }
}

// A 'B' value: its element type, then a comma before each element.
void encode_array(std::string_view value, SamTag& tag) {
  if (value.empty() || (value.size() > 1 && value[1] != ','))
    throw std::invalid_argument("an array is its element type (one of cCsSiIf), then ',' before each element");
  const char element = value[0];
  const IntegerType* integers = integer_type(element);
  if (integers == nullptr && element != 'f')
    throw std::invalid_argument(fmt::format("'{}' is not an array element type (one of cCsSiIf)", element));
  std::string elements;
  std::uint32_t count = 0;
  for (std::size_t at = 1; at < value.size();) {
    const std::size_t next = std::min(value.find(',', at + 1), value.size());
    const std::string_view item = value.substr(at + 1, next - at - 1);
    std::int64_t v = 0;
    float f = 0;
    if (integers != nullptr && parse_integer(item, v) && v >= integers->low && v <= integers->high)
      put_bytes(elements, static_cast<std::uint64_t>(v), integers->bytes);
    else if (integers == nullptr && parse_float(item, f))
      put_float(elements, f);
    else
      throw std::invalid_argument(fmt::format("'{}' is not an element of type '{}'", item, element));
    ++count;
    at = next;
  }
  tag.type = 'B';
  tag.data.push_back(element);
  put_bytes(tag.data, count, 4);
  tag.data += elements;
}

void encode_value(char type, std::string_view value, SamTag& tag) {
  auto all_of = [&](auto allowed) {
    for (char c : value)
      if (!allowed(c)) return false;
    return true;
  };
  auto printable = [](char c) { return c >= '!' && c <= '~'; };
  auto hex = [](char c) { return is_digit(c) || (c >= 'A' && c <= 'F'); };
  tag.type = type;
  switch (type) {
    case 'A':
      if (value.size() != 1 || !printable(value[0])) throw std::invalid_argument("an 'A' value is one printable character");
      tag.data.push_back(value[0]);
      return;
    case 'i':
      return encode_integer(value, tag);
    case 'f': {
      float f = 0;
      if (!parse_float(value, f)) throw std::invalid_argument(fmt::format("'{}' is not a float", value));
      return put_float(tag.data, f);
    }
    case 'Z':
      if (!all_of([&](char c) { return c == ' ' || printable(c); }))
        throw std::invalid_argument("a 'Z' value holds printable characters and spaces only");
      break;
    case 'H':
      if (value.size() % 2 != 0 || !all_of(hex))
        throw std::invalid_argument("an 'H' value is pairs of hexadecimal digits 0-9A-F");
      break;
    case 'B':
      return encode_array(value, tag);
    default:
      throw std::invalid_argument(fmt::format("'{}' is not a SAM type (A, i, f, Z, H or B)", type));
  }
  tag.data = std::string(value) + '\0';
}

SamTag parse_field(std::string_view field) {
  if (field.size() < 5 || !is_letter(field[0]) || !(is_letter(field[1]) || is_digit(field[1])) || field[2] != ':' ||
      field[4] != ':')
    throw std::invalid_argument("not a SAM tag (TAG:TYPE:VALUE, such as BC:Z:ACGT)");
  SamTag tag;
  tag.tag[0] = field[0];
  tag.tag[1] = field[1];
  encode_value(field[3], field.substr(5), tag);
  return tag;
}

}  // namespace

std::vector<SamTag> parse_sam_tags(std::string_view text) {
  std::vector<SamTag> tags;
  if (text.empty()) return tags;
  for (std::size_t at = 0;;) {
    const std::size_t end = std::min(text.find('\t', at), text.size());
    const std::string_view field = text.substr(at, end - at);
    try {
      tags.push_back(parse_field(field));
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(fmt::format("'{}': {}", field, e.what()));
    }
    for (std::size_t k = 0; k + 1 < tags.size(); ++k)
      if (std::memcmp(tags[k].tag, tags.back().tag, 2) == 0)
        throw std::invalid_argument(fmt::format("the tag {} is given twice", std::string_view(tags.back().tag, 2)));
    if (end == text.size()) return tags;
    at = end + 1;
  }
}

void append_sam_tags(bam1_t* record, std::span<const SamTag> tags) {
  for (const SamTag& t : tags)
    if (bam_aux_append(record, t.tag, t.type, static_cast<int>(t.data.size()),
                       reinterpret_cast<const std::uint8_t*>(t.data.data())) != 0)
      throw std::bad_alloc();
}

}  // namespace hyalign
