# Replay farms (verify/trace over directories, --shard, --jobs, --junit): tests/cli/farm_test.py.
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  add_test(NAME cli.farm COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/farm_test.py
           $<TARGET_FILE:lockstep> ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/cli_farm)
  set_tests_properties(cli.farm PROPERTIES LABELS cli TIMEOUT 600)
endif()
