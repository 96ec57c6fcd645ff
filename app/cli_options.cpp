#include "cli_options.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "analysis/op_table.h"

namespace awb::cli {

CLI::Option* add_json_option(CLI::App& sub, std::string& path, const std::string& what, const std::string& schema) {
    return sub.add_option("--json", path, "Write " + what + " as JSON (schema attention-workbench/" + schema + ")");
}

CLI::Option* add_report_option(CLI::App& sub, std::string& path) {
    return sub.add_option("--report", path,
                          "Write a self-contained HTML report (environment, spec, checklist, findings, tables, charts)");
}

CLI::Option* add_rows_option(CLI::App& sub, std::size_t& rows, const std::string& help) {
    return sub.add_option("--rows", rows, help)->capture_default_str();
}

CLI::Option* add_sort_option(CLI::App& sub, std::string& key, const std::string& default_text) {
    return sub.add_option("--sort", key, "Sort key: " + sort_key_names() + "; " + default_text);
}

CLI::Option* add_quiet_option(CLI::App& sub, bool& quiet) { return sub.add_flag("--quiet,-q", quiet, "No progress on stderr"); }

std::optional<SpecProblem> unwritable_output(const std::string& field, const std::string& path) {
    const auto slash = path.rfind('/');
    const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
    if (::access(dir.c_str(), W_OK) == 0) return std::nullopt;
    return SpecProblem{field, "cannot write '" + path + "': folder '" + dir + "': " + std::strerror(errno)};
}

}  // namespace awb::cli
