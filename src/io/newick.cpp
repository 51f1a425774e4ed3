#include "io/newick.hpp"

#include <charconv>
#include <cmath>

#include <tuple>

#include <fmt/format.h>

#include "core/error.hpp"
#include "io/sequence_reader.hpp"

namespace hyalign {

namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'; }

// Characters that end an unquoted label or number.
bool is_delimiter(char c) {
  return is_space(c) || c == '(' || c == ')' || c == '[' || c == ']' || c == '\'' || c == ',' || c == ':' ||
         c == ';';
}

std::string shown(char c) {
  auto u = static_cast<unsigned char>(c);
  if (u < 0x20 || u == 0x7f) return fmt::format("byte 0x{:02x}", unsigned(u));
  return fmt::format("'{}'", c);
}

class Parser {
 public:
  Parser(std::string_view text, std::string_view source) : text_(text), source_(source) {}

  NewickTree parse() {
    skip();
    if (pos_ >= text_.size()) fail(text_.size(), "empty input: no Newick tree");
    NewickTree tree;
    auto& nodes = tree.nodes;
    struct Open {
      int node;
      std::size_t offset;  // of its '('
    };
    std::vector<Open> open;
    auto new_node = [&]() {
      int id = static_cast<int>(nodes.size());
      nodes.emplace_back();
      if (!open.empty()) {
        nodes[id].parent = open.back().node;
        nodes[open.back().node].children.push_back(id);
      }
      return id;
    };

    for (;;) {
      // Expecting the start of a node.
      skip();
      if (pos_ >= text_.size()) fail_end_unclosed(open.empty() ? 0 : open.back().offset, open.size());
      if (text_[pos_] == '(') {
        int id = new_node();
        open.push_back({id, pos_});
        ++pos_;
        continue;
      }
      int node = new_node();
      label_and_length(nodes[node]);

      // After a complete node: ',' starts a sibling, ')' closes the parent, ';' ends the tree.
      for (;;) {
        skip();
        if (pos_ >= text_.size()) {
          if (!open.empty()) fail_end_unclosed(open.back().offset, open.size());
          fail(last_token_end_, "missing ';' at the end of the tree");
        }
        char c = text_[pos_];
        if (c == ',') {
          if (open.empty()) fail(pos_, "',' outside parentheses (several trees or a missing '('?)");
          ++pos_;
          break;
        }
        if (c == ')') {
          if (open.empty()) fail(pos_, "unbalanced parentheses: ')' without a matching '('");
          int closed = open.back().node;
          open.pop_back();
          ++pos_;
          last_token_end_ = pos_;
          label_and_length(nodes[closed]);
          continue;
        }
        if (c == ';') {
          if (!open.empty()) {
            auto [line, column] = position(open.back().offset);
            fail(pos_, fmt::format("unbalanced parentheses: {} '(' not closed (innermost opened at line {}, column {})",
                                   open.size(), line, column));
          }
          ++pos_;
          skip();
          if (pos_ < text_.size()) fail(pos_, fmt::format("unexpected text after ';' (starting with {})", shown(text_[pos_])));
          tree.root = 0;
          return tree;
        }
        fail(pos_, fmt::format("unexpected {} (expected ',', ')' or ';')", shown(c)));
      }
    }
  }

 private:
  std::string_view text_;
  std::string_view source_;
  std::size_t pos_ = 0;
  std::size_t last_token_end_ = 0;
  mutable std::size_t scanned_ = 0, line_ = 1, line_start_ = 0;  // position()'s cursor

  // Line and column of `offset`. Scans on from the last position asked for when that lies before,
  // so asking for each branch length in text order costs one pass over the text.
  std::pair<std::size_t, std::size_t> position(std::size_t offset) const {
    if (offset < scanned_) scanned_ = 0, line_ = 1, line_start_ = 0;
    for (; scanned_ < offset && scanned_ < text_.size(); ++scanned_)
      if (text_[scanned_] == '\n') ++line_, line_start_ = scanned_ + 1;
    return {line_, offset - line_start_ + 1};
  }

  [[noreturn]] void fail(std::size_t offset, std::string_view problem) const {
    auto [line, column] = position(offset);
    throw InputError(source_, line, problem, column);
  }

  [[noreturn]] void fail_end_unclosed(std::size_t open_offset, std::size_t count) const {
    if (count == 0) fail(text_.size(), "unexpected end of input (expected a node)");
    auto [line, column] = position(open_offset);
    fail(last_token_end_, fmt::format("unexpected end of input: {} '(' not closed (innermost opened at line {}, "
                                      "column {}); missing ')' and ';'",
                                      count, line, column));
  }

  // Skips whitespace and [comments].
  void skip() {
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (is_space(c)) {
        ++pos_;
      } else if (c == '[') {
        std::size_t close = text_.find(']', pos_ + 1);
        if (close == std::string_view::npos) fail(pos_, "unterminated comment: '[' without ']'");
        pos_ = close + 1;
      } else {
        break;
      }
    }
  }

  // Optional label (quoted or not), then optional ':' length.
  void label_and_length(NewickNode& node) {
    skip();
    if (pos_ < text_.size() && text_[pos_] == '\'') {
      const std::size_t start = pos_++;
      std::string label;
      for (;;) {
        if (pos_ >= text_.size()) fail(start, "unterminated quoted label: no closing \"'\"");
        char c = text_[pos_++];
        if (c == '\'') {
          if (pos_ < text_.size() && text_[pos_] == '\'') {
            label.push_back('\'');
            ++pos_;
            continue;
          }
          break;
        }
        label.push_back(c);
      }
      node.label = std::move(label);
      last_token_end_ = pos_;
    } else {
      const std::size_t start = pos_;
      while (pos_ < text_.size() && !is_delimiter(text_[pos_])) {
        auto u = static_cast<unsigned char>(text_[pos_]);
        if (u < 0x20 || u == 0x7f) fail(pos_, fmt::format("unexpected {} in a label", shown(text_[pos_])));
        ++pos_;
      }
      node.label.assign(text_.substr(start, pos_ - start));
      if (pos_ > start) last_token_end_ = pos_;
      if (pos_ < text_.size() && text_[pos_] == ']') fail(pos_, "']' without a matching '['");
    }
    skip();
    if (pos_ < text_.size() && text_[pos_] == ':') {
      const std::size_t colon = pos_++;
      skip();
      const std::size_t start = pos_;
      while (pos_ < text_.size() && !is_delimiter(text_[pos_])) ++pos_;
      std::string_view token = text_.substr(start, pos_ - start);
      if (token.empty()) fail(colon, "missing branch length after ':'");
      double value = 0.0;
      std::string_view parse = token;
      if (parse.size() > 1 && parse.front() == '+') parse.remove_prefix(1);  // from_chars rejects '+'
      auto [p, ec] = std::from_chars(parse.data(), parse.data() + parse.size(), value);
      if (ec != std::errc() || p != parse.data() + parse.size() || !std::isfinite(value)) {
        std::string show(token.substr(0, 30));
        for (char& c : show)
          if (static_cast<unsigned char>(c) < 0x20) c = '?';
        fail(start, fmt::format("bad branch length '{}'{}", show, token.size() > 30 ? "..." : ""));
      }
      node.length = value;
      node.has_length = true;
      std::tie(node.length_line, node.length_column) = position(start);
      last_token_end_ = pos_;
    }
  }
};

}  // namespace

NewickTree parse_newick(std::string_view text, std::string_view source) { return Parser(text, source).parse(); }

NewickTree read_newick(const std::string& path) {
  LineReader reader(path);
  std::string text;
  std::string_view line;
  bool any = false;
  while (reader.next(line)) {
    if (reader.line_number() > 1) text.push_back('\n');
    text.append(line);
    for (char c : line)
      if (!is_space(c)) any = true;
  }
  if (!any) throw InputError(reader.name(), "empty file");
  return parse_newick(text, reader.name());
}

}  // namespace hyalign
