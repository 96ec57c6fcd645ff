// The fuzz targets' inputs as files: each input is written to an in-memory file (memfd) and read back
// through its /proc/self/fd path, exactly as a file on disk would be (plain or gzip, through the same
// readers). One memfd per MemFile for the whole process, rewritten per input.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

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

}  // namespace awb::fuzz
