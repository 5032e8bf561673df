# Tools built with lockstep_add_tool (cmake/lockstepHelpers.cmake), run by ctest (label "tool"):
#  * registration survives static linking: a sim library that registers itself from a static
#    initializer works when lockstep_add_tool links it whole-archive (no REGISTER), and is
#    dropped by the linker when linked plainly (the hazard the helper exists for);
#  * a tool without DEFAULT_REPLAY answers `run` with no argument by a usage error;
#  * a game written against 0.1's API (tests/tool/orbit_sim.cpp: a Read-declared resource read
#    through the mutable accessor) records, verifies, synctests, runs netsim and bench with one
#    warning naming the system, the resource and its declared access (issue 22);
#  * a game's tool names itself in every command it prints (own_name, issue 39);
#  * a plain add_library linking lockstep::replay compiles with the determinism flags; a target
#    with LOCKSTEP_NO_DETERMINISM_FLAGS does not (configure only, compile_commands.json);
#  * the fast-math guard refuses -ffast-math on a sim target at configure time and, when the
#    flag arrives through a linked target, at build time.
add_library(test_selfreg_sim STATIC ${CMAKE_CURRENT_LIST_DIR}/self_registering_sim.cpp)
target_link_libraries(test_selfreg_sim PRIVATE lockstep::fixtures)
lockstep_add_tool(lockstep-selfreg SIMS test_selfreg_sim)
lockstep_add_tool(lockstep-selfreg-dropped SIMS test_selfreg_sim REGISTER lockstep_test_no_registration)
target_sources(lockstep-selfreg-dropped PRIVATE ${CMAKE_CURRENT_LIST_DIR}/no_registration.cpp)

# The outside game of issue 22, built the documented way (lockstep_add_sim + lockstep_add_tool).
lockstep_add_sim(test_orbit_sim ${CMAKE_CURRENT_LIST_DIR}/orbit_sim.cpp REGISTER orbit::register_orbit)
lockstep_add_tool(orbit-tool SIMS test_orbit_sim)

set(_tool_sh ${CMAKE_CURRENT_LIST_DIR}/tool_tests.sh)
set(_tool_work ${CMAKE_CURRENT_BINARY_DIR}/tool_tests)
foreach(case whole_archive dropped_without_whole_archive no_default_replay)
  add_test(NAME tool.${case} COMMAND bash ${_tool_sh} ${case} ${_tool_work}
           $<TARGET_FILE:lockstep-selfreg> $<TARGET_FILE:lockstep-selfreg-dropped>)
  set_tests_properties(tool.${case} PROPERTIES LABELS tool TIMEOUT 120)
endforeach()
foreach(case legacy_record_verify legacy_synctest legacy_netsim_bench own_name)
  add_test(NAME tool.${case} COMMAND bash ${_tool_sh} ${case} ${_tool_work} $<TARGET_FILE:orbit-tool>)
  set_tests_properties(tool.${case} PROPERTIES LABELS tool TIMEOUT 120)
endforeach()
add_test(NAME tool.determinism_flags_plain_target
         COMMAND bash ${_tool_sh} determinism_flags_plain_target ${_tool_work}
                 ${CMAKE_CURRENT_LIST_DIR}/plain_project ${PROJECT_SOURCE_DIR} ${CMAKE_COMMAND} ${CMAKE_CXX_COMPILER})
set_tests_properties(tool.determinism_flags_plain_target PROPERTIES LABELS tool TIMEOUT 300)
foreach(case fast_math_configure fast_math_build)
  add_test(NAME tool.${case} COMMAND bash ${_tool_sh} ${case} ${_tool_work}
           ${CMAKE_CURRENT_LIST_DIR}/fastmath_project ${PROJECT_SOURCE_DIR} ${CMAKE_COMMAND} ${CMAKE_CXX_COMPILER})
  set_tests_properties(tool.${case} PROPERTIES LABELS tool TIMEOUT 300)
endforeach()
