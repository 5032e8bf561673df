# CMake helpers for games built on lockstep (docs/embedding.md). Shipped in the installed
# package (find_package(lockstep CONFIG) includes this file) and included by lockstep's own
# build, so `add_subdirectory(lockstep)` / FetchContent users get the same functions.
#
#   lockstep_add_sim(<target> <sources>... [REGISTER <function>])
#       A static library holding a game's sims. Links lockstep::replay, gets the determinism
#       flags (lockstep::determinism) and the fast-math guard. REGISTER names the game's
#       registration function, `void ns::fn()`, which calls lockstep::replay::register_sim for
#       each sim; lockstep_add_tool calls it from the generated main.
#
#   lockstep_add_tool(<tool> SIMS <targets>... [REGISTER <function>...]
#                     [DEFAULT_REPLAY <file>] [NAME <shown name>] [NO_ALLOCATION_COUNTER])
#       An executable with every `lockstep` subcommand working on the given sims. Its main is
#       generated: it calls each registration function, then lockstep::cli::main. With
#       DEFAULT_REPLAY the file is compiled in (`<tool> run` with no argument replays it);
#       without, `run` and `info` ask for a replay file. The tool links lockstep::alloc_counter
#       (counting global operator new, for `bench`) unless NO_ALLOCATION_COUNTER, e.g. when the
#       tool replaces the global allocation functions itself.
#
#   lockstep_link_sims(<target> SIMS <targets>... [REGISTER <function>...])
#       Links a game's sims into an executable that has its own main — the game's test suite
#       (lockstep::testing), the game itself — and registers them before main runs, the way
#       lockstep_add_tool does: a generated source of <target> calls the SIMS' REGISTER
#       functions (and the ones given here); SIMS without one are linked whole-archive
#       (CMake >= 3.24). Without it, a test linking a static library of self-registering
#       sims finds none of them (lockstep::testing then says "not registered").
#
#   lockstep_check_determinism_flags(<target>)
#       Refuses (configure error) -ffast-math, -Ofast and their parts on a sim target; also
#       compiled in as a build-time #error on __FAST_MATH__. Applied by lockstep_add_sim; call
#       it on plain targets that hold sim code (and link lockstep::determinism to them).
#
# Registration and static linking: a sim that registers itself from a static initializer in
# a static library is dropped by the linker when nothing else references its object file.
# lockstep_add_tool (and lockstep_link_sims, for executables with their own main) therefore
# calls the registration functions explicitly; a SIMS target without one (no REGISTER
# anywhere) is linked whole-archive (CMake >= 3.24) so its static initializers survive. Both
# paths are tested (tests/tool/, tests/testing/static_sims.cmake).
include_guard(GLOBAL)
# Global, not a variable: the functions are called from other directories (a game's
# CMakeLists above an add_subdirectory(lockstep)), where lockstep's variables are not visible.
set_property(GLOBAL PROPERTY LOCKSTEP_HELPERS_DIR ${CMAKE_CURRENT_LIST_DIR})

function(_lockstep_check_flags_now target)
  # Flags that make floating point, if any reached a sim path, differ between builds.
  set(forbidden -ffast-math -Ofast -funsafe-math-optimizations -fassociative-math -freciprocal-math
                -ffp-contract=fast /fp:fast)
  set(sources "")
  list(APPEND sources "CMAKE_CXX_FLAGS=${CMAKE_CXX_FLAGS}")
  foreach(cfg ${CMAKE_BUILD_TYPE} ${CMAKE_CONFIGURATION_TYPES})
    string(TOUPPER "${cfg}" cfg_upper)
    list(APPEND sources "CMAKE_CXX_FLAGS_${cfg_upper}=${CMAKE_CXX_FLAGS_${cfg_upper}}")
  endforeach()
  get_target_property(opts ${target} COMPILE_OPTIONS)
  if(opts)
    string(REPLACE ";" " " opts "${opts}")
    list(APPEND sources "COMPILE_OPTIONS of ${target}=${opts}")
  endif()
  get_target_property(flags ${target} COMPILE_FLAGS)
  if(flags)
    list(APPEND sources "COMPILE_FLAGS of ${target}=${flags}")
  endif()
  get_target_property(dir ${target} SOURCE_DIR)
  get_directory_property(dir_opts DIRECTORY ${dir} COMPILE_OPTIONS)
  if(dir_opts)
    string(REPLACE ";" " " dir_opts "${dir_opts}")
    list(APPEND sources "add_compile_options in ${dir}=${dir_opts}")
  endif()
  foreach(entry IN LISTS sources)
    string(REGEX MATCHALL "[^ \t\"<>:,]+" tokens "${entry}")
    if(entry MATCHES "/fp:fast")
      list(APPEND tokens /fp:fast)
    endif()
    foreach(flag IN LISTS tokens)
      if(NOT flag IN_LIST forbidden)
        continue()
      endif()
      message(FATAL_ERROR
        "lockstep: sim target '${target}' would be compiled with '${flag}' (${entry}).\n"
        "Fast-math flags reorder and contract floating-point operations differently per compiler "
        "and CPU; lockstep sims must build with -ffp-contract=off -fno-fast-math "
        "(docs/determinism.md, rule 6). Remove the flag from sim targets.")
    endforeach()
  endforeach()
endfunction()

function(lockstep_check_determinism_flags target)
  # Now, and again at the end of the directory (flags added after the call are seen too).
  _lockstep_check_flags_now(${target})
  # (Deferred arguments are expanded when the call runs: bake the name in now.)
  cmake_language(EVAL CODE "cmake_language(DEFER CALL _lockstep_check_flags_now [[${target}]])")
  # Build time: GCC and Clang define __FAST_MATH__ under -ffast-math / -Ofast, however the
  # flag got there (toolchain file, environment, per-source option).
  set(guard ${CMAKE_CURRENT_BINARY_DIR}/${target}_determinism_guard.cpp)
  file(CONFIGURE OUTPUT ${guard} CONTENT
"// Generated by lockstep_check_determinism_flags(${target}). Do not edit.
#if defined(__FAST_MATH__)
#error \"lockstep: sim target '${target}' is compiled with -ffast-math or -Ofast (docs/determinism.md, rule 6)\"
#endif
")
  target_sources(${target} PRIVATE ${guard})
  target_link_libraries(${target} PRIVATE lockstep::determinism)
endfunction()

function(lockstep_add_sim target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "REGISTER" "SOURCES")
  add_library(${target} STATIC ${arg_SOURCES} ${arg_UNPARSED_ARGUMENTS})
  target_link_libraries(${target} PUBLIC lockstep::replay lockstep::kernel)
  lockstep_check_determinism_flags(${target})
  if(arg_REGISTER)
    set_target_properties(${target} PROPERTIES LOCKSTEP_SIM_REGISTER "${arg_REGISTER}")
  endif()
endfunction()

# "a::b::fn" -> "namespace a::b { void fn(); }" (or "void fn();").
function(_lockstep_declare_function qualified out_var)
  if(NOT qualified MATCHES "^(::)?([A-Za-z_][A-Za-z0-9_]*::)*[A-Za-z_][A-Za-z0-9_]*$")
    message(FATAL_ERROR "lockstep_add_tool: REGISTER '${qualified}' is not a function name like ns::register_sims")
  endif()
  string(REGEX REPLACE "^::" "" qualified "${qualified}")
  string(REGEX MATCH "[A-Za-z_][A-Za-z0-9_]*$" fn "${qualified}")
  string(REGEX REPLACE "(::)?[A-Za-z_][A-Za-z0-9_]*$" "" ns "${qualified}")
  if(ns)
    set(${out_var} "namespace ${ns} { void ${fn}(); }" PARENT_SCOPE)
  else()
    set(${out_var} "void ${fn}();" PARENT_SCOPE)
  endif()
endfunction()

# The sims' link items and registration code, shared by lockstep_add_tool and
# lockstep_link_sims: SIMS with a registration function (theirs, or one given with REGISTER)
# are linked plainly and their functions called; the others whole-archive, so their static
# initializers survive. Sets <prefix>_link, <prefix>_decls and <prefix>_calls.
function(_lockstep_sims caller prefix register_given)
  set(register ${register_given})
  set(link "")
  foreach(sim IN LISTS ARGN)
    if(NOT TARGET ${sim})
      message(FATAL_ERROR "${caller}: '${sim}' is not a target")
    endif()
    set(real ${sim})
    get_target_property(aliased ${sim} ALIASED_TARGET)
    if(aliased)
      set(real ${aliased})
    endif()
    get_target_property(fn ${real} LOCKSTEP_SIM_REGISTER)
    if(fn)
      list(APPEND register ${fn})
      list(APPEND link ${sim})
    elseif(register_given)
      list(APPEND link ${sim})
    else()
      # No registration function anywhere: keep the library's static initializers.
      if(CMAKE_VERSION VERSION_LESS 3.24)
        message(FATAL_ERROR "${caller}: '${sim}' has no REGISTER function; "
                            "self-registering sims need CMake >= 3.24 (whole-archive linking)")
      endif()
      list(APPEND link "$<LINK_LIBRARY:WHOLE_ARCHIVE,${sim}>")
    endif()
  endforeach()
  list(REMOVE_DUPLICATES register)
  set(decls "")
  set(calls "")
  foreach(fn IN LISTS register)
    _lockstep_declare_function(${fn} decl)
    string(APPEND decls "${decl}\n")
    string(REGEX REPLACE "^::" "" fn "${fn}")
    string(APPEND calls "  ::${fn}();\n")
  endforeach()
  set(${prefix}_link "${link}" PARENT_SCOPE)
  set(${prefix}_decls "${decls}" PARENT_SCOPE)
  set(${prefix}_calls "${calls}" PARENT_SCOPE)
endfunction()

function(lockstep_link_sims target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "SIMS;REGISTER")
  if(NOT arg_SIMS)
    message(FATAL_ERROR "lockstep_link_sims(${target}): SIMS <targets> is required")
  endif()
  if(NOT TARGET ${target})
    message(FATAL_ERROR "lockstep_link_sims(${target}): '${target}' is not a target")
  endif()
  get_target_property(type ${target} TYPE)
  if(NOT type MATCHES "^(EXECUTABLE|SHARED_LIBRARY|MODULE_LIBRARY)$")
    # The generated registration would sit in a static library: dropped like the sims.
    message(FATAL_ERROR "lockstep_link_sims(${target}): '${target}' is a ${type}; link the sims into the "
                        "executable (or shared library) that uses them")
  endif()
  _lockstep_sims("lockstep_link_sims(${target})" sims "${arg_REGISTER}" ${arg_SIMS})
  target_link_libraries(${target} PRIVATE ${sims_link})
  if(sims_calls)
    set(gen ${CMAKE_CURRENT_BINARY_DIR}/lockstep_sims_${target}/register_sims.cpp)
    file(CONFIGURE OUTPUT ${gen} @ONLY CONTENT
"// Generated by lockstep_link_sims(${target}) (cmake/lockstepHelpers.cmake). Do not edit.
// Registers the sims before main runs, from an object file of ${target} itself: the linker
// keeps it, unlike a static initializer inside a static library.
${sims_decls}
namespace {
[[maybe_unused]] const bool lockstep_sims_registered = [] {
${sims_calls}  return true;
}();
}  // namespace
")
    target_sources(${target} PRIVATE ${gen})
  endif()
endfunction()

function(lockstep_add_tool tool)
  cmake_parse_arguments(PARSE_ARGV 1 arg "NO_ALLOCATION_COUNTER" "DEFAULT_REPLAY;NAME" "SIMS;REGISTER")
  if(NOT arg_SIMS)
    message(FATAL_ERROR "lockstep_add_tool(${tool}): SIMS <targets> is required")
  endif()
  if(NOT arg_NAME)
    set(arg_NAME ${tool})
  endif()
  _lockstep_sims("lockstep_add_tool(${tool})" sims "${arg_REGISTER}" ${arg_SIMS})
  set(link ${sims_link})
  set(decls "${sims_decls}")
  set(calls "${sims_calls}")

  get_property(helpers_dir GLOBAL PROPERTY LOCKSTEP_HELPERS_DIR)
  set(gen ${CMAKE_CURRENT_BINARY_DIR}/lockstep_tool_${tool})
  set(replay_src "")
  if(arg_DEFAULT_REPLAY)
    get_filename_component(replay_abs ${arg_DEFAULT_REPLAY} ABSOLUTE)
    set(replay_src ${gen}/default_replay.cpp)
    add_custom_command(
      OUTPUT ${replay_src}
      COMMAND ${CMAKE_COMMAND} -DIN=${replay_abs} -DOUT=${replay_src}
              -P ${helpers_dir}/lockstepEmbedReplay.cmake
      DEPENDS ${replay_abs} ${helpers_dir}/lockstepEmbedReplay.cmake
      COMMENT "Embedding the default replay of ${tool} (${arg_DEFAULT_REPLAY})"
      VERBATIM)
    set(default_replay_code
"  tool.default_replay = std::span<const std::byte>(reinterpret_cast<const std::byte*>(lockstep::cli::kEmbeddedReplay),
                                                   lockstep::cli::kEmbeddedReplaySize);
  tool.default_replay_name = lockstep::cli::kEmbeddedReplayName;
")
  else()
    set(default_replay_code "  // No DEFAULT_REPLAY: `run` and `info` need a replay file.\n")
  endif()
  set(count_allocations 1)
  if(arg_NO_ALLOCATION_COUNTER)
    set(count_allocations 0)
  endif()
  set(has_replay 0)
  if(arg_DEFAULT_REPLAY)
    set(has_replay 1)
  endif()
  file(CONFIGURE OUTPUT ${gen}/main.cpp @ONLY CONTENT
"// Generated by lockstep_add_tool(${tool}) (cmake/lockstepHelpers.cmake). Do not edit.
// Registers the tool's sims, then hands the command line to the lockstep CLI library.
#include <lockstep/cli/cli.h>
#if ${count_allocations}
#include <lockstep/alloc_counter/alloc_counter.h>
#endif

#include <cstddef>
#include <span>

${decls}
#if ${has_replay}
namespace lockstep::cli {
extern const unsigned char kEmbeddedReplay[];
extern const std::size_t kEmbeddedReplaySize;
extern const char kEmbeddedReplayName[];
}  // namespace lockstep::cli
#endif

int main(int argc, char** argv) {
${calls}  lockstep::cli::ToolInfo tool;
  tool.name = \"${arg_NAME}\";
${default_replay_code}#if ${count_allocations}
  tool.heap_allocations = &lockstep::alloc_counter::heap_allocations;
#endif
  return lockstep::cli::main(argc, argv, tool);
}
")
  add_executable(${tool} ${gen}/main.cpp ${replay_src})
  target_link_libraries(${tool} PRIVATE lockstep::cli ${link} lockstep::determinism)
  if(count_allocations)
    target_link_libraries(${tool} PRIVATE lockstep::alloc_counter)
  endif()
endfunction()
