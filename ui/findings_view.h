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
    void setExplanation(const Explanation& x, const QString& subject);
    const std::vector<Finding>& findings() const { return shown_.findings; }
    const std::vector<ChecklistItem>& checklist() const { return shown_.checklist; }

private:
    Explanation shown_;
};

}  // namespace awb::ui
