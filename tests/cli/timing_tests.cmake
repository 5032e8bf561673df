# Timing traces (docs/timing-traces.md): `bench`, `run` and `netsim --trace-out` produce valid
# Chrome trace-event JSON with the slices the commands ran (tests/cli/trace_event_check.py).
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  set(_tt ${CMAKE_CURRENT_LIST_DIR}/trace_event_check.py)
  foreach(case bench run netsim)
    add_test(NAME timing_trace.${case}
             COMMAND Python3::Interpreter ${_tt} ${case} $<TARGET_FILE:lockstep> ${CMAKE_CURRENT_BINARY_DIR}/timing_trace
                     ${PROJECT_SOURCE_DIR}/fixtures/duel/duel.replay)
    set_tests_properties(timing_trace.${case} PROPERTIES LABELS timing TIMEOUT 300)
  endforeach()
endif()
