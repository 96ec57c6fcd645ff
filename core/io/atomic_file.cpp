#include "io/atomic_file.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>

namespace awb {

namespace fs = std::filesystem;

std::string reason_of(int err) {
    std::string why = std::strerror(err);
    if (err == ENOSPC || err == EDQUOT) why += " (the disk is full)";
    return why;
}

int write_all(int fd, std::string_view bytes) {
    size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.data() + done, std::min<size_t>(bytes.size() - done, size_t(1) << 30));
        if (n < 0) {
            if (errno == EINTR) continue;
            return errno;
        }
        if (n == 0) return EIO;
        done += size_t(n);
    }
    return 0;
}

namespace {

[[noreturn]] void fail(const std::string& path, const std::string& why, bool previous_kept) {
    throw std::runtime_error("cannot write '" + path + "': " + why +
                             (previous_kept ? "; the previous file is unchanged" : ""));
}

void write_in_place(const std::string& path, std::string_view bytes) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd < 0) fail(path, reason_of(errno), false);
    int err = write_all(fd, bytes);
    if (::close(fd) != 0 && err == 0) err = errno;
    if (err != 0) fail(path, reason_of(err), false);
}

// ".NAME.PID-N.tmp": the pid says whether the process that wrote it still lives.
std::string temp_prefix(const fs::path& target) { return "." + target.filename().string() + "."; }

// Removes temporaries of target left by processes that no longer exist (killed while saving).
void remove_orphans(const fs::path& target) {
    const std::string prefix = temp_prefix(target);
    std::error_code ec;
    const fs::path folder = target.has_parent_path() ? target.parent_path() : fs::path(".");
    for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name.size() <= prefix.size() + 4 || name.compare(0, prefix.size(), prefix) != 0 ||
            name.compare(name.size() - 4, 4, ".tmp") != 0)
            continue;
        const std::string rest = name.substr(prefix.size());
        char* stop = nullptr;
        const long pid = std::strtol(rest.c_str(), &stop, 10);
        if (pid <= 0 || stop == rest.c_str() || *stop != '-') continue;
        if (pid == long(::getpid())) continue;  // another thread of ours may be writing it now
        if (::kill(pid_t(pid), 0) != 0 && errno == ESRCH) fs::remove(it->path(), ec);
    }
}

}  // namespace

void write_file_atomically(const std::string& path, std::string_view bytes) {
    if (path.empty()) throw std::runtime_error("cannot write a file with an empty name");
    fs::path target(path);
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) {
        if (!S_ISREG(st.st_mode)) return write_in_place(path, bytes);
        std::error_code ec;
        if (fs::is_symlink(target, ec)) target = fs::canonical(target, ec);
        if (ec) fail(path, ec.message(), true);
    }
    static std::atomic<unsigned> serial{0};
    const fs::path temp = target.parent_path() /
                          (temp_prefix(target) + std::to_string(::getpid()) + "-" + std::to_string(serial++) + ".tmp");
    // O_EXCL: never write into somebody else's file; 0666 less the umask, like any file we create.
    const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0) fail(path, reason_of(errno), true);
    int err = write_all(fd, bytes);
    if (err == 0 && ::fsync(fd) != 0 && errno != EINVAL) err = errno;  // EINVAL: a file system without fsync
    if (::close(fd) != 0 && err == 0) err = errno;
    if (err == 0 && ::rename(temp.c_str(), target.c_str()) != 0) err = errno;
    if (err != 0) {
        ::unlink(temp.c_str());
        fail(path, reason_of(err), true);
    }
    // The rename itself reaches the disk with the folder's entry.
    const fs::path folder = target.has_parent_path() ? target.parent_path() : fs::path(".");
    if (const int dir = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dir >= 0) {
        ::fsync(dir);
        ::close(dir);
    }
    remove_orphans(target);
}

std::string gzip_bytes(std::string_view bytes) {
    z_stream z{};
    if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        throw std::runtime_error("gzip: cannot start the compressor");
    std::string out;
    out.resize(deflateBound(&z, uLong(std::min<size_t>(bytes.size(), size_t(1) << 30))) + 64);
    size_t in_done = 0;
    int rc = Z_OK;
    while (rc != Z_STREAM_END) {
        const size_t slice = std::min<size_t>(bytes.size() - in_done, size_t(1) << 30);  // zlib counts are 32-bit
        z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data() + in_done));
        z.avail_in = uInt(slice);
        const bool last = in_done + slice == bytes.size();
        do {
            if (z.total_out == out.size()) out.resize(out.size() * 2);
            z.next_out = reinterpret_cast<Bytef*>(out.data() + z.total_out);
            z.avail_out = uInt(std::min<size_t>(out.size() - z.total_out, size_t(1) << 30));
            rc = deflate(&z, last ? Z_FINISH : Z_NO_FLUSH);
            if (rc == Z_STREAM_ERROR) {
                deflateEnd(&z);
                throw std::runtime_error("gzip: compression failed");
            }
        } while (z.avail_out == 0 || (last && rc != Z_STREAM_END));
        in_done += slice - z.avail_in;
    }
    out.resize(z.total_out);
    deflateEnd(&z);
    return out;
}

void write_text_file(const std::string& path, const std::string& text) {
    const bool gz = path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
    if (gz) return write_file_atomically(path, gzip_bytes(text));
    write_file_atomically(path, text);
}

}  // namespace awb
