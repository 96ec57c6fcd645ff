// ATen first: Qt's keyword macros (slots) would break its headers.
#include "engine/module_variant.h"
#include "run_modules.h"

#include <QObject>
#include <QSettings>

#include "format_qt.h"
#include "model/run_observer.h"

namespace awb::ui {

namespace {

const QString kRecentKey = QStringLiteral("modules/recent");
constexpr int kRecentMax = 10;

QString format_name(const std::string& format) {
    if (format == "torchscript") return QObject::tr("TorchScript module (.pt)");
    if (format == "aotinductor") return QObject::tr("AOTInductor package (.pt2)");
    return QString::fromStdString(format);
}

}  // namespace

PanelModule read_panel_module(const QString& path) {
    PanelModule m;
    m.path = QString::fromStdString(absolute_module_path(path.toStdString()));
    m.name = QString::fromStdString(module_stem(path.toStdString()));
    try {
        m.identity =
            module_identity(m.path.toStdString());  // the engine's: hashed once, the exporter from its metadata
    } catch (const InvalidInput& e) {
        QStringList lines;
        for (const SpecProblem& p : e.problems()) lines << QString::fromStdString(p.message);
        m.problem = lines.join(QLatin1Char('\n'));
    } catch (const std::exception& e) {
        m.problem = QString::fromStdString(e.what());
    }
    return m;
}

QString module_refusal(const QString& path, const std::vector<PanelModule>& added, const DeviceCaps& caps) {
    const std::string file = path.toStdString();
    if (!is_module_path(file))
        return QObject::tr(
                   "'%1' is not a module file: the workbench runs TorchScript (.pt) and AOTInductor (.pt2) files")
            .arg(path);
    std::string problems;
    for (const SpecProblem& p : validate(with_variant(RunSpec{}, file), caps))
        if (p.field == "variant") problems += p.message + "\n";
    if (!problems.empty()) return QString::fromStdString(problems).trimmed();
    const QString absolute = QString::fromStdString(absolute_module_path(file));
    const QString name = QString::fromStdString(module_stem(file));
    for (const PanelModule& m : added) {
        if (m.path == absolute && !m.missing())  // a missing one is replaced: its file is back
            return QObject::tr("module '%1' is already among the variants, as '%2'").arg(absolute, m.name);
        if (m.path != absolute && m.name == name)
            return QObject::tr(
                       "module '%1' would be named '%2', as '%3' already is (a variant is named by its file's stem): "
                       "rename one of the files")
                .arg(absolute, name, m.path);
    }
    return {};
}

QString module_label(const PanelModule& m) { return m.missing() ? QObject::tr("%1 (missing)").arg(m.name) : m.name; }

QString module_tooltip(const PanelModule& m) {
    if (m.missing())
        return QObject::tr("%1: the module file is missing\n%2\n%3\nPut the file back and add it again, or remove it")
            .arg(m.name, m.path, m.problem);
    const ModuleIdentity& id = *m.identity;
    QString text = QObject::tr("%1: %2\n%3\n%4, sha256 %5...")
                       .arg(m.name, format_name(id.format), m.path, format_bytes(id.size_bytes),
                            QString::fromStdString(id.sha256.substr(0, 16)));
    if (!id.exported_by.empty()) text += QObject::tr("\nexported by %1").arg(QString::fromStdString(id.exported_by));
    return text;
}

QString environment_modules_text(const Environment& e) {
    QStringList lines;
    for (const ModuleIdentity& m : e.modules)
        lines << QObject::tr("module %1").arg(QString::fromStdString(describe_module(m)));
    return lines.join(QLatin1Char('\n'));
}

QStringList recent_modules() { return QSettings().value(kRecentKey).toStringList(); }

void remember_module(const QString& path) {
    QStringList recent = recent_modules();
    recent.removeAll(path);
    recent.prepend(path);
    while (recent.size() > kRecentMax) recent.removeLast();
    QSettings().setValue(kRecentKey, recent);
}

void clear_recent_modules() { QSettings().remove(kRecentKey); }

}  // namespace awb::ui
