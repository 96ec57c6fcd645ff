#include "io/spooled_input.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "io/atomic_file.h"

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
    std::error_code ec;
    const std::filesystem::path folder = std::filesystem::temp_directory_path(ec);  // $TMPDIR or /tmp
    if (ec) {
        ::close(in);
        throw spool_error(path, "no temporary folder for its copy: " + ec.message());
    }
    std::string name = (folder / "attnwb-pipe-XXXXXX").string();
    const int out = ::mkstemp(name.data());
    if (out < 0) {
        const int e = errno;
        ::close(in);
        throw spool_error(path, "no temporary file for its copy: " + reason_of(e));
    }
    // Both closed when the copy ends; the copy removed unless it is whole (a failure, a Cancelled).
    struct Copying {
        int in, out;
        const std::string& name;
        bool whole = false;
        ~Copying() {
            ::close(in);
            ::close(out);
            if (!whole) ::unlink(name.c_str());
        }
    } copying{in, out, name};
    std::vector<char> buf(size_t(1) << 20);
    for (;;) {
        throw_if_cancelled(observer);
        const ssize_t n = ::read(in, buf.data(), buf.size());
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) throw spool_error(path, std::strerror(errno));
        if (n == 0) break;
        if (const int err = write_all(out, std::string_view(buf.data(), size_t(n))))
            throw spool_error(path, "copying it to " + name + ": " + reason_of(err));
    }
    copying.whole = true;
    copy_ = name;
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
