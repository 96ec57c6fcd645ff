// Reads a memory snapshot pickle (torch.cuda.memory._dump_snapshot; plain or gzip, protocols 2-5) into
// a MemorySnapshot: the pickle's values checked field by field against the snapshot's layout (the
// docstring of torch.cuda.memory._snapshot). A field of the wrong type is one message naming it
// ("device_traces[0][17].size: an int, not a str"); fields the layout does not know are passed over;
// trace actions it does not know are counted (MemorySnapshot::unknown_actions), not read. The trace
// events stream: each is turned into its SnapshotEvent as the pickle is read and its values freed
// (io/pickle_machine.h), so the memory is about the snapshot's, not the pickle's values.
#pragma once

#include <stdexcept>
#include <string>

#include "io/pickle_reader.h"
#include "model/memory_snapshot.h"
#include "model/run_observer.h"

namespace awb {

// Streamed: the trace events as they are read (a regular file; anything else is read whole). Whole:
// every value first, then the snapshot (what streaming falls back to; the fuzzer compares the two).
enum class SnapshotReading { Streamed, Whole };

// Throws pickle::PickleError (the pickle itself) or SnapshotFormatError (its layout), naming the file;
// Cancelled when OBSERVER (may be null; told the MiB read as the file goes) asks. SINK (may be null; a
// StreamedReplay) is handed the trace events as they are read, and told to restart should the reading.
MemorySnapshot read_memory_snapshot(const std::string& path, SnapshotReading how = SnapshotReading::Streamed,
                                    RunObserver* observer = nullptr, SnapshotEventSink* sink = nullptr);

class SnapshotFormatError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

}  // namespace awb
