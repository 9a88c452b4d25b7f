# SPDX-License-Identifier: Apache-2.0
# `cmake --install <build> [--prefix P] [--component lance_cpp]`: the public headers
# (include/lance), the static libraries (lance_core ... lance_namespace, lance_server and
# lance_proto, the generated protobufs that format, table and dataset link) and a CMake
# package, so that a project outside the tree does
#
#   find_package(lance_cpp CONFIG REQUIRED)   # CMAKE_PREFIX_PATH=P
#   target_link_libraries(app PRIVATE lance::namespace)
#
# The private headers (src/) and the generated ones are not installed: no public header
# includes one (scripts/check_layers.py, rule public-private). tests/install builds
# examples/ against an installed prefix.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

get_property(_lance_libs GLOBAL PROPERTY LANCE_LIBRARIES)
set(_lance_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/lance_cpp)

install(TARGETS ${_lance_libs} EXPORT lance_cppTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT lance_cpp
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/lance
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT lance_cpp
        FILES_MATCHING PATTERN "*.h" PATTERN "*.def")
install(EXPORT lance_cppTargets NAMESPACE lance:: DESTINATION ${_lance_cmake_dir}
        COMPONENT lance_cpp)

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/lance_cppConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/lance_cppConfig.cmake
                              INSTALL_DESTINATION ${_lance_cmake_dir})
# 0.x: a new minor version may change the API.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/lance_cppConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/lance_cppConfig.cmake
              ${PROJECT_BINARY_DIR}/lance_cppConfigVersion.cmake
        DESTINATION ${_lance_cmake_dir} COMPONENT lance_cpp)
