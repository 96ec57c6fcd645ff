// Options several attnwb subcommands share, registered in one place so that each has one name, one
// help text and one behaviour everywhere. Each returns the option, so a caller can put it in a group.
#pragma once

#include <CLI/CLI.hpp>

#include <cstddef>
#include <string>

namespace awb::cli {

// --json FILE: "Write <what> as JSON (schema attention-workbench/<schema>)".
CLI::Option* add_json_option(CLI::App& sub, std::string& path, const std::string& what, const std::string& schema);
// --report FILE: the self-contained HTML report.
CLI::Option* add_report_option(CLI::App& sub, std::string& path);
// --rows N: rows of the operator table to print, 0 for all.
CLI::Option* add_rows_option(CLI::App& sub, std::size_t& rows, const std::string& help = "Rows to print (0 = all)");
// --sort KEY: the operator table's sort key; default_text says which key applies when none is given.
CLI::Option* add_sort_option(CLI::App& sub, std::string& key, const std::string& default_text);
// --quiet, -q: no progress on stderr.
CLI::Option* add_quiet_option(CLI::App& sub, bool& quiet);

}  // namespace awb::cli
