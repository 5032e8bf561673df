# A game's test suite linking its sims as a static library (tests/testing/static_sims/):
# linked plainly, a self-registering sim is dropped and lockstep::testing says how to fix it;
# lockstep_link_sims (cmake/lockstepHelpers.cmake) keeps it (whole-archive) or calls the
# library's REGISTER function before main. Label "testing".
set(_static_dir ${CMAKE_CURRENT_LIST_DIR}/static_sims)
add_library(test_static_selfreg_sims STATIC ${PROJECT_SOURCE_DIR}/tests/tool/self_registering_sim.cpp)
target_link_libraries(test_static_selfreg_sims PRIVATE lockstep::fixtures)
lockstep_add_sim(test_static_register_sims ${_static_dir}/register_duel.cpp REGISTER static_sims::register_sims)
target_link_libraries(test_static_register_sims PRIVATE lockstep::fixtures)

foreach(case plain whole register)
  set(t test_testing_static_${case})
  add_executable(${t} ${_static_dir}/static_sims_test.cpp)
  target_link_libraries(${t} PRIVATE lockstep::testing GTest::gtest_main)
  target_compile_definitions(${t} PRIVATE LOCKSTEP_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
  gtest_discover_tests(${t} DISCOVERY_TIMEOUT 60 TEST_PREFIX "static_${case}." PROPERTIES LABELS testing)
endforeach()
target_link_libraries(test_testing_static_plain PRIVATE test_static_selfreg_sims)
target_compile_definitions(test_testing_static_plain PRIVATE LOCKSTEP_STATIC_CASE_PLAIN=1)
lockstep_link_sims(test_testing_static_whole SIMS test_static_selfreg_sims)
lockstep_link_sims(test_testing_static_register SIMS test_static_register_sims)
