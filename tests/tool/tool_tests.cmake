# Tools built with lockstep_add_tool (cmake/lockstepHelpers.cmake), run by ctest (label "tool"):
#  * registration survives static linking: a sim library that registers itself from a static
#    initializer works when lockstep_add_tool links it whole-archive (no REGISTER), and is
#    dropped by the linker when linked plainly (the hazard the helper exists for);
#  * a tool without DEFAULT_REPLAY answers `run` with no argument by a usage error;
#  * the fast-math guard refuses -ffast-math on a sim target at configure time and, when the
#    flag arrives through a linked target, at build time.
add_library(test_selfreg_sim STATIC ${CMAKE_CURRENT_LIST_DIR}/self_registering_sim.cpp)
target_link_libraries(test_selfreg_sim PRIVATE lockstep::fixtures)
lockstep_add_tool(lockstep-selfreg SIMS test_selfreg_sim)
lockstep_add_tool(lockstep-selfreg-dropped SIMS test_selfreg_sim REGISTER lockstep_test_no_registration)
target_sources(lockstep-selfreg-dropped PRIVATE ${CMAKE_CURRENT_LIST_DIR}/no_registration.cpp)

set(_tool_sh ${CMAKE_CURRENT_LIST_DIR}/tool_tests.sh)
set(_tool_work ${CMAKE_CURRENT_BINARY_DIR}/tool_tests)
foreach(case whole_archive dropped_without_whole_archive no_default_replay)
  add_test(NAME tool.${case} COMMAND bash ${_tool_sh} ${case} ${_tool_work}
           $<TARGET_FILE:lockstep-selfreg> $<TARGET_FILE:lockstep-selfreg-dropped>)
  set_tests_properties(tool.${case} PROPERTIES LABELS tool TIMEOUT 120)
endforeach()
foreach(case fast_math_configure fast_math_build)
  add_test(NAME tool.${case} COMMAND bash ${_tool_sh} ${case} ${_tool_work}
           ${CMAKE_CURRENT_LIST_DIR}/fastmath_project ${PROJECT_SOURCE_DIR} ${CMAKE_COMMAND} ${CMAKE_CXX_COMPILER})
  set_tests_properties(tool.${case} PROPERTIES LABELS tool TIMEOUT 300)
endforeach()
