#include "io/sam_writer.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>

#include <fmt/format.h>
#include <htslib/hfile.h>
#include <htslib/hts_log.h>

#include "core/error.hpp"
#include "io/atomic_output.hpp"
#include "io/text.hpp"

namespace hyalign {
namespace {

// Reads one record of pack_record's bytes at `at` into `record`; returns where the next starts.
std::size_t unpack_record(std::string_view bytes, std::size_t at, bam1_t* record) {
  std::uint32_t length = 0;
  if (bytes.size() - at < sizeof record->core + sizeof length) throw std::logic_error("a packed BAM record is cut off");
  std::memcpy(&record->core, bytes.data() + at, sizeof record->core);
  std::memcpy(&length, bytes.data() + at + sizeof record->core, sizeof length);
  at += sizeof record->core + sizeof length;
  if (bytes.size() - at < length) throw std::logic_error("a packed BAM record is cut off");
  if (record->m_data < length) {
    auto* grown = static_cast<std::uint8_t*>(std::realloc(record->data, length));
    if (grown == nullptr) throw std::bad_alloc();
    record->data = grown;
    record->m_data = length;
  }
  if (length > 0) std::memcpy(record->data, bytes.data() + at, length);
  record->l_data = static_cast<int>(length);
  return at + length;
}

}  // namespace

SamHeader::SamHeader(std::string text) : text_(std::move(text)) {
  // Every htslib failure is reported in hyalign's one error line; htslib's own lines would add a second.
  hts_set_log_level(HTS_LOG_OFF);
  header_ = sam_hdr_parse(text_.size(), text_.c_str());
  if (header_ == nullptr) throw UsageError("the SAM header is malformed (check -R)");
}

SamHeader::~SamHeader() { sam_hdr_destroy(header_); }

bool is_bam_path(std::string_view path) { return text::ends_with_any_case(path, ".bam"); }

void check_sam_path(std::string_view path) {
  if (text::ends_with_any_case(path, ".cram"))
    throw UsageError(fmt::format("-o {}: the output is SAM, or BAM for a name ending in .bam, not CRAM (samtools "
                                 "view converts SAM and BAM)",
                                 path));
  check_uncompressed_name(path, "SAM, or BAM for a name ending in .bam");
}

void pack_record(const bam1_t* record, std::string& out) {
  const auto length = static_cast<std::uint32_t>(record->l_data);
  out.append(reinterpret_cast<const char*>(&record->core), sizeof record->core);
  out.append(reinterpret_cast<const char*>(&length), sizeof length);
  out.append(reinterpret_cast<const char*>(record->data), length);
}

struct SamWriter::Impl {
  AtomicOutput output;
  const sam_hdr_t* header;
  htsFile* bam = nullptr;     // only for BAM output
  bam1_t* record = nullptr;  // write_packed's, reused
  Impl(const std::string& path, const sam_hdr_t* h) : output(path), header(h) {}
  ~Impl() {
    if (bam != nullptr) sam_close(bam);
    if (record != nullptr) bam_destroy1(record);
  }
};

SamWriter::SamWriter(const std::string& path, const SamHeader& header, unsigned threads, int bam_level)
    : impl_(std::make_unique<Impl>(path, header.get())) {
  if (!is_bam_path(path)) {
    impl_->output.write(header.text());
    return;
  }
  const int fd = dup(impl_->output.descriptor());
  hFILE* file = fd < 0 ? nullptr : hdopen(fd, "w");
  if (file == nullptr) {
    if (fd >= 0) close(fd);
    throw OutputError(path, errno);
  }
  const std::string mode = "wb" + std::to_string(std::clamp(bam_level, 0, 9));
  impl_->bam = hts_hopen(file, path.c_str(), mode.c_str());
  if (impl_->bam == nullptr) {
    hclose_abruptly(file);
    throw OutputError(path, errno);
  }
  if (threads > 1) hts_set_threads(impl_->bam, static_cast<int>(threads));
  if (sam_hdr_write(impl_->bam, impl_->header) != 0) throw OutputError(path, errno);
}

SamWriter::~SamWriter() = default;

bool SamWriter::binary() const { return impl_->bam != nullptr; }

void SamWriter::write_text(std::string_view lines) { impl_->output.write(lines); }

void SamWriter::write_packed(std::string_view records) {
  if (impl_->record == nullptr && (impl_->record = bam_init1()) == nullptr) throw std::bad_alloc();
  for (std::size_t at = 0; at < records.size();) {
    at = unpack_record(records, at, impl_->record);
    if (sam_write1(impl_->bam, impl_->header, impl_->record) < 0) throw OutputError(impl_->output.path(), errno);
  }
}

void SamWriter::commit() {
  if (impl_->bam != nullptr) {
    const int status = sam_close(impl_->bam);
    impl_->bam = nullptr;
    if (status != 0) throw OutputError(impl_->output.path(), errno);
  }
  impl_->output.commit();
}

}  // namespace hyalign
