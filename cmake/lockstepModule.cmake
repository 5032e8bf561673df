# lockstep_module(<name> [PUBLIC <targets>...] [PRIVATE <header-only targets>...])
#
# Declares one lockstep module from the folder it is called in: a static library
# `lockstep_<name>` (alias and exported name `lockstep::<name>`) built from src/*.cpp, with
# include/ as its public headers and src/ private. Adding a module to the build, the install
# tree and the exported package (lockstepConfig.cmake) is this one call.
#
# PUBLIC:  other lockstep modules (or anything exported) the module's headers need.
# PRIVATE: header-only third-party targets (cereal::cereal, CLI11::CLI11) compiled into the
#          module. They are wrapped in $<BUILD_INTERFACE:...>, so the installed package's link
#          interface names none of them and a game needs none of them installed.
include(GNUInstallDirs)

function(lockstep_module name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "PUBLIC;PRIVATE")
  set(target lockstep_${name})
  file(GLOB srcs CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/src/*.cpp)
  if(srcs)
    add_library(${target} STATIC ${srcs})
    set(scope PUBLIC)
    target_include_directories(${target} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src)
    foreach(dep IN LISTS arg_PRIVATE)
      target_link_libraries(${target} PRIVATE $<BUILD_INTERFACE:${dep}>)
    endforeach()
  else()
    add_library(${target} INTERFACE)
    set(scope INTERFACE)
  endif()
  add_library(lockstep::${name} ALIAS ${target})
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${name})
  target_include_directories(${target} ${scope}
    $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  target_compile_features(${target} ${scope} cxx_std_20)
  if(arg_PUBLIC)
    target_link_libraries(${target} ${scope} ${arg_PUBLIC})
  endif()
  if(LOCKSTEP_INSTALL)
    install(TARGETS ${target} EXPORT lockstepTargets
            ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
            INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
    install(DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  endif()
  set_property(GLOBAL APPEND PROPERTY LOCKSTEP_MODULES ${name})
endfunction()
