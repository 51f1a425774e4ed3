#include "io/sam_writer.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string>

#include <htslib/hfile.h>

#include "core/error.hpp"
#include "io/atomic_output.hpp"

namespace hyalign {
namespace {

bool ends_with(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

}  // namespace

struct SamWriter::Impl {
  AtomicOutput output;
  sam_hdr_t* header = nullptr;
  htsFile* bam = nullptr;  // only for BAM output
  explicit Impl(const std::string& path) : output(path) {}
  ~Impl() {
    if (bam != nullptr) sam_close(bam);
    if (header != nullptr) sam_hdr_destroy(header);
  }
};

SamWriter::SamWriter(const std::string& path, const std::string& header, unsigned threads, int bam_level)
    : impl_(std::make_unique<Impl>(path)) {
  impl_->header = sam_hdr_parse(header.size(), header.c_str());
  if (impl_->header == nullptr) throw UsageError("the SAM header is malformed (check -R)");
  if (!ends_with(path, ".bam")) {
    impl_->output.write(header);
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

const sam_hdr_t* SamWriter::header() const { return impl_->header; }
bool SamWriter::binary() const { return impl_->bam != nullptr; }

void SamWriter::write_text(std::string_view lines) { impl_->output.write(lines); }

void SamWriter::write_records(bam1_t* const* records, std::size_t count) {
  for (std::size_t k = 0; k < count; ++k)
    if (sam_write1(impl_->bam, impl_->header, records[k]) < 0) throw OutputError(impl_->output.path(), errno);
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
