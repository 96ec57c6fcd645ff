// Reads a memory snapshot pickle (torch.cuda.memory._dump_snapshot; plain or gzip, protocols 2-5) into
// a MemorySnapshot: the pickle reader's values checked field by field against the snapshot's layout
// (the docstring of torch.cuda.memory._snapshot). A field of the wrong type is one message naming it
// ("device_traces[0][17].size: an int, not a str"); fields the layout does not know are passed over;
// trace actions it does not know are counted (MemorySnapshot::unknown_actions), not read.
#pragma once

#include <string>

#include "io/pickle_reader.h"
#include "model/memory_snapshot.h"

namespace awb {

// Throws pickle::PickleError (the pickle itself) or SnapshotFormatError (its layout), naming the file.
MemorySnapshot read_memory_snapshot(const std::string& path);
MemorySnapshot memory_snapshot_from(const pickle::PickleDocument& doc);  // the same from values read

class SnapshotFormatError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

}  // namespace awb
