// What the workbench says about the measurement on screen: the advisor's findings (each rule that
// fired, its evidence and the action, heaviest first) and the article's measurement checklist (each
// item pass / fail / n/a with the reason), as rich text.
#pragma once

#include <QTextBrowser>

#include <vector>

#include "analysis/explanation.h"

namespace awb::ui {

class FindingsView : public QTextBrowser {
    Q_OBJECT
public:
    explicit FindingsView(QWidget* parent = nullptr);
    // quality: the trace's quality_lines (analysis/trace_quality.h), shown first when there are any.
    void setExplanation(const Explanation& explanation, const QString& subject,
                        const std::vector<std::string>& quality = {});
    const std::vector<Finding>& findings() const { return shown_.findings; }
    const std::vector<ChecklistItem>& checklist() const { return shown_.checklist; }
    const std::vector<std::string>& quality() const { return quality_; }

private:
    Explanation shown_;
    std::vector<std::string> quality_;
};

}  // namespace awb::ui
