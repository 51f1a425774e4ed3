#include <gtest/gtest.h>

#include <htslib/kstring.h>
#include <htslib/sam.h>

#include <random>
#include <stdexcept>
#include <string>

#include "io/sam_tags.hpp"

using namespace hyalign;

namespace {

// An unmapped record with `tags` appended, as SAM text, and its aux bytes; `ours` picks whether the
// tags go through parse_sam_tags + append_sam_tags or through htslib's own SAM parser.
struct Parsed {
  std::string aux, text;
};
Parsed through(const std::string& tags, bool ours) {
  sam_hdr_t* header = sam_hdr_parse(15, "@SQ\tSN:c\tLN:9\n");
  bam1_t* b = bam_init1();
  std::string line = "r\t4\t*\t0\t0\t*\t*\t0\t0\tACGT\tIIII";
  kstring_t text = KS_INITIALIZE;
  if (ours) {
    EXPECT_GE(sam_parse1(&(text = {line.size(), line.size() + 1, line.data()}), header, b), 0);
    append_sam_tags(b, parse_sam_tags(tags));
  } else {
    line += "\t" + tags;
    EXPECT_GE(sam_parse1(&(text = {line.size(), line.size() + 1, line.data()}), header, b), 0);
  }
  text = KS_INITIALIZE;
  EXPECT_GE(sam_format1(header, b, &text), 0);
  Parsed out{std::string(reinterpret_cast<const char*>(bam_get_aux(b)), static_cast<std::size_t>(bam_get_l_aux(b))),
             std::string(text.s, text.l)};
  ks_free(&text);
  bam_destroy1(b);
  sam_hdr_destroy(header);
  return out;
}

// A random valid field of each SAM type.
std::string random_field(std::mt19937& rng, int k) {
  const std::string tag = std::string(1, "ABXYZabxyz"[rng() % 10]) + static_cast<char>('0' + k % 10);
  auto integer = [&](long long low, long long high) {
    return std::to_string(std::uniform_int_distribution<long long>(low, high)(rng));
  };
  switch (rng() % 6) {
    case 0: return tag + ":A:" + static_cast<char>('!' + rng() % 94);
    case 1: {
      const long long bounds[] = {127, 255, 32768, 65535, 2147483647, 4294967295LL};
      const long long b = bounds[rng() % 6];
      return tag + ":i:" + integer(-std::min(b, 2147483648LL), b);
    }
    case 2: return tag + ":f:" + std::to_string(std::uniform_real_distribution<>(-1e6, 1e6)(rng));
    case 3: {
      std::string z;
      for (unsigned n = rng() % 12; n > 0; --n) z += static_cast<char>(' ' + rng() % 95);
      return tag + ":Z:" + z;
    }
    case 4: {
      std::string h;
      for (unsigned n = rng() % 6; n > 0; --n) h += std::string(1, "0123456789ABCDEF"[rng() % 16]) + "0123456789ABCDEF"[rng() % 16];
      return tag + ":H:" + h;
    }
    default: {
      const char types[] = "cCsSiIf";
      const char type = types[rng() % 7];
      const long long low[] = {-128, 0, -32768, 0, -2147483648LL, 0}, high[] = {127, 255, 32767, 65535, 2147483647, 4294967295LL};
      std::string b = tag + ":B:" + type;
      const std::size_t t = std::string_view(types).find(type);
      for (unsigned n = rng() % 5; n > 0; --n) {
        b.push_back(',');
        b.append(type == 'f' ? std::to_string(std::uniform_real_distribution<>(-100, 100)(rng)) : integer(low[t], high[t]));
      }
      return b;
    }
  }
}

}  // namespace

// htslib's SAM parser is the oracle: the same bytes for every type and range, on random fields.
TEST(SamTags, EncodedAsHtslibParsesThem) {
  std::mt19937 rng(5);
  for (int round = 0; round < 2000; ++round) {
    std::string tags;
    for (int k = 0, n = 1 + static_cast<int>(rng() % 4); k < n; ++k) {
      if (k > 0) tags.push_back('\t');
      tags.append(random_field(rng, k));
    }
    const Parsed ours = through(tags, true), htslib = through(tags, false);
    ASSERT_EQ(ours.aux, htslib.aux) << tags;
    ASSERT_EQ(ours.text, htslib.text) << tags;
  }
}

TEST(SamTags, TextWithoutFieldsGivesNone) { EXPECT_TRUE(parse_sam_tags("").empty()); }

TEST(SamTags, MalformedFieldsAreRefusedWithTheField) {
  for (const char* bad : {"BC", "BC:Z", "1C:Z:x", "B_:Z:x", "BC:Q:x", "BCZ:x", "XA:A:", "XA:A:ab", "XA:A: ",
                          "Xi:i:", "Xi:i:1.5", "Xi:i:+", "Xi:i:4294967296", "Xi:i:-2147483649", "Xf:f:inf",
                          "Xf:f:1e", "Xf:f:.", "Xf:f:1.5x", "XH:H:ABC", "XH:H:GG", "XH:H:ab", "XB:B:c,128",
                          "XB:B:q,1", "XB:B:c1", "XB:B:S,-1", "XB:B:f,x", "XB:B:C,", "XB:B:", "1:N:0:ATCACG",
                          "BC:Z:a\t\tRX:Z:b", "BC:Z:a\t", "BC:Z:a\tBC:Z:b"}) {
    try {
      parse_sam_tags(bad);
      ADD_FAILURE() << "accepted: " << bad;
    } catch (const std::invalid_argument& e) {
      const std::string message = e.what();
      EXPECT_FALSE(message.empty()) << bad;
    }
  }
  try {
    parse_sam_tags("BC:Z:ok\tXi:i:12x");
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'Xi:i:12x'"), std::string::npos) << e.what();
  }
}
