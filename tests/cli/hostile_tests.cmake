# Hostile paths and text (tests/cli/hostile.sh): planted temp-name symlinks for every writer,
# outputs naming an input, FIFOs without a reader, --bundle-dir, query nesting and echoes, and
# the leftovers of the same review (info on snapshots, BOM, wrong-type JSON values, --where "").
set(_hostile ${CMAKE_CURRENT_LIST_DIR}/hostile.sh)
foreach(case temp_symlinks peer_record same_file fifo_no_reader bundle_dir query_depth query_echo leftovers)
  add_test(NAME cli.hostile.${case}
           COMMAND bash ${_hostile} ${case} $<TARGET_FILE:lockstep> ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/cli_hostile)
  set_tests_properties(cli.hostile.${case} PROPERTIES LABELS cli TIMEOUT 120 SKIP_RETURN_CODE 77)
endforeach()
