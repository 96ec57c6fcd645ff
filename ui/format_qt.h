// Units for every number the GUI shows.
#pragma once

#include <QString>

#include <cstdint>

namespace awb::ui {

QString format_duration_ns(double ns);            // "850 ns", "12.3 us", "4.56 ms", "1.23 s"
QString format_bytes(int64_t bytes);              // "512 B", "1.5 KiB", "50.0 MiB", "1.25 GiB"
QString format_share(double part, double whole);  // "12.3%" ("-" when whole is 0)
QString format_address(int64_t addr);             // "0x7f3a00000000"

}  // namespace awb::ui
