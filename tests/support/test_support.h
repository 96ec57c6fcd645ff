// Small helpers shared by the core tests.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "io/trace_import.h"
#include "model/run_spec.h"

namespace awb::test {

// A spec that profiles in milliseconds: [1, 2, 64, 16], one thread, train mode.
inline RunSpec small_spec() {
    RunSpec s;
    s.batch = 1;
    s.heads = 2;
    s.kv_heads = 2;
    s.seq_q = s.seq_k = 64;
    s.head_dim = 16;
    s.threads = 1;
    return s;
}

// Fixtures made with the Python torch of the LibTorch these tests were built against (key_averages/,
// peak_memory/): "torch-1.13" for Debian's build, "torch-2.11" for the wheel's.
inline std::string torch_reference(const std::string& kind) {
    return std::string(AWB_FIXTURE_DIR) + "/" + kind + "/torch-" + AWB_TORCH_MAJOR_MINOR;
}

// A fixture under tests/fixtures/traces/ (NAME may have folders: "manual/x.json.gz").
inline std::string trace_fixture(const std::string& name) { return std::string(AWB_FIXTURE_DIR) + "/traces/" + name; }

// A fixture under tests/fixtures/memory_snapshots/.
inline std::string snapshot_fixture(const std::string& name) {
    return std::string(AWB_FIXTURE_DIR) + "/memory_snapshots/" + name;
}

// A new, empty folder TempDir()/awb_NAME (emptied when it exists).
inline std::filesystem::path fresh_dir(const std::string& name) {
    const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / ("awb_" + name);
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    return dir;
}

// The message a file's import fails with, or "no error".
inline std::string import_error(const std::string& path) {
    try {
        import_chrome_trace(path);
    } catch (const TraceImportError& e) {
        return e.what();
    }
    return "no error";
}

}  // namespace awb::test
