# The core's GoogleTest sources that need no LibTorch (model, analysis, io, report): the main build's
# awb_core_tests (tests/CMakeLists.txt) and the sanitized awb_core_tests_asan (tests/fuzz/CMakeLists.txt).
# Their shared helpers (test_support.h, trace_builders.h) are in tests/support.
set(AWB_TEST_SUPPORT_DIR ${CMAKE_CURRENT_LIST_DIR}/../support)
set(AWB_CORE_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/test_atomic_file.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_attention.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_attention_libraries.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_attention_manual.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_bootstrap.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_collectives.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_gpu_breakdown.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_rank_runs.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_rank_summary.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_graph_replay.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_import_pipeline.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_run_json.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_results_file.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_kernel_class.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_kernel_name.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_memory_replay.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_memory_snapshot.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_snapshot_views.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_streamed_replay.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_snapshot_ops.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_memory_totals.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_module_file.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_op_table.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_pickle_reader.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_trace_quality.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_panel_modules.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_run_verdict.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_scaling.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_schedule.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_sdpa_math_backward.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_sweep_shard.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_trace_fixtures.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_trace_stages.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_units.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_sweep_counts.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_workspace_traces.cpp)
