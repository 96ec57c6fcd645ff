// The readers of the formats in results/results_formats.h's table, one per format: each fills a
// ResultsFile from a file the table recognised (others' formats) or whose schema it named (ours, the
// JSON already parsed). Messages name the file. Called through the table by open_results_file.
#pragma once

#include "results/results_formats.h"

namespace awb {

void read_trace_results(const ResultsRead& request, ResultsFile& out);     // a trace, or a folder of them
void read_snapshot_results(const ResultsRead& request, ResultsFile& out);  // a CUDA memory snapshot
void read_report_results(const ResultsRead& request, ResultsFile& out);    // attnwb profile --json
void read_bench_results(const ResultsRead& request, ResultsFile& out);
void read_sweep_results(const ResultsRead& request, ResultsFile& out);
void read_check_results(const ResultsRead& request, ResultsFile& out);
void read_workspace_results(const ResultsRead& request, ResultsFile& out);

}  // namespace awb
