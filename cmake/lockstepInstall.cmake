# The installed package: `cmake --install` puts headers, the static libraries of every
# lockstep_module(), the exported targets (lockstep::<module>, lockstep::determinism), the
# helpers and a pkg-config file for the kernel under the prefix. A game then uses
#   find_package(lockstep 0.3 CONFIG REQUIRED)   # lockstep::*, lockstep_add_sim/_tool
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(LOCKSTEP_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/lockstep)
install(TARGETS lockstep_determinism EXPORT lockstepTargets)
install(EXPORT lockstepTargets NAMESPACE lockstep:: DESTINATION ${LOCKSTEP_CMAKE_DIR})

get_property(LOCKSTEP_MODULES GLOBAL PROPERTY LOCKSTEP_MODULES)
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/lockstepConfig.cmake.in
  ${PROJECT_BINARY_DIR}/lockstepConfig.cmake INSTALL_DESTINATION ${LOCKSTEP_CMAKE_DIR})
# 0.x: a minor version may break the API, so 0.3 accepts 0.3.* only (not 0.2, not 0.4).
write_basic_package_version_file(${PROJECT_BINARY_DIR}/lockstepConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/lockstepConfig.cmake ${PROJECT_BINARY_DIR}/lockstepConfigVersion.cmake
              ${CMAKE_CURRENT_LIST_DIR}/lockstepHelpers.cmake ${CMAKE_CURRENT_LIST_DIR}/lockstepEmbedReplay.cmake
        DESTINATION ${LOCKSTEP_CMAKE_DIR})

# pkg-config for the kernel alone (no dependencies beyond the standard library).
file(RELATIVE_PATH LOCKSTEP_PC_TO_PREFIX ${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig ${CMAKE_INSTALL_PREFIX})
configure_file(${CMAKE_CURRENT_LIST_DIR}/lockstep-kernel.pc.in ${PROJECT_BINARY_DIR}/lockstep-kernel.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/lockstep-kernel.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
