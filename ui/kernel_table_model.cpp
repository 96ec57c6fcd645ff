#include "kernel_table_model.h"

#include <QTimer>

#include <string>
#include <vector>

#include "background.h"
#include "model/kernel_name.h"

namespace awb::ui {

KernelTableModel::KernelTableModel(QObject* parent)
    : RowTableModel(described_columns(kernel_columns()), column(KernelColumn::Name), parent) {}

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
            if (!rows_.empty())
                emit dataChanged(index(0, column(KernelColumn::Name)),
                                 index(rowCount() - 1, column(KernelColumn::Name)), {Qt::DisplayRole});
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
    if (!rows_.empty())
        emit dataChanged(index(0, column(KernelColumn::Name)), index(rowCount() - 1, column(KernelColumn::Name)),
                         {Qt::DisplayRole});
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
    if (!index.isValid() || index.row() >= rowCount() || index.column() != column(KernelColumn::Name))
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
    return kernel_value(row(row_index), KernelColumn(column), total_ns_);
}

QString KernelTableModel::text(int row_index, int c) const {
    if (c == column(KernelColumn::Name)) return shown_[size_t(row_index)];
    const KernelColumnInfo& info = kernel_columns()[size_t(c)];
    const double v = value(row_index, c);
    if (info.unit == CellUnit::Label && info.optional && v < 0) return QStringLiteral("-");
    if (info.unit == CellUnit::Text || info.unit == CellUnit::Label)
        return QString::fromStdString(kernel_text(row(row_index), info.id));
    return QString::fromStdString(format_cell(v, info.unit, info.optional));
}

QVariant KernelTableModel::roleData(int row_index, int c, int role) const {
    if (role == ShareRole && c == column(KernelColumn::Total)) return value(row_index, column(KernelColumn::Share));
    return {};
}

}  // namespace awb::ui
