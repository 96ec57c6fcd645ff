#include "io/trace_input.h"

#include "model/run_observer.h"

#include <sys/stat.h>

#include <algorithm>

namespace awb::trace_io {

void fail(const std::string& what, int64_t offset) {
    throw ReadError{what + " (byte offset " + std::to_string(offset) + ")"};
}

TraceInput::TraceInput(const std::string& path) : file_(gzopen(path.c_str(), "rb")) {
    if (file_) gzbuffer(file_, 1 << 18);
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) file_size_ = int64_t(st.st_size);
}

TraceInput::~TraceInput() {
    if (file_) gzclose(file_);
}

bool TraceInput::fill() {
    if (eof_) return false;
    if (pos > 0) {
        buf_.erase(0, pos);
        base_ += int64_t(pos);
        pos = 0;
    }
    const size_t old = buf_.size();
    // Small first reads (a small file costs little), then chunks; never less than what is pending.
    const size_t want = std::max(std::min(kChunk, size_t(64) << 10 << std::min(reads_++, 6)), old);
    buf_.resize(old + want);
    size_t got = 0;
    while (got < want) {
        const unsigned slice = unsigned(std::min<size_t>(want - got, size_t(1) << 30));
        const int n = gzread(file_, buf_.data() + old + got, slice);
        if (n < 0) {
            buf_.resize(old + got);
            int code = 0;
            const char* msg = gzerror(file_, &code);
            fail(std::string("the gzip stream is damaged: ") + msg, consumed());
        }
        if (n == 0) break;
        got += size_t(n);
    }
    buf_.resize(old + got);
    if (got == 0) {
        eof_ = true;
        int code = 0;
        const char* msg = gzerror(file_, &code);
        if (code != Z_OK && code != Z_STREAM_END) fail(std::string("the gzip stream is damaged: ") + msg, consumed());
        return false;
    }
    return true;
}

void FileProgress::report(RunObserver* observer, int64_t position, int64_t file_size) {
    if (!observer) return;
    const int done = int(position >> 20), total = int(file_size >> 20);
    const int64_t percent = file_size > 0 ? position * 100 / file_size : 0;
    if (total >= 16 && percent != reported_percent_) {  // small files read in a blink: no progress lines
        reported_percent_ = percent;
        observer->on_progress(done, std::max(total, done),
                              "read " + std::to_string(done) + " of " + std::to_string(total) + " MiB");
    }
    throw_if_cancelled(observer);
}

}  // namespace awb::trace_io
