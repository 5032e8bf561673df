# End-to-end tests of the `lockstep` CLI (tests/cli/e2e.sh), run by ctest with label "cli".
# Per fixture (fixtures/<sim>/<sim>.replay + .trace): verify vs golden, tampered traces,
# trace and convert round trips, info, truncation. Plus usage/exit-code and bad-input cases.
set(_e2e ${CMAKE_CURRENT_LIST_DIR}/e2e.sh)
set(_work ${CMAKE_CURRENT_BINARY_DIR}/cli_e2e)
function(lockstep_cli_test name)
  add_test(NAME cli.${name} COMMAND bash ${_e2e} ${name} $<TARGET_FILE:lockstep> ${PROJECT_SOURCE_DIR} ${_work} ${ARGN})
  set_tests_properties(cli.${name} PROPERTIES LABELS cli TIMEOUT 300)
endfunction()

foreach(case help usage garbage unknown_sim run_default record_verify skirmish8 bench)
  lockstep_cli_test(${case})
endforeach()

# cli.version: `lockstep --version` exactly, its build lines spelled from what CMake knows of this
# build (the compiler's version as CMAKE_CXX_COMPILER_VERSION, the target as desync bundles name it).
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  set(_version_compiler "gcc ${CMAKE_CXX_COMPILER_VERSION}")
else()
  set(_version_compiler "clang ${CMAKE_CXX_COMPILER_VERSION}")
endif()
set(_version_arch ${CMAKE_SYSTEM_PROCESSOR})
if(_version_arch MATCHES "^(AMD64|amd64)$")
  set(_version_arch x86_64)
elseif(_version_arch MATCHES "^(arm64|ARM64)$")
  set(_version_arch aarch64)
elseif(_version_arch MATCHES "^i[3-6]86$")
  set(_version_arch i686)
endif()
math(EXPR _version_bits "${CMAKE_SIZEOF_VOID_P} * 8")
if(CMAKE_CXX_BYTE_ORDER STREQUAL "BIG_ENDIAN")
  set(_version_order big-endian)
else()
  set(_version_order little-endian)
endif()
string(TOLOWER "${CMAKE_SYSTEM_NAME}" _version_os)
lockstep_cli_test(version "${_version_compiler}" "${_version_arch} ${_version_order} ${_version_bits}-bit ${_version_os}"
                  "${CMAKE_BUILD_TYPE}")

file(GLOB _fixture_replays CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/fixtures/*/*.replay)
foreach(replay ${_fixture_replays})
  get_filename_component(stem ${replay} NAME_WE)
  get_filename_component(dir ${replay} DIRECTORY)
  if(EXISTS ${dir}/${stem}.trace)
    foreach(case verify_golden tampered_trace trace_roundtrip convert_roundtrip info truncated mismatch)
      lockstep_cli_test(${case}.${stem} ${replay} ${dir}/${stem}.trace)
    endforeach()
  endif()
endforeach()

# Reliability cases (tests/cli/reliability.sh): destinations, bounded reads, stdout errors,
# damaged-but-complete replays. Exit 77 = skipped (e.g. not root for the device-node part).
set(_rel ${CMAKE_CURRENT_LIST_DIR}/reliability.sh)
function(lockstep_cli_reliability name)
  add_test(NAME cli.${name} COMMAND bash ${_rel} ${name} $<TARGET_FILE:lockstep> ${PROJECT_SOURCE_DIR} ${_work} ${ARGN})
  set_tests_properties(cli.${name} PROPERTIES LABELS cli TIMEOUT 120 SKIP_RETURN_CODE 77
                       ENVIRONMENT LOCKSTEP_SANITIZED=${LOCKSTEP_SANITIZE})
endfunction()
foreach(case bounded_reads stdout_full destinations messages)
  lockstep_cli_reliability(${case})
endforeach()
foreach(replay ${_fixture_replays})
  get_filename_component(stem ${replay} NAME_WE)
  lockstep_cli_reliability(damaged_length.${stem} ${replay})
endforeach()
