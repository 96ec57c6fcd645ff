// Stage 5 of the trace importer, the rank merge: the traces of one distributed run's ranks as one
// trace whose events carry their rank (distributedInfo.rank, or the file's position when a file has
// none or two files claim the same rank), so ranks get their own lanes, nesting and id links.
#pragma once

#include <string>
#include <vector>

#include "io/trace_import.h"

namespace awb::trace_io {

// parts[i] was read from paths[i] (named in the warnings); at least two parts.
ImportedTrace merge_ranks(std::vector<ImportedTrace> parts, const std::vector<std::string>& paths);

}  // namespace awb::trace_io
