#include "findings_view.h"

namespace awb::ui {

namespace {

QString esc(const std::string& s) { return QString::fromStdString(s).toHtmlEscaped(); }

}  // namespace

FindingsView::FindingsView(QWidget* parent) : QTextBrowser(parent) {
    setOpenLinks(false);
    setPlaceholderText(
        tr("Run a spec or open a trace: the advisor reads it here (score matrix, layout copies, "
           "fragmentation, dispatch overhead), with the measurement checklist."));
}

void FindingsView::setExplanation(const Explanation& explanation, const QString& subject,
                                  const std::vector<std::string>& quality) {
    shown_ = explanation;
    quality_ = quality;
    const std::vector<Finding>& findings = explanation.findings;
    const std::vector<ChecklistItem>& checklist = explanation.checklist;
    QString html = QStringLiteral("<p><b>%1</b></p>").arg(subject.toHtmlEscaped());
    if (!quality.empty()) {
        html +=
            tr("<p><b><font color=\"#b26a00\">Trace quality</font></b>: what the trace's events show that a healthy "
               "recording cannot; the numbers that rest on them are less sure<ul>");
        for (const std::string& line : quality)  // an indented line details the one before it
            html += line.rfind("  ", 0) == 0 ? QStringLiteral("<ul><li>%1</li></ul>").arg(esc(line.substr(2)))
                                             : QStringLiteral("<li>%1</li>").arg(esc(line));
        html += QStringLiteral("</ul></p>");
    }
    if (findings.empty() && !checklist.empty()) html += tr("<p>None of the advisor's rules fired.</p>");
    for (const Finding& f : findings) {
        html += QStringLiteral("<p><b>[%1]</b> %2<ul>").arg(esc(f.rule), esc(f.title));
        for (const auto& e : f.evidence) html += QStringLiteral("<li>%1</li>").arg(esc(e));
        html += QStringLiteral("</ul><i>Action:</i> %1</p>").arg(esc(f.action));
    }
    if (!checklist.empty()) {
        int pass = 0, fail = 0;
        for (const auto& i : checklist) pass += i.state == ItemState::Pass, fail += i.state == ItemState::Fail;
        html += tr("<p><b>Measurement checklist</b>: %1 of %2 pass, %3 fail (judged on this run and the sweeps on the "
                   "chart)</p>")
                    .arg(pass)
                    .arg(checklist.size())
                    .arg(fail);
        html += QStringLiteral("<table cellspacing=\"0\" cellpadding=\"3\" border=\"1\" style=\"border-color:#ccc\">");
        for (const auto& i : checklist) {
            const char* colour = i.state == ItemState::Pass   ? "#1a7f37"
                                 : i.state == ItemState::Fail ? "#c62828"
                                                              : "#888888";
            html += QStringLiteral(
                        "<tr><td bgcolor=\"%1\"><font "
                        "color=\"white\"><b>&nbsp;%2&nbsp;</b></font></td><td>%3</td><td>%4</td></tr>")
                        .arg(QLatin1String(colour), esc(to_string(i.state)), esc(i.label), esc(i.reason));
        }
        html += QStringLiteral("</table>");
    }
    setHtml(html);
}

}  // namespace awb::ui
