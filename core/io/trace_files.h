// Stage 6 of the trace importer, file discovery: what a path opens (a folder of ranks or one file),
// and whether a file looks like a chrome trace at all (so that File > Open and attnwb report can tell
// traces from our results files without reading them whole).
#pragma once

#include <string>
#include <vector>

namespace awb {

// What a path opens: a folder's *.json / *.json.gz but execution_details.json (sorted; TraceImportError when it
// has none), or the file.
std::vector<std::string> trace_files_of(const std::string& path);

// True when the file starts like a chrome trace ('[' or an object with "traceEvents" near the start).
bool looks_like_chrome_trace(const std::string& path);

}  // namespace awb
