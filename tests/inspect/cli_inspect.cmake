# End-to-end tests of `lockstep dump`, `lockstep diff` and the gates' desync bundles
# (tests/inspect/cli_inspect.sh), label "inspect_cli".
set(_in_sh ${CMAKE_CURRENT_LIST_DIR}/cli_inspect.sh)
set(_in_work ${CMAKE_CURRENT_BINARY_DIR}/inspect_cli)
foreach(case dump_skirmish dump_json dump_filter diff_replays synctest_bundle bad_bundle usage)
  add_test(NAME inspect_cli.${case} COMMAND bash ${_in_sh} ${case} $<TARGET_FILE:lockstep> ${PROJECT_SOURCE_DIR} ${_in_work})
  set_tests_properties(inspect_cli.${case} PROPERTIES LABELS inspect_cli TIMEOUT 300)
endforeach()
