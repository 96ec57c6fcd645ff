#include "io/spooled_input.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>
#include <fcntl.h>

namespace awb {

namespace {

std::runtime_error spool_error(const std::string& path, const std::string& why) {
    return std::runtime_error("cannot read '" + path + "': " + why);
}

}  // namespace

SpooledInput::SpooledInput(const std::string& path, const RunObserver* observer) : original_(path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)) return;  // read in place
    const int in = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (in < 0) throw spool_error(path, std::strerror(errno));
    std::string name = (std::filesystem::temp_directory_path() / "attnwb-pipe-XXXXXX").string();
    const int out = ::mkstemp(name.data());
    if (out < 0) {
        const int e = errno;
        ::close(in);
        throw spool_error(path, std::string("no temporary file for its copy: ") + std::strerror(e));
    }
    copy_ = name;
    std::vector<char> buf(size_t(1) << 20);
    std::string failure;
    try {
        for (;;) {
            throw_if_cancelled(observer);
            const ssize_t n = ::read(in, buf.data(), buf.size());
            if (n == 0) break;
            if (n < 0) {
                if (errno == EINTR) continue;
                failure = std::strerror(errno);
                break;
            }
            for (ssize_t done = 0; done < n;) {
                const ssize_t w = ::write(out, buf.data() + done, size_t(n - done));
                if (w < 0 && errno == EINTR) continue;
                if (w < 0) {
                    failure = std::string("copying it to ") + copy_ + ": " + std::strerror(errno);
                    break;
                }
                done += w;
            }
            if (!failure.empty()) break;
        }
    } catch (...) {
        ::close(in);
        ::close(out);
        ::unlink(copy_.c_str());
        throw;
    }
    ::close(in);
    ::close(out);
    if (!failure.empty()) {
        ::unlink(copy_.c_str());
        throw spool_error(path, failure);
    }
}

SpooledInput::~SpooledInput() {
    if (spooled()) ::unlink(copy_.c_str());
}

std::string SpooledInput::named(std::string message) const {
    if (!spooled()) return message;
    for (size_t at = message.find(copy_); at != std::string::npos; at = message.find(copy_, at + original_.size()))
        message.replace(at, copy_.size(), original_);
    return message;
}

}  // namespace awb
