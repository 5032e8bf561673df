# The viewer (docs/viewer.md).
#   viewer.*          viewer::Session natively (tests/viewer/session_test.cpp), always built.
#   viewer_browser.*  label "browser": the generated pages in headless Chromium
#                     (tests/viewer/browser_test.py). They need the page template (a build with
#                     -DLOCKSTEP_VIEWER=ON, i.e. emscripten) and chromium (scripts/bootstrap
#                     --browser); without them they are SKIPPED (exit 77) and say why.
add_executable(test_viewer ${CMAKE_CURRENT_LIST_DIR}/session_test.cpp)
target_link_libraries(test_viewer PRIVATE lockstep::viewer lockstep::fixtures GTest::gtest_main)
target_compile_definitions(test_viewer PRIVATE LOCKSTEP_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
gtest_discover_tests(test_viewer DISCOVERY_TIMEOUT 60 PROPERTIES LABELS viewer)

find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  set(_page "")
  if(LOCKSTEP_VIEWER_PAGE)
    set(_page ${LOCKSTEP_VIEWER_PAGE})
  endif()
  foreach(case skirmish bundle)
    add_test(NAME viewer_browser.${case}
             COMMAND Python3::Interpreter ${CMAKE_CURRENT_LIST_DIR}/browser_test.py ${case} $<TARGET_FILE:lockstep>
                     ${PROJECT_SOURCE_DIR} ${CMAKE_BINARY_DIR}/viewer-artifacts "${_page}")
    set_tests_properties(viewer_browser.${case} PROPERTIES LABELS browser TIMEOUT 300 SKIP_RETURN_CODE 77)
  endforeach()
endif()

# `lockstep view` itself, without emscripten (tests/viewer/view_cli.sh): label "viewer".
foreach(case no_template bad_file fills_template)
  add_test(NAME viewer_cli.${case} COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/view_cli.sh ${case} $<TARGET_FILE:lockstep>
                                           ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/viewer_cli)
  set_tests_properties(viewer_cli.${case} PROPERTIES LABELS viewer TIMEOUT 120)
endforeach()
