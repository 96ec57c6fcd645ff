// Stage 1 of the trace importer, the input: a file (plain or gzip; zlib reads both) inflated as it is
// read, in a buffer that keeps the bytes from `pos` on, never the whole file. Offsets are of the
// uncompressed stream; errors carry the offset where they were found.
#pragma once

#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace awb {
class RunObserver;
}

namespace awb::trace_io {

// A file's reading told to an observer (may be null): "read X of Y MiB" once per percent of a file of
// 16 MiB or more (a report per buffer would be hundreds a second, each a repaint of the GUI's status
// bar), then the cancel poll (Cancelled).
class FileProgress {
public:
    void report(RunObserver* observer, int64_t position, int64_t file_size);

private:
    int64_t reported_percent_ = -1;
};

inline constexpr size_t kChunk = size_t(2) << 20;  // bytes inflated per read, at most

// A problem found while reading, with the uncompressed byte offset it was found at; import_chrome_trace
// turns it into a TraceImportError naming the file.
struct ReadError {
    std::string what;
};
[[noreturn]] void fail(const std::string& what, int64_t offset);

class TraceInput {
public:
    explicit TraceInput(const std::string& path);  // ok() is false when the file cannot be opened
    ~TraceInput();
    TraceInput(const TraceInput&) = delete;
    TraceInput& operator=(const TraceInput&) = delete;

    bool ok() const { return file_ != nullptr; }
    const char* data() const { return buf_.data(); }
    size_t size() const { return buf_.size(); }
    int64_t offset(size_t p) const { return base_ + int64_t(p); }
    int64_t consumed() const { return base_ + int64_t(buf_.size()); }
    int64_t file_size() const { return file_size_; }
    int64_t file_position() { return file_ ? int64_t(gzoffset(file_)) : 0; }

    size_t pos = 0;

    // Reads more, keeping [pos, size); false at the end of the input. Reads at least as much as is
    // pending, so a value far larger than a chunk is scanned a logarithmic number of times.
    bool fill();

private:
    gzFile file_;
    std::string buf_;
    int64_t base_ = 0;
    int64_t file_size_ = 0;
    int reads_ = 0;
    bool eof_ = false;
};

}  // namespace awb::trace_io
