# The nested emscripten build of the viewer page (included by viewer/CMakeLists.txt when
# LOCKSTEP_VIEWER is on in a native build).
find_program(LOCKSTEP_EMCMAKE_CXX em++)
set(_toolchain /usr/share/emscripten/cmake/Modules/Platform/Emscripten.cmake)
if(NOT LOCKSTEP_EMCMAKE_CXX OR NOT EXISTS ${_toolchain})
  message(FATAL_ERROR "LOCKSTEP_VIEWER=ON needs emscripten (em++ and ${_toolchain}): run scripts/bootstrap --browser, "
                      "or configure with -DLOCKSTEP_VIEWER=OFF (docs/viewer.md)")
endif()
# em++ does not search /usr/include: the header-only dependencies, linked into one folder
# (as the determinism matrix does).
set(_deps ${CMAKE_CURRENT_BINARY_DIR}/wasm-header-deps)
file(MAKE_DIRECTORY ${_deps})
foreach(h xxhash.h cereal CLI rapidjson)
  if(EXISTS /usr/include/${h} AND NOT EXISTS ${_deps}/${h})
    file(CREATE_LINK /usr/include/${h} ${_deps}/${h} SYMBOLIC)
  endif()
endforeach()
include(ExternalProject)
set(_wasm ${CMAKE_CURRENT_BINARY_DIR}/wasm)
# Debian's emscripten runs node with acorn (node-acorn) from /usr/share/nodejs.
set(_env ${CMAKE_COMMAND} -E env NODE_PATH=/usr/share/nodejs)
ExternalProject_Add(lockstep_viewer_wasm_build
  SOURCE_DIR ${PROJECT_SOURCE_DIR}
  BINARY_DIR ${_wasm}
  CONFIGURE_COMMAND ${_env} ${CMAKE_COMMAND} -S ${PROJECT_SOURCE_DIR} -B ${_wasm} -G Ninja
             -DCMAKE_TOOLCHAIN_FILE=${_toolchain} -DCMAKE_BUILD_TYPE=None
             "-DCMAKE_CXX_FLAGS=-O2 -fexceptions" -DLOCKSTEP_TESTS=OFF -DLOCKSTEP_BENCHMARKS=OFF
             -DLOCKSTEP_INSTALL=OFF -DLOCKSTEP_FIXTURES=ON -DLOCKSTEP_HEADER_DEPS_DIR=${_deps}
             -DCMAKE_CXX_COMPILER_LAUNCHER=${CMAKE_CXX_COMPILER_LAUNCHER}
  BUILD_COMMAND ${_env} ${CMAKE_COMMAND} --build ${_wasm} --target lockstep_viewer_page
  INSTALL_COMMAND ""
  BUILD_ALWAYS ON  # the nested build tracks the sources itself; this only runs its ninja
  BUILD_BYPRODUCTS ${_wasm}/viewer/lockstep-viewer.html
  USES_TERMINAL_BUILD ON)
set(LOCKSTEP_VIEWER_PAGE ${_wasm}/viewer/lockstep-viewer.html CACHE INTERNAL "the built viewer page template")
# Beside the stock tool (the first place `lockstep view` looks).
if(LOCKSTEP_FIXTURES)  # the stock tool exists (defined later, in cli/)
  add_custom_target(viewer_page ALL
    COMMAND ${CMAKE_COMMAND} -E copy_if_different ${_wasm}/viewer/lockstep-viewer.html $<TARGET_FILE_DIR:lockstep>/lockstep-viewer.html
    DEPENDS lockstep_viewer_wasm_build
    COMMENT "lockstep-viewer.html beside the lockstep tool"
    VERBATIM)
else()
  add_custom_target(viewer_page ALL DEPENDS lockstep_viewer_wasm_build)
endif()
if(LOCKSTEP_INSTALL)
  install(FILES ${_wasm}/viewer/lockstep-viewer.html DESTINATION ${CMAKE_INSTALL_DATADIR}/lockstep OPTIONAL)
endif()
