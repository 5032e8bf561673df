# End-to-end tests of `lockstep dump`, `lockstep diff` and the gates' desync bundles
# (tests/inspect/cli_inspect.sh), label "inspect_cli".
set(_in_sh ${CMAKE_CURRENT_LIST_DIR}/cli_inspect.sh)
# A second build of the tool with the planted platform quirk (tests/inspect/quirk/quirk_tool.cpp).
add_executable(lockstep_quirk ${CMAKE_CURRENT_LIST_DIR}/quirk/quirk_tool.cpp)
target_link_libraries(lockstep_quirk PRIVATE lockstep::cli lockstep::fixtures lockstep::planted)
target_compile_definitions(lockstep_quirk PRIVATE LOCKSTEP_PLANTED_PLATFORM_QUIRK=1)
set(_in_work ${CMAKE_CURRENT_BINARY_DIR}/inspect_cli)
foreach(case dump_skirmish dump_json dump_filter diff_replays synctest_bundle verify_per_system bad_bundle usage
             planted_platform planted_stale planted_peer svg)
  add_test(NAME inspect_cli.${case} COMMAND bash ${_in_sh} ${case} $<TARGET_FILE:lockstep> ${PROJECT_SOURCE_DIR} ${_in_work}
                                           $<TARGET_FILE:lockstep_quirk>)
  set_tests_properties(inspect_cli.${case} PROPERTIES LABELS inspect_cli TIMEOUT 300)
endforeach()
