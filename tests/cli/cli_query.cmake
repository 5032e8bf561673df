# End-to-end tests of `lockstep query` (tests/cli/query_test.py): answers on the skirmish
# fixture checked against an independent evaluation of `dump --json`; malformed queries.
foreach(case answers_match_dump malformed dump_where)
  add_test(NAME query_cli.${case}
           COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/query_test.py ${case} $<TARGET_FILE:lockstep> ${PROJECT_SOURCE_DIR}
                   ${CMAKE_CURRENT_BINARY_DIR}/query_cli/${case})
  set_tests_properties(query_cli.${case} PROPERTIES LABELS query_cli TIMEOUT 300)
endforeach()
