// The fuzz targets' inputs as files: each input is written to an in-memory file (memfd) and read back
// through its /proc/self/fd path, exactly as a file on disk would be (plain or gzip, through the same
// readers). One memfd per MemFile for the whole process, rewritten per input.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace awb::fuzz {

class MemFile {
public:
    explicit MemFile(const char* name) : fd_(memfd_create(name, MFD_CLOEXEC)) {
        if (fd_ < 0) {
            std::perror("memfd_create");
            std::abort();
        }
        path_ = "/proc/self/fd/" + std::to_string(fd_);
    }
    const std::string& path() const { return path_; }
    void write(const uint8_t* data, size_t size) const {
        if (ftruncate(fd_, 0) != 0) std::abort();
        size_t done = 0;
        while (done < size) {
            const ssize_t n = pwrite(fd_, data + done, size - done, off_t(done));
            if (n <= 0) std::abort();
            done += size_t(n);
        }
    }

private:
    int fd_;
    std::string path_;
};

// One input holding several files: the parts between NULs, at most `most` of them (the last part
// keeps the rest of the input, NULs included). An input without a NUL is one part.
struct Part {
    const uint8_t* data;
    size_t size;
};
inline std::vector<Part> split_at_nuls(const uint8_t* data, size_t size, size_t most) {
    std::vector<Part> parts;
    size_t start = 0;
    while (parts.size() + 1 < most) {
        const void* nul = std::memchr(data + start, 0, size - start);
        if (!nul) break;
        const size_t end = size_t(static_cast<const uint8_t*>(nul) - data);
        parts.push_back({data + start, end - start});
        start = end + 1;
    }
    parts.push_back({data + start, size - start});
    return parts;
}

}  // namespace awb::fuzz
