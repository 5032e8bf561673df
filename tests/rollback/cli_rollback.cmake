# End-to-end tests of `lockstep synctest` and `lockstep netsim` (tests/rollback/cli_rollback.sh),
# label "rollback_cli". Included from tests/CMakeLists.txt when the `lockstep` target exists.
set(_rb_sh ${CMAKE_CURRENT_LIST_DIR}/cli_rollback.sh)
set(_rb_work ${CMAKE_CURRENT_BINARY_DIR}/rollback_cli)
foreach(case synctest_duel synctest_skirmish synctest_replay synctest_broken synctest_usage
             netsim_duel4 netsim_deterministic netsim_skirmish netsim_broken netsim_unfinished netsim_usage)
  add_test(NAME rollback_cli.${case} COMMAND bash ${_rb_sh} ${case} $<TARGET_FILE:lockstep> ${_rb_work})
  set_tests_properties(rollback_cli.${case} PROPERTIES LABELS rollback_cli TIMEOUT 300)
endforeach()
# Multi-process matches over UDP on 127.0.0.1 (tests/rollback/udp_match.sh), label "rollback_udp".
# They run in real time, so Debug (invariant checks) and sanitizer builds play smaller matches.
set(_udp_scale 1)
if(CMAKE_BUILD_TYPE STREQUAL "Debug" OR LOCKSTEP_SANITIZE)
  set(_udp_scale 8)
endif()
foreach(case usage duel2 skirmish4 kill restart rejoin rejoin_mesh4 rejoin_spectator desync_bundle follow relay relay_failover)
  add_test(NAME rollback_udp.${case}
           COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/udp_match.sh ${case} $<TARGET_FILE:lockstep> ${_rb_work} ${_udp_scale})
  set_tests_properties(rollback_udp.${case} PROPERTIES LABELS rollback_udp TIMEOUT 120)
endforeach()
set_tests_properties(rollback_udp.rejoin PROPERTIES TIMEOUT 300)  # 10 kill-and-rejoin matches
set_tests_properties(rollback_udp.rejoin_mesh4 PROPERTIES TIMEOUT 300)  # 3 four-peer matches, two rejoins each
# skirmish8 matches of one player per process, 5 % loss and 30 ms one way on every link (issue
# 38): 4 peers run by default; the 8-peer match is opt-in (label "slow", exit 77 = skipped unless
# LOCKSTEP_SLOW_TESTS=1 is set: `LOCKSTEP_SLOW_TESTS=1 ctest -L slow`).
add_test(NAME rollback_udp.skirmish8_peers4
         COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/udp_match.sh skirmish8_peers4 $<TARGET_FILE:lockstep> ${_rb_work} ${_udp_scale})
set_tests_properties(rollback_udp.skirmish8_peers4 PROPERTIES LABELS rollback_udp TIMEOUT 120)
add_test(NAME rollback_udp.skirmish8_peers8
         COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/udp_match.sh skirmish8_peers8 $<TARGET_FILE:lockstep> ${_rb_work} ${_udp_scale})
set_tests_properties(rollback_udp.skirmish8_peers8 PROPERTIES LABELS "rollback_udp;slow" TIMEOUT 180 SKIP_RETURN_CODE 77)
# Watching (issue 39): a follower of a file that grows in 512-byte pieces checks every recorded
# hash (follow_growing); a relay that never answers, forged relay data, the derived key's
# warning (watch_messages, with relay_serve: a relay serving any file's bytes, keyed as a peer's).
add_executable(relay_serve ${CMAKE_CURRENT_LIST_DIR}/relay_serve_tool.cpp)
target_link_libraries(relay_serve PRIVATE lockstep::rollback)
add_test(NAME rollback_udp.follow_growing
         COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/udp_match.sh follow_growing $<TARGET_FILE:lockstep> ${_rb_work} ${_udp_scale})
add_test(NAME rollback_udp.watch_messages
         COMMAND ${CMAKE_COMMAND} -E env RELAY_SERVE=$<TARGET_FILE:relay_serve>
                 bash ${CMAKE_CURRENT_LIST_DIR}/udp_match.sh watch_messages $<TARGET_FILE:lockstep> ${_rb_work} ${_udp_scale})
set_tests_properties(rollback_udp.follow_growing rollback_udp.watch_messages PROPERTIES LABELS rollback_udp TIMEOUT 120)

# The hostile-network suite (tests/rollback/hostile_match.sh), label "rollback_hostile": the
# peers talk through hostile_proxy, an attacker in the path. Real time; 10 runs per handshake
# and forgery case (3 in Debug and sanitizer builds).
add_executable(hostile_proxy ${CMAKE_CURRENT_LIST_DIR}/hostile_proxy_tool.cpp)
target_link_libraries(hostile_proxy PRIVATE lockstep::rollback)
if(TARGET PkgConfig::SODIUM)  # forge-as-peer signs its forgeries as a player would
  target_link_libraries(hostile_proxy PRIVATE PkgConfig::SODIUM)
  target_compile_definitions(hostile_proxy PRIVATE LOCKSTEP_TEST_HAVE_SODIUM=1)
endif()
set(_hostile_runs 10)
if(CMAKE_BUILD_TYPE STREQUAL "Debug" OR LOCKSTEP_SANITIZE)
  set(_hostile_runs 3)
endif()
foreach(case offpath_sync replay_handshake forge forged_hash_noauth resend flood key_file forge_as_peer identity_files)
  add_test(NAME rollback_hostile.${case}
           COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/hostile_match.sh ${case} $<TARGET_FILE:lockstep>
                   $<TARGET_FILE:hostile_proxy> ${_rb_work} ${_hostile_runs})
  set_tests_properties(rollback_hostile.${case} PROPERTIES LABELS rollback_hostile TIMEOUT 240)
endforeach()

# Following a live recording over HTTP (udp_match.sh follow_http): a Range-capable static
# server made with cpp-httplib, when the build has it and the CLI has libcurl.
find_package(PkgConfig QUIET)
if(PkgConfig_FOUND)
  pkg_check_modules(TEST_HTTPLIB QUIET IMPORTED_TARGET cpp-httplib)
endif()
if(TEST_HTTPLIB_FOUND AND TARGET PkgConfig::CURL)
  add_executable(range_server ${CMAKE_CURRENT_LIST_DIR}/range_server_tool.cpp)
  target_link_libraries(range_server PRIVATE PkgConfig::TEST_HTTPLIB)
  add_test(NAME rollback_udp.follow_http
           COMMAND ${CMAKE_COMMAND} -E env RANGE_SERVER=$<TARGET_FILE:range_server>
                   bash ${CMAKE_CURRENT_LIST_DIR}/udp_match.sh follow_http $<TARGET_FILE:lockstep> ${_rb_work} ${_udp_scale})
  set_tests_properties(rollback_udp.follow_http PROPERTIES LABELS rollback_udp TIMEOUT 120)
endif()
