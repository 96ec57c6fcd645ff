#include "cli_options.h"

#include "analysis/op_columns.h"

namespace awb::cli {

CLI::Option* add_json_option(CLI::App& sub, std::string& path, const std::string& what, const std::string& schema) {
    return sub.add_option("--json", path, "Write " + what + " as JSON (schema attention-workbench/" + schema + ")");
}

CLI::Option* add_report_option(CLI::App& sub, std::string& path) {
    return sub.add_option(
        "--report", path,
        "Write a self-contained HTML report (environment, spec, checklist, findings, tables, charts)");
}

CLI::Option* add_rows_option(CLI::App& sub, std::size_t& rows, const std::string& help) {
    return sub.add_option("--rows", rows, help)->capture_default_str();
}

CLI::Option* add_sort_option(CLI::App& sub, std::string& key, const std::string& default_text) {
    return sub.add_option("--sort", key, "Sort key: " + sort_key_names() + "; " + default_text);
}

CLI::Option* add_quiet_option(CLI::App& sub, bool& quiet) {
    return sub.add_flag("--quiet,-q", quiet, "No progress on stderr");
}

}  // namespace awb::cli
