// The one home of numbers with units: each style at its boundaries, and ties rounded like the GUI's Qt.
#include <gtest/gtest.h>

#include "model/units.h"

using namespace awb;

TEST(Units, DurationsPickTheUnitAndDecimalsByMagnitude) {
    EXPECT_EQ(format_duration_ns(850), "850 ns");
    EXPECT_EQ(format_duration_ns(999.4), "999 ns");
    EXPECT_EQ(format_duration_ns(1234), "1.23 us");
    EXPECT_EQ(format_duration_ns(12345), "12.3 us");
    EXPECT_EQ(format_duration_ns(4567000), "4.567 ms");
    EXPECT_EQ(format_duration_ns(12345678), "12.35 ms");
    EXPECT_EQ(format_duration_ns(1234567890), "1.235 s");
    EXPECT_EQ(format_duration_ns(-25250), "-25.3 us") << "ties away from zero, as QString::arg";
}

TEST(Units, BytesUseBinaryPrefixes) {
    EXPECT_EQ(format_bytes(512), "512 B");
    EXPECT_EQ(format_bytes(1536), "1.5 KiB");
    EXPECT_EQ(format_bytes(50 * 1048576LL), "50.0 MiB");
    EXPECT_EQ(format_bytes(1342177280LL), "1.25 GiB");
    EXPECT_EQ(format_bytes(-3 * 1048576LL), "-3.0 MiB");
}

TEST(Units, FixedUnitsForTheCliColumns) {
    EXPECT_EQ(format_ms(12345678), "12.346 ms");
    EXPECT_EQ(format_ms(12345), "0.0123 ms");
    EXPECT_EQ(format_mib(50 * 1048576LL), "50.0 MiB");
    EXPECT_EQ(format_share(0.1234), "12.3%");
}

TEST(Units, RatesOfTheRoofline) {
    EXPECT_EQ(format_flop_rate(0.0872), "87.2 GFLOP/s");
    EXPECT_EQ(format_flop_rate(989), "989 TFLOP/s");
    EXPECT_EQ(format_bandwidth(0.01495), "14.9 GB/s");
    EXPECT_EQ(format_bandwidth(4.8), "4.80 TB/s");
    // A collective's bandwidths, in GB/s (1e9 B/s): unknown is "-".
    EXPECT_EQ(format_gb_s(14.95), "14.9 GB/s");
    EXPECT_EQ(format_gb_s(0.0794), "79.4 MB/s");
    EXPECT_EQ(format_gb_s(0), "-");
}

TEST(Units, SignedDurations) {
    EXPECT_EQ(format_signed_duration_ns(1'234'000), "+1.234 ms");
    EXPECT_EQ(format_signed_duration_ns(-850), "-850 ns");
    EXPECT_EQ(format_signed_duration_ns(0), "0 ns");
}

TEST(Units, PyTorchTableFormats) {
    EXPECT_EQ(format_time_us(12.3456), "12.346us");
    EXPECT_EQ(format_time_us(1234.5), "1.234ms");  // printf's rounding, as Python's '%.3f'
    EXPECT_EQ(format_time_us(2.5e6), "2.500s");
    EXPECT_EQ(format_memory(512), "512 b");
    EXPECT_EQ(format_memory(1536), "1.50 Kb");
    EXPECT_EQ(format_memory(-1572864), "-1.50 Mb");
    EXPECT_EQ(format_memory(3LL << 30), "3.00 Gb");
}
