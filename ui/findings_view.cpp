#include "findings_view.h"

namespace awb::ui {

FindingsView::FindingsView(QWidget* parent) : QTextBrowser(parent) {
    setOpenLinks(false);
    setPlaceholderText(tr("Run a spec or open a trace: the advisor reads it here (score matrix, layout copies, "
                          "fragmentation, dispatch overhead)."));
}

void FindingsView::setFindings(const std::vector<Finding>& findings, const QString& subject) {
    findings_ = findings;
    QString html = QStringLiteral("<p><b>%1</b></p>").arg(subject.toHtmlEscaped());
    if (findings.empty()) html += tr("<p>None of the advisor's rules fired for this run.</p>");
    for (const Finding& f : findings) {
        html += QStringLiteral("<p><b>[%1]</b> %2<ul>").arg(QString::fromStdString(f.rule), QString::fromStdString(f.title).toHtmlEscaped());
        for (const auto& e : f.evidence) html += QStringLiteral("<li>%1</li>").arg(QString::fromStdString(e).toHtmlEscaped());
        html += QStringLiteral("</ul><i>Action:</i> %1</p>").arg(QString::fromStdString(f.action).toHtmlEscaped());
    }
    setHtml(html);
}

}  // namespace awb::ui
