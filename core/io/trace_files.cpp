#include "io/trace_files.h"

#include <glob.h>
#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <filesystem>

#include "io/trace_import.h"

namespace awb {

bool is_trace_glob(const std::string& path) {
    std::error_code ec;
    return path.find_first_of("*?[") != std::string::npos && !std::filesystem::exists(path, ec);
}

namespace {

std::vector<std::string> glob_files(const std::string& pattern) {
    glob_t matched{};
    std::vector<std::string> out;
    if (::glob(pattern.c_str(), 0, nullptr, &matched) == 0)
        for (size_t i = 0; i < matched.gl_pathc; ++i)
            if (std::error_code ec; std::filesystem::is_regular_file(matched.gl_pathv[i], ec))
                out.push_back(matched.gl_pathv[i]);
    ::globfree(&matched);
    if (out.empty()) throw TraceImportError("no file matches '" + pattern + "'");
    return out;  // glob sorts them
}

}  // namespace

std::vector<std::string> trace_files_of(const std::string& path) {
    std::error_code ec;
    if (is_trace_glob(path)) return glob_files(path);
    if (!std::filesystem::is_directory(path, ec)) return {path};
    std::vector<std::string> out;
    for (const auto& entry : std::filesystem::directory_iterator(path, ec)) {
        const std::string name = entry.path().filename().string();
        auto ends = [&name](const char* suffix) {
            const size_t n = std::strlen(suffix);
            return name.size() >= n && name.compare(name.size() - n, n, suffix) == 0;
        };
        // vLLM's and SGLang's execution_details.json lists capture files beside them: not a trace.
        if (entry.is_regular_file() && (ends(".json") || ends(".json.gz")) && name != "execution_details.json")
            out.push_back(entry.path().string());
    }
    if (out.empty()) throw TraceImportError("'" + path + "' holds no .json or .json.gz traces");
    std::sort(out.begin(), out.end());
    return out;
}

bool looks_like_chrome_trace(const std::string& path) {
    gzFile f = gzopen(path.c_str(), "rb");
    if (!f) return false;
    std::string head(64 * 1024, '\0');
    const int n = gzread(f, head.data(), unsigned(head.size()));
    gzclose(f);
    head.resize(size_t(std::max(n, 0)));
    const size_t first = head.find_first_not_of(" \t\r\n");
    if (first == std::string::npos) return false;
    return head[first] == '[' || head.find("\"traceEvents\"") != std::string::npos;
}

}  // namespace awb
