// Stage 6 of the trace importer, file discovery: what a path opens (a folder of ranks or one file),
// and whether a file looks like a chrome trace at all (so that File > Open and attnwb report can tell
// traces from our results files without reading them whole).
#pragma once

#include <string>
#include <vector>

namespace awb {

// What a path opens: a folder's *.json / *.json.gz but execution_details.json (sorted; TraceImportError when it
// has none), the files a glob matches (is_trace_glob: "traces/rank*.json.gz", sorted; TraceImportError when
// none), or the file.
std::vector<std::string> trace_files_of(const std::string& path);
// A pattern with * ? or [ that names no file itself: the ranks of a run given as a glob the shell did not
// expand (quoted, or too many files for one command line).
bool is_trace_glob(const std::string& path);

// True when the file starts like a chrome trace ('[' or an object with "traceEvents" near the start).
bool looks_like_chrome_trace(const std::string& path);

}  // namespace awb
