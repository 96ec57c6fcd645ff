// The user's attention modules as the run panel holds them (TorchScript .pt, AOTInductor .pt2): what
// one added module is (its identity, or why its file is missing), the checks that refuse a file, the
// text of its tooltip, and the recent modules kept in QSettings so that the next start offers them.
// No widgets: run_panel_modules.cpp puts these in the variant combo and the sweep editor.
#pragma once

#include <QString>
#include <QStringList>

#include <optional>
#include <vector>

#include "model/environment.h"
#include "model/module_file.h"
#include "model/run_spec.h"

namespace awb::ui {

struct PanelModule {
    QString path;  // absolute
    QString name;  // the file's stem: the variant's name in tables, comparisons and chart legends
    std::optional<ModuleIdentity> identity;  // none: the file is missing or unreadable (problem says why)
    QString problem;
    bool missing() const { return !identity.has_value(); }
};

// Reads the file's identity (size, sha256: the whole file is read once); a file that vanished gives
// an entry without one that says why, never an exception.
PanelModule read_panel_module(const QString& path);

// Why path cannot be added beside `added` (empty: it can), as one message naming the file: the file's
// own problems (not .pt/.pt2, missing, a built-in's name as its stem, a .pt2 on LibTorch 1.x), or the
// same file, or another file of the same stem, already among the variants.
QString module_refusal(const QString& path, const std::vector<PanelModule>& added, const DeviceCaps& caps);

QString module_label(const PanelModule& m);    // "mine", or "mine (missing)"
QString module_tooltip(const PanelModule& m);  // name and format, path, size and sha256, exporter

// The user's modules a result ran, one line each ("module mine: /path/mine.pt (torchscript, 1.9 KiB,
// sha256 ..., exported by torch 1.13.0)", describe_module), for the tooltips and hovers that say where a result ran;
// empty when it ran none.
QString environment_modules_text(const Environment& e);

// The modules added in earlier sessions (QSettings "modules/recent"), newest first, at most 10.
QStringList recent_modules();
void remember_module(const QString& path);
void clear_recent_modules();

}  // namespace awb::ui
