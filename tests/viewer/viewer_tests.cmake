# The viewer (docs/viewer.md).
#   viewer.*          viewer::Session natively (tests/viewer/session_test.cpp), always built.
#   viewer_serve      `view --serve` over plain HTTP: answers, bounds, Ctrl-C (serve_test.py).
#   viewer_serve_hostile  its limits against hostile clients: huge heads, slow connections,
#                     many ranges (serve_hostile_test.py).
#   viewer_native.*   label "chromium", in the default build: the pages WITHOUT emscripten
#                     (frames embedded, and --serve) in headless Chromium, for lockstep and for
#                     examples/arena's own tool (native_browser_test.py).
#   viewer_browser.*  label "browser": the generated wasm pages in headless Chromium
#                     (tests/viewer/browser_test.py). They need the page template (a build with
#                     -DLOCKSTEP_VIEWER=ON, i.e. emscripten) and chromium (scripts/bootstrap
#                     --browser); without them they are SKIPPED (exit 77) and say why.
add_executable(test_viewer ${CMAKE_CURRENT_LIST_DIR}/session_test.cpp ${CMAKE_CURRENT_LIST_DIR}/wasm_page_test.cpp
                           ${CMAKE_CURRENT_LIST_DIR}/view_test.cpp ${CMAKE_CURRENT_LIST_DIR}/server_test.cpp)
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
foreach(case no_template bad_file fills_template keyframes)
  add_test(NAME viewer_cli.${case} COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/view_cli.sh ${case} $<TARGET_FILE:lockstep>
                                           ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/viewer_cli)
  set_tests_properties(viewer_cli.${case} PROPERTIES LABELS viewer TIMEOUT 120)
endforeach()

# `view --serve` (only when the build has cpp-httplib; else `view --serve` says so, tested below).
if(Python3_Interpreter_FOUND AND LOCKSTEP_HAVE_VIEWER_SERVER)
  add_test(NAME viewer_serve COMMAND Python3::Interpreter ${CMAKE_CURRENT_LIST_DIR}/serve_test.py $<TARGET_FILE:lockstep>
                                     ${PROJECT_SOURCE_DIR})
  set_tests_properties(viewer_serve PROPERTIES LABELS viewer TIMEOUT 120)
  add_test(NAME viewer_serve_hostile COMMAND Python3::Interpreter ${CMAKE_CURRENT_LIST_DIR}/serve_hostile_test.py
                                             $<TARGET_FILE:lockstep> ${PROJECT_SOURCE_DIR})
  set_tests_properties(viewer_serve_hostile PROPERTIES LABELS viewer TIMEOUT 180)
endif()

# examples/arena's tool (arena-lockstep, tests/arena/arena_tests.cmake) and a program that
# plants an arena desync bundle.
add_executable(plant_arena_bundle ${CMAKE_CURRENT_LIST_DIR}/plant_arena_bundle.cpp)
target_include_directories(plant_arena_bundle PRIVATE ${PROJECT_SOURCE_DIR}/examples/arena)
target_link_libraries(plant_arena_bundle PRIVATE viewer_arena_sim lockstep::inspect lockstep::replay lockstep::hash)

# Label "chromium", not "browser": these run in the default build (scripts/test), and CI's
# viewer stage (ctest -L browser) would otherwise run them a second time. Not in the
# sanitizer tree: what they add over viewer_serve and test_viewer is the page's script in a
# browser, which ASan/UBSan do not see, and a Debug+ASan tool would cost CI minutes it does
# not have (docs/viewer.md).
if(Python3_Interpreter_FOUND AND LOCKSTEP_HAVE_VIEWER_SERVER AND NOT LOCKSTEP_SANITIZE)
  foreach(case native serve)
    add_test(NAME viewer_native.${case}
             COMMAND Python3::Interpreter ${CMAKE_CURRENT_LIST_DIR}/native_browser_test.py ${case} $<TARGET_FILE:lockstep>
                     ${PROJECT_SOURCE_DIR} ${CMAKE_BINARY_DIR}/viewer-artifacts)
    set_tests_properties(viewer_native.${case} PROPERTIES LABELS chromium TIMEOUT 300 SKIP_RETURN_CODE 77)
  endforeach()
  add_test(NAME viewer_native.arena
           COMMAND Python3::Interpreter ${CMAKE_CURRENT_LIST_DIR}/native_browser_test.py arena $<TARGET_FILE:arena-lockstep>
                   ${PROJECT_SOURCE_DIR} ${CMAKE_BINARY_DIR}/viewer-artifacts $<TARGET_FILE:plant_arena_bundle>)
  set_tests_properties(viewer_native.arena PROPERTIES LABELS chromium TIMEOUT 300 SKIP_RETURN_CODE 77)
endif()
