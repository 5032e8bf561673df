# examples/arena built here the way the game builds it (lockstep_add_sim / lockstep_add_tool, no
# emscripten): its tool (arena-lockstep, also used by the viewer tests) and its terminal client.
#   arena_play.help/match   arena-play without a terminal (play.sh)
#   arena_tmux.two_people   two arena-play processes in tmux panes, keys sent to each, play a
#                           match over UDP; the replays must agree, verify and hold the keys
#                           pressed (two_people.sh). Needs tmux (scripts/bootstrap installs it).
lockstep_add_sim(viewer_arena_sim ${PROJECT_SOURCE_DIR}/examples/arena/arena.cpp REGISTER arena::register_sims)
lockstep_add_tool(arena-lockstep SIMS viewer_arena_sim)
add_executable(arena-play ${PROJECT_SOURCE_DIR}/examples/arena/arena_play.cpp)
target_link_libraries(arena-play PRIVATE viewer_arena_sim lockstep::rollback)

# arena-play without a terminal (play.sh): --help, and a match of two players who press
# nothing (the ring drawn and explained, the labelled score, the result line at the end).
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  foreach(case help match)
    add_test(NAME arena_play.${case} COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/play.sh ${case} $<TARGET_FILE:arena-play>
                                             ${CMAKE_CURRENT_BINARY_DIR}/arena_play)
    set_tests_properties(arena_play.${case} PROPERTIES LABELS arena TIMEOUT 120)
  endforeach()
endif()

find_program(LOCKSTEP_TMUX tmux)
if(LOCKSTEP_TMUX AND Python3_Interpreter_FOUND)
  add_test(NAME arena_tmux.two_people
           COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/two_people.sh $<TARGET_FILE:arena-play> $<TARGET_FILE:arena-lockstep>
                   ${CMAKE_CURRENT_BINARY_DIR}/arena_tmux)
  set_tests_properties(arena_tmux.two_people PROPERTIES LABELS arena_tmux TIMEOUT 180)
endif()
