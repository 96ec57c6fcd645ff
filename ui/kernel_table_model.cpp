#include "kernel_table_model.h"

#include <QTimer>

#include <string>
#include <vector>

#include "background.h"
#include "format_qt.h"
#include "analysis/kernel_class_rules.h"
#include "model/kernel_name.h"
#include "operator_table_model.h"
#include "table_columns.h"

namespace awb::ui {

namespace {

// Every class, from the rules' table (analysis/kernel_class_rules.h).
const char* class_tooltip() {
    static const std::string text =
        "What the kernel does, from its name and the op that launched it, by the first of the rules that "
        "holds (attnwb inspect --kernel-classes lists them): " +
        kernel_class_names();
    return text.c_str();
}

}  // namespace

KernelTableModel::KernelTableModel(QObject* parent)
    : RowTableModel(
          {
              {"Kernel / copy",
               "Kernel, memcpy or memset name, demangled; long names keep what tells them from the table's others "
               "(tile "
               "sizes, layouts) and \u2026 marks what is left out. The tooltip has the whole name and the raw one; "
               "Ctrl+C "
               "copies the raw names of the selected rows. Rows are grouped by name and launch configuration",
               true},
              {"Kind", "kernel, gpu_memcpy or gpu_memset", true},
              {"Class", class_tooltip(), true},
              {"Calls", "Launches in the trace"},
              {"Total (time)", "Summed device time of all launches"},
              {"Share of device time", "Share of the device time of every kernel, copy and set in the trace"},
              {"Avg (time)", "Total / calls"},
              {"Min (time)", "Shortest launch"},
              {"Max (time)", "Longest launch"},
              {"Grid", "Blocks in the grid (x, y, z), from CUPTI; - where the trace has none (ROCm)"},
              {"Block", "Threads per block (x, y, z)"},
              {"Registers / thread", "Registers per thread of the kernel"},
              {"Shared memory (bytes)", "Shared memory per block"},
              {"Occupancy (%)",
               "Estimated achieved occupancy, weighted by duration (theoretical occupancy in 2021 traces)"},
              {"Bytes copied", "Bytes moved by copies and sets"},
          },
          Name, parent) {}

void KernelTableModel::rowsChanged() {
    total_ns_ = 0;
    for (const auto& r : rows_) total_ns_ += r.total_ns;
    demangled_.clear();
    for (const auto& r : rows_) demangled_.push_back(QString::fromStdString(demangled_kernel_name(r.name)));
    shortenNames();
}

void KernelTableModel::shortenNames() {
    ++generation_;
    if (background_) {
        shown_.clear();  // meanwhile the names cut at the width (cheap; measuring whole ones is not)
        for (const QString& n : demangled_)
            shown_.push_back(n.size() <= name_chars_ ? n : n.left(name_chars_ - 1) + QChar(0x2026));
        if (!shortening_) {  // once per event-loop turn, at the width it ends with
            shortening_ = true;
            QTimer::singleShot(0, this, &KernelTableModel::shortenInBackground);
        }
        return;
    }
    setShown(elide_kernel_names(demangledNames(), size_t(name_chars_)));
}

void KernelTableModel::shortenInBackground() {
    shortening_ = false;
    compute_then(
        this, true,
        [names = demangledNames(), width = size_t(name_chars_)] { return elide_kernel_names(names, width); },
        [this, generation = generation_](const std::vector<std::string>& shortened) {
            if (generation != generation_ || shortened.size() != demangled_.size()) return;
            setShown(shortened);
            if (!rows_.empty()) emit dataChanged(index(0, Name), index(rowCount() - 1, Name), {Qt::DisplayRole});
        });
}

std::vector<std::string> KernelTableModel::demangledNames() const {
    std::vector<std::string> names;
    names.reserve(demangled_.size());
    for (const QString& n : demangled_) names.push_back(n.toStdString());
    return names;
}

void KernelTableModel::setShown(const std::vector<std::string>& names) {
    shown_.clear();
    for (const std::string& n : names) shown_.push_back(QString::fromStdString(n));
}

void KernelTableModel::setNameWidth(int characters) {
    characters = std::max(characters, 12);
    if (characters == name_chars_) return;
    name_chars_ = characters;
    shortenNames();
    if (!rows_.empty()) emit dataChanged(index(0, Name), index(rowCount() - 1, Name), {Qt::DisplayRole});
}

namespace {

// A long name as a tooltip that wraps: rich text, with break opportunities (zero-width spaces) after
// the separators of C++ names and Tensile's underscores.
QString wrapping(const QString& name) {
    constexpr int kMax = 3000;  // CK's names run to 10,000 characters
    QString text =
        name.size() > kMax ? name.left(kMax) + QStringLiteral("\u2026 (%1 characters)").arg(name.size()) : name;
    text = text.toHtmlEscaped();
    for (const char* sep : {",", "_", "::", "&lt;", "("})
        text.replace(QLatin1String(sep), QLatin1String(sep) + QChar(0x200B));
    return text;
}

}  // namespace

QVariant KernelTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount() || index.column() != Name)
        return RowTableModel::data(index, role);
    const KernelRow& r = row(index.row());
    const QString raw = QString::fromStdString(r.name);
    const QString& demangled = demangled_[size_t(index.row())];
    switch (role) {
        case RawNameRole: return raw;
        case SortRole: return demangled;
        case FilterRole: return demangled == raw ? raw : demangled + QLatin1Char('\n') + raw;
        case Qt::ToolTipRole:
            return QStringLiteral("<qt><b>%1</b>%2</qt>")
                .arg(wrapping(demangled),
                     demangled == raw
                         ? QString()
                         : tr("<br><br>raw (mangled) name, as the trace and the exports have it:<br>") + wrapping(raw));
        default: return RowTableModel::data(index, role);
    }
}

double KernelTableModel::value(int row_index, int column) const {
    const KernelRow& r = row(row_index);
    const DeviceLaunch& l = r.launch;
    switch (column) {
        case Calls: return double(r.calls);
        case Total: return double(r.total_ns);
        case Share: return total_ns_ ? double(r.total_ns) / double(total_ns_) : 0.0;
        case Avg: return r.avg_ns();
        case Min: return double(r.min_ns);
        case Max: return double(r.max_ns);
        case Grid: return l.grid[0] > 0 ? double(l.grid[0]) * l.grid[1] * l.grid[2] : -1;
        case Block: return l.block[0] > 0 ? double(l.block[0]) * l.block[1] * l.block[2] : -1;
        case Registers: return l.registers_per_thread;
        case SharedMemory: return double(l.shared_memory_bytes);
        case Occupancy: return r.mean_occupancy_pct;
        case Bytes: return l.bytes > 0 ? double(l.bytes) : -1;
        default: return 0;
    }
}

QString KernelTableModel::text(int row_index, int c) const {
    const KernelRow& r = row(row_index);
    const double v = value(row_index, c);
    switch (c) {
        case Name: return shown_[size_t(row_index)];
        case Kind: return QString::fromStdString(to_string(r.kind));
        case Class: return QString::fromStdString(to_string(r.cls));
        case Calls: return QString::number(r.calls);
        case Total:
        case Avg:
        case Min:
        case Max: return format_duration_ns(v);
        case Share: return QStringLiteral("%1 %").arg(v * 100, 0, 'f', 1);
        case Grid: return QString::fromStdString(format_dim3(r.launch.grid));
        case Block: return QString::fromStdString(format_dim3(r.launch.block));
        case Registers: return v >= 0 ? QString::number(int(v)) : QStringLiteral("-");
        case SharedMemory: return v >= 0 ? format_bytes(int64_t(v)) : QStringLiteral("-");
        case Occupancy: return v >= 0 ? QStringLiteral("%1 %").arg(v, 0, 'f', 1) : QStringLiteral("-");
        case Bytes: return v >= 0 ? format_bytes(int64_t(v)) : QStringLiteral("-");
        default: return {};
    }
}

QVariant KernelTableModel::roleData(int row_index, int c, int role) const {
    if (role == ShareRole && c == Total) return value(row_index, Share);
    return {};
}

}  // namespace awb::ui
