#include "io/alignment_reader.hpp"

#include <algorithm>
#include <charconv>
#include <optional>
#include <unordered_map>
#include <utility>

#include <fmt/format.h>

#include "core/error.hpp"
#include "io/text.hpp"
#include "io/sequence_reader.hpp"

namespace hyalign {

namespace {

using text::append_without_space;
using text::is_space;
using text::trim;

void check_duplicates(const std::string& file, const RawAlignment& a) {
  std::unordered_map<std::string_view, std::size_t> seen;
  seen.reserve(a.names.size());
  for (std::size_t i = 0; i < a.names.size(); ++i) {
    auto [it, inserted] = seen.emplace(a.names[i], a.name_lines[i]);
    if (!inserted)
      throw InputError(file, a.name_lines[i],
                       fmt::format("duplicate sequence name '{}' (also on line {})", a.names[i], it->second));
  }
}

// ---------------------------------------------------------------------------------------------------
// PHYLIP

struct Line {
  std::size_t number = 0;
  bool blank_before = false;  // a blank line precedes it (block separator in interleaved files)
  std::string text;           // non-blank
};

struct Phylip {
  std::string file;
  std::size_t header_line = 0;
  std::size_t rows = 0;
  std::size_t columns = 0;
  std::vector<Line> lines;  // the non-blank lines after the header
};

struct Failure {
  std::size_t line;
  std::string problem;
};

struct Attempt {
  RawAlignment alignment;
  std::optional<Failure> failure;
};

// Splits a line that starts a row into name and data (whitespace removed). Returns a problem or "".
std::string split_name_line(std::string_view text, bool strict, std::string& name, std::string& data) {
  data.clear();
  if (strict) {
    if (text.size() < 10) return "line is shorter than a 10-character strict PHYLIP name";
    name = normalize_sequence_name(text.substr(0, 10));
    if (name.empty()) return "empty sequence name (strict PHYLIP: the first 10 characters)";
    append_without_space(data, text.substr(10));
    return {};
  }
  text = trim(text);
  std::size_t end = 0;
  while (end < text.size() && !is_space(text[end])) ++end;
  name.assign(text.substr(0, end));
  append_without_space(data, text.substr(end));
  return {};
}

// Why a row's `data` is not as long as the header says. A byte that is no ASCII character (a UTF-8
// letter takes two or more) is named first: it, not the row, is what is wrong.
std::string length_problem(const Phylip& in, const std::string& name, std::string_view data) {
  const auto wide = std::find_if(data.begin(), data.end(), [](char c) { return static_cast<unsigned char>(c) > 0x7f; });
  if (wide != data.end())
    return fmt::format("sequence '{}', column {}: the byte 0x{:02x} is no ASCII character (one per column)", name,
                       wide - data.begin() + 1, static_cast<unsigned char>(*wide));
  return fmt::format("sequence '{}' has {} characters, the PHYLIP header (line {}) says {}", name, data.size(),
                     in.header_line, in.columns);
}

Attempt parse_sequential(const Phylip& in, bool strict) {
  Attempt out;
  RawAlignment& a = out.alignment;
  const auto& lines = in.lines;
  std::size_t idx = 0;
  std::string name, data;
  for (std::size_t r = 0; r < in.rows; ++r) {
    if (idx == lines.size()) {
      out.failure = Failure{in.header_line, fmt::format("the PHYLIP header declares {} sequences, the file has {}",
                                                        in.rows, r)};
      return out;
    }
    const Line& first = lines[idx++];
    if (auto why = split_name_line(first.text, strict, name, data); !why.empty()) {
      out.failure = Failure{first.number, why};
      return out;
    }
    if (data.size() > in.columns) {
      out.failure = Failure{first.number, length_problem(in, name, data)};
      return out;
    }
    bool continued = false;
    while (data.size() < in.columns && idx < lines.size()) {
      const std::size_t before = data.size();
      append_without_space(data, lines[idx].text);
      if (data.size() > in.columns) {
        out.failure = continued ? Failure{lines[idx].number,
                                          fmt::format("sequence '{}' (line {}) continues here to {} characters, "
                                                      "the PHYLIP header (line {}) says {}",
                                                      name, first.number, data.size(), in.header_line, in.columns)}
                                : Failure{first.number, length_problem(in, name, std::string_view(data).substr(0, before))};
        return out;
      }
      continued = true;
      ++idx;
    }
    if (data.size() < in.columns) {
      out.failure = Failure{first.number, length_problem(in, name, data)};
      return out;
    }
    a.names.push_back(name);
    a.rows.push_back(std::move(data));
    a.name_lines.push_back(first.number);
    data = {};
  }
  if (idx < lines.size()) {
    out.failure = Failure{lines[idx].number,
                          fmt::format("more data after the {} sequences the PHYLIP header (line {}) declares",
                                      in.rows, in.header_line)};
  }
  return out;
}

Attempt parse_interleaved(const Phylip& in, bool strict) {
  Attempt out;
  RawAlignment& a = out.alignment;
  const auto& lines = in.lines;
  const std::size_t n = in.rows;
  if (lines.size() < n) {
    out.failure = Failure{in.header_line, fmt::format("the PHYLIP header declares {} sequences, the file has {}",
                                                      n, lines.size())};
    return out;
  }
  std::string name, data;
  for (std::size_t r = 0; r < n; ++r) {
    if (auto why = split_name_line(lines[r].text, strict, name, data); !why.empty()) {
      out.failure = Failure{lines[r].number, why};
      return out;
    }
    a.names.push_back(name);
    a.rows.push_back(data);
    a.name_lines.push_back(lines[r].number);
  }
  bool blank_separated = false;
  for (std::size_t i = n; i < lines.size() && !blank_separated; ++i) blank_separated = lines[i].blank_before;
  if (blank_separated) {
    for (std::size_t r = 1; r < n; ++r) {
      if (lines[r].blank_before) {
        out.failure = Failure{lines[r].number, fmt::format("the first block ends after {} lines, the PHYLIP header "
                                                           "(line {}) declares {} sequences",
                                                           r, in.header_line, n)};
        return out;
      }
    }
    std::size_t i = n;
    while (i < lines.size()) {
      std::size_t start = i;
      std::size_t k = 0;
      do {
        append_without_space(a.rows[k], lines[i].text);
        ++k;
        ++i;
      } while (i < lines.size() && !lines[i].blank_before && k < n);
      if (k != n || (i < lines.size() && !lines[i].blank_before)) {
        std::size_t count = k;
        while (i < lines.size() && !lines[i].blank_before) ++i, ++count;
        out.failure = Failure{lines[start].number,
                              fmt::format("interleaved block has {} lines, expected {} (one per sequence)", count, n)};
        return out;
      }
    }
  } else {
    for (std::size_t i = n; i < lines.size(); ++i) append_without_space(a.rows[(i - n) % n], lines[i].text);
    if ((lines.size() - n) % n != 0) {
      std::size_t block_start = n + (lines.size() - n) / n * n;
      out.failure = Failure{lines[block_start].number,
                            fmt::format("last interleaved block has {} lines, expected {} (one per sequence)",
                                        (lines.size() - n) % n, n)};
      return out;
    }
  }
  for (std::size_t r = 0; r < n; ++r) {
    if (a.rows[r].size() != in.columns) {
      out.failure = Failure{a.name_lines[r], length_problem(in, a.names[r], a.rows[r])};
      return out;
    }
  }
  return out;
}

// Whether the file looks interleaved (for choosing which error to report).
bool looks_interleaved(const Phylip& in) {
  const auto& lines = in.lines;
  if (lines.size() <= in.rows) return false;
  if (lines[in.rows].blank_before) return true;
  if (in.rows < 2) return false;
  std::string name, data;
  std::size_t common = 0;
  for (std::size_t r = 0; r < in.rows; ++r) {
    split_name_line(lines[r].text, false, name, data);
    if (data.empty() || data.size() >= in.columns) return false;
    if (r == 0) common = data.size();
    if (data.size() != common) return false;
  }
  return true;
}

bool parse_count(std::string_view token, std::size_t& value) {
  if (token.empty()) return false;
  for (char c : token)
    if (c < '0' || c > '9') return false;
  auto [p, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
  return ec == std::errc() && p == token.data() + token.size() && value > 0;
}

RawAlignment read_phylip(LineReader& reader, std::string_view header) {
  Phylip in;
  in.file = reader.name();
  in.header_line = reader.line_number();
  {
    std::string_view t = trim(header);
    std::size_t a_end = 0;
    while (a_end < t.size() && !is_space(t[a_end])) ++a_end;
    std::string_view first = t.substr(0, a_end);
    std::string_view second = trim(t.substr(a_end));
    if (!parse_count(first, in.rows) || !parse_count(second, in.columns))
      throw InputError(in.file, in.header_line,
                       fmt::format("malformed PHYLIP header '{}': expected two positive integers "
                                   "(number of sequences, number of columns)",
                                   excerpt(t)));
  }
  std::string_view line;
  bool blank = false;
  while (reader.next(line)) {
    if (trim(line).empty()) {
      blank = true;
      continue;
    }
    in.lines.push_back(Line{reader.line_number(), blank, std::string(line)});
    blank = false;
  }
  if (in.lines.empty())
    throw InputError(in.file, in.header_line,
                     fmt::format("the PHYLIP header declares {} sequences, the file has none", in.rows));

  std::optional<Failure> reported;
  for (bool strict : {false, true}) {
    const bool interleaved_first = looks_interleaved(in);
    Attempt tries[2] = {interleaved_first ? parse_interleaved(in, strict) : parse_sequential(in, strict), {}};
    if (!tries[0].failure) return std::move(tries[0].alignment);
    tries[1] = interleaved_first ? parse_sequential(in, strict) : parse_interleaved(in, strict);
    if (!tries[1].failure) return std::move(tries[1].alignment);
    if (!strict) reported = tries[0].failure;
  }
  throw InputError(in.file, reported->line, reported->problem);
}

// ---------------------------------------------------------------------------------------------------
// FASTA

RawAlignment read_fasta(LineReader& reader, std::string_view first_header) {
  RawAlignment a;
  const std::string& file = reader.name();
  auto start_row = [&](std::string_view header) {
    std::string name = normalize_sequence_name(header.substr(1));
    if (name.empty()) throw InputError(file, reader.line_number(), "empty sequence name", 1);
    a.names.push_back(std::move(name));
    a.name_lines.push_back(reader.line_number());
    a.rows.emplace_back();
  };
  auto finish_row = [&]() {
    const std::size_t i = a.rows.size() - 1;
    if (i > 0 && a.rows[i].size() != a.rows[0].size())
      throw InputError(file, a.name_lines[i],
                       fmt::format("sequence '{}' has {} characters, the first sequence '{}' (line {}) has {}",
                                   a.names[i], a.rows[i].size(), a.names[0], a.name_lines[0], a.rows[0].size()));
  };
  start_row(first_header);
  std::string_view line;
  while (reader.next(line)) {
    std::string_view t = trim(line);
    if (!t.empty() && t.front() == '>') {
      finish_row();
      start_row(t);
    } else {
      append_without_space(a.rows.back(), t);
    }
  }
  finish_row();
  if (a.rows.front().empty())
    throw InputError(file, a.name_lines.front(), "alignment rows are empty (no residues)");
  return a;
}

}  // namespace

RawAlignment read_alignment(const std::string& path) {
  LineReader reader(path);
  std::string_view line;
  std::string_view t;
  while (reader.next(line)) {
    t = trim(line);
    if (!t.empty()) break;
  }
  if (t.empty()) throw InputError(reader.name(), "empty file");
  RawAlignment a;
  if (t.front() == '>') {
    a = read_fasta(reader, t);
  } else if (t.front() >= '0' && t.front() <= '9') {
    std::string header(t);
    a = read_phylip(reader, header);
  } else if (t.front() == '@') {
    throw InputError(reader.name(), reader.line_number(), "looks like FASTQ, expected a PHYLIP or FASTA alignment");
  } else {
    throw InputError(reader.name(), reader.line_number(),
                     fmt::format("not a PHYLIP or FASTA alignment (expected a 'sequences columns' header or '>', "
                                 "found '{}')",
                                 excerpt(t)));
  }
  check_duplicates(reader.name(), a);
  return a;
}

}  // namespace hyalign
