// Saving never leaves a half-written file (io/atomic_file.h): a kill -9 in the middle of a save, a full
// disk (a small tmpfs, /dev/full) and a missing folder leave the previous file as it was and give one
// clear error naming the file; no temporary is left behind.
#include <gtest/gtest.h>

#include <signal.h>
#include <spawn.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <thread>

#include "io/atomic_file.h"
#include "test_support.h"

extern char** environ;

using namespace awb;
namespace fs = std::filesystem;

namespace {

fs::path fresh_dir(const std::string& name) { return test::fresh_dir("atomic_" + name); }

std::string read_all(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

size_t temporaries_in(const fs::path& dir) {
    size_t n = 0;
    for (const auto& e : fs::directory_iterator(dir)) {
        const std::string name = e.path().filename().string();
        n += name.size() > 4 && name.compare(name.size() - 4, 4, ".tmp") == 0 ? 1 : 0;
    }
    return n;
}

std::string error_of(const std::function<void()>& write) {
    try {
        write();
    } catch (const std::runtime_error& e) {
        return e.what();
    }
    return "no error";
}

}  // namespace

TEST(AtomicFile, ReplacesTheWholeFileAndLeavesNoTemporary) {
    const fs::path dir = fresh_dir("replace");
    const fs::path path = dir / "r.json";
    write_text_file(path.string(), "first, and longer than the second");
    write_text_file(path.string(), "second");
    EXPECT_EQ(read_all(path), "second");
    EXPECT_EQ(temporaries_in(dir), 0u);
    // Through a symbolic link the link's target is replaced and the link stays a link.
    fs::create_symlink(path, dir / "link.json");
    write_text_file((dir / "link.json").string(), "third");
    EXPECT_TRUE(fs::is_symlink(dir / "link.json"));
    EXPECT_EQ(read_all(path), "third");
    EXPECT_EQ(temporaries_in(dir), 0u);
}

TEST(AtomicFile, GzPathsRoundTrip) {
    const fs::path dir = fresh_dir("gz");
    std::string text;
    for (int i = 0; i < 200000; ++i) text += std::to_string(i) + ",";
    write_text_file((dir / "t.json.gz").string(), text);
    gzFile in = gzopen((dir / "t.json.gz").c_str(), "rb");
    ASSERT_NE(in, nullptr);
    std::string back(text.size() + 16, '\0');
    const int n = gzread(in, back.data(), unsigned(back.size()));
    gzclose(in);
    ASSERT_EQ(n, int(text.size()));
    back.resize(size_t(n));
    EXPECT_EQ(back, text);
    EXPECT_EQ(gzip_bytes("").size(), 20u);  // an empty member: header and trailer only
}

TEST(AtomicFile, DevFullGivesOneClearError) {
    const std::string e = error_of([] { write_text_file("/dev/full", "{}"); });
    EXPECT_NE(e.find("cannot write '/dev/full'"), std::string::npos) << e;
    EXPECT_NE(e.find("No space left on device (the disk is full)"), std::string::npos) << e;
    EXPECT_TRUE(fs::is_character_file("/dev/full"));  // written in place, never replaced
}

TEST(AtomicFile, MissingFolderIsNamed) {
    const std::string e = error_of([] { write_text_file("/nonexistent-awb-folder/x.json", "{}"); });
    EXPECT_NE(e.find("'/nonexistent-awb-folder/x.json'"), std::string::npos) << e;
    EXPECT_NE(e.find("No such file or directory"), std::string::npos) << e;
}

// A 256 KiB tmpfs: mounting needs root (CI and this project's machines run as root).
TEST(AtomicFile, FullDiskKeepsThePreviousFile) {
    const fs::path dir = fresh_dir("full");
    if (::mount("tmpfs", dir.c_str(), "tmpfs", 0, "size=256k") != 0)
        GTEST_SKIP() << "cannot mount a small tmpfs here (" << std::strerror(errno) << "): needs root";
    const fs::path path = dir / "sweep.json";
    const std::string previous(100 * 1024, 'p');
    write_text_file(path.string(), previous);
    const std::string e = error_of([&] { write_text_file(path.string(), std::string(200 * 1024, 'n')); });
    EXPECT_NE(e.find("cannot write '" + path.string() + "'"), std::string::npos) << e;
    EXPECT_NE(e.find("No space left on device (the disk is full); the previous file is unchanged"), std::string::npos)
        << e;
    EXPECT_EQ(read_all(path), previous);
    EXPECT_EQ(temporaries_in(dir), 0u);
    // The space the failed save took is given back: a save that fits still succeeds.
    write_text_file(path.string(), "{}");
    EXPECT_EQ(read_all(path), "{}");
    ::umount(dir.c_str());
}

// kill -9 at random instants of a process that saves a 16 MiB file over and over: each time the file is
// the previous one or one whole save, never a mix or a truncation. A temporary left by a killed save
// is proof the kill landed mid-save; the next save removes such orphans.
TEST(AtomicFile, KillNineMidSaveLeavesThePreviousOrTheNewFile) {
    const fs::path dir = fresh_dir("kill");
    const fs::path path = dir / "report.json";
    const size_t bytes = 16u << 20;
    write_text_file(path.string(), std::string(bytes, 'O'));
    int orphans_seen = 0;
    std::vector<char> letters;
    // Kills at growing delays, at least 8 rounds, until one landed during a save and one after a save
    // completed (a sanitized writer starts and writes several times slower).
    for (int round = 0;
         round < 8 ||
         ((orphans_seen == 0 || std::count(letters.begin(), letters.end(), 'O') == long(letters.size())) && round < 40);
         ++round) {
        pid_t pid = 0;
        std::string exe = AWB_WRITE_LOOP, p = path.string(), n = std::to_string(bytes);
        char* argv[] = {exe.data(), p.data(), n.data(), nullptr};
        ASSERT_EQ(posix_spawn(&pid, exe.c_str(), nullptr, nullptr, argv, environ), 0);
        std::this_thread::sleep_for(std::chrono::milliseconds(30 + 37 * round));
        ::kill(pid, SIGKILL);
        int status = 0;
        ::waitpid(pid, &status, 0);
        ASSERT_TRUE(WIFSIGNALED(status)) << "the writer ended by itself (status " << status << ")";
        const std::string now = read_all(path);
        ASSERT_EQ(now.size(), bytes) << "round " << round << ": the file is cut";
        ASSERT_TRUE(now.find_first_not_of(now[0]) == std::string::npos) << "round " << round << ": two saves mixed";
        letters.push_back(now[0]);
        orphans_seen += temporaries_in(dir) > 0 ? 1 : 0;
    }
    EXPECT_GT(orphans_seen, 0) << "no kill landed during a save";
    EXPECT_NE(std::count(letters.begin(), letters.end(), 'O'), long(letters.size())) << "no save ever completed";
    write_text_file(path.string(), "{}");
    EXPECT_EQ(temporaries_in(dir), 0u);
}
