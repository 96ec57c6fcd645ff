// What the workbench says about the measurement on screen: the advisor's findings (each rule that
// fired, its evidence and the action, heaviest first) and the article's measurement checklist (each
// item pass / fail / n/a with the reason), as rich text.
#pragma once

#include <QTextBrowser>

#include <vector>

#include "analysis/advisor.h"
#include "analysis/checklist.h"

namespace awb::ui {

class FindingsView : public QTextBrowser {
    Q_OBJECT
public:
    explicit FindingsView(QWidget* parent = nullptr);
    void setFindings(const std::vector<Finding>& findings, const std::vector<ChecklistItem>& checklist, const QString& subject);
    const std::vector<Finding>& findings() const { return findings_; }
    const std::vector<ChecklistItem>& checklist() const { return checklist_; }

private:
    std::vector<Finding> findings_;
    std::vector<ChecklistItem> checklist_;
};

}  // namespace awb::ui
