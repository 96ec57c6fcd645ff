// One home for numbers with units, as text: durations, sizes, rates and shares, in the styles our
// outputs use (adaptive for the GUI and reports, fixed units for the CLI's aligned tables, and
// PyTorch's own table formats where we print its table).
#pragma once

#include <cstdint>
#include <string>

namespace awb {

// Adaptive (GUI, reports, findings).
std::string format_duration_ns(double ns);            // "850 ns", "12.3 us", "4.567 ms", "12.35 ms", "1.235 s"
std::string format_bytes(int64_t bytes);              // "512 B", "1.5 KiB", "50.0 MiB", "1.25 GiB"
std::string format_signed_bytes(int64_t delta);       // "+1.5 KiB", "-50.0 MiB", "0 B"
std::string format_signed_duration_ns(double delta);  // "+1.234 ms", "-850 ns", "0 ns"
std::string format_share(double share);               // 0.1234 -> "12.3%"
std::string format_count(int64_t n);                  // 1234567 -> "1,234,567"
std::string format_flops(double flops);               // "524.3 kFLOP", "3.22 GFLOP", "1.21 TFLOP"
std::string format_flop_rate(double tflops);          // from TFLOP/s: "87.2 GFLOP/s", "989 TFLOP/s"
std::string format_bandwidth(double tb_s);            // from TB/s: "15.0 GB/s", "4.80 TB/s"
std::string format_gb_s(
    double gb_s);  // from GB/s, as format_bandwidth: "90.1 MB/s", "15.0 GB/s"; "-" when not known (<= 0)

// Fixed units (the CLI's columns).
std::string format_ms(double ns);       // "12.345 ms"; below 1 ms four decimals: "0.0123 ms"
std::string format_mib(int64_t bytes);  // "50.0 MiB"

// PyTorch's key_averages().table() formats (profiler_util.py _format_time, _format_memory).
std::string format_time_us(double us);     // "1.234ms", "12.345us", "1.234s"
std::string format_memory(int64_t bytes);  // "1.50 Mb", "512 b"

}  // namespace awb
