// SDPA's math path runs the attention pattern inside its op; autograd runs the pattern's
// backward nodes outside it. The backward is SDPA's math too, not "manual": it carries its forward's
// backend and library (a real 1.13 trace: tests/fixtures/traces/sdpa_math/README.md).
#include <gtest/gtest.h>

#include "analysis/attention.h"
#include "io/trace_import.h"

using namespace awb;

TEST(SdpaMathBackward, CarriesItsForwardsBackend) {
    const ImportedTrace t =
        import_chrome_trace(std::string(AWB_FIXTURE_DIR) + "/traces/sdpa_math/sdpa_math_train_torch113.json.gz");
    const std::vector<AttentionInstance> calls = attention_instances(t.trace);
    int forward = 0, backward = 0;
    for (const AttentionInstance& c : calls) {
        EXPECT_EQ(c.backend, AttentionBackend::Math) << c.op << (c.backward ? " (backward)" : "");
        EXPECT_EQ(c.library, "PyTorch SDPA") << c.op;
        EXPECT_EQ(backend_text(c), "math");
        EXPECT_EQ(c.shape.batch, 1);
        EXPECT_EQ(c.shape.heads_q, 2);
        EXPECT_EQ(c.shape.seq_q, 16);
        (c.backward ? backward : forward) += 1;
    }
    EXPECT_EQ(forward, 3);  // three recorded steps
    EXPECT_EQ(backward, 3);
    // The groups the attention view and `attnwb inspect --attention` show: one per pass, both "math".
    const std::vector<AttentionGroup> groups = group_attention(calls);
    ASSERT_EQ(groups.size(), 2u);
    EXPECT_EQ(backend_text(groups[0].first), backend_text(groups[1].first));
}
