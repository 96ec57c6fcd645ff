// The advisor's findings for the run on screen: each rule that fired, its evidence and the action,
// as rich text (heaviest first).
#pragma once

#include <QTextBrowser>

#include <vector>

#include "advisor.h"

namespace awb::ui {

class FindingsView : public QTextBrowser {
    Q_OBJECT
public:
    explicit FindingsView(QWidget* parent = nullptr);
    void setFindings(const std::vector<Finding>& findings, const QString& subject);
    const std::vector<Finding>& findings() const { return findings_; }

private:
    std::vector<Finding> findings_;
};

}  // namespace awb::ui
