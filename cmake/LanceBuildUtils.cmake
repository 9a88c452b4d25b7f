# SPDX-License-Identifier: Apache-2.0

# lance_add_library(<area> [DEPS ...]): the static library lance_<area> (alias lance::<area>)
# from every .cc under src/<area>/ (subfolders included). Sources are globbed so that adding a file to an area
# needs no CMake edit.
function(lance_add_library area)
  cmake_parse_arguments(ARG "" "" "DEPS;SOURCES" ${ARGN})
  file(GLOB_RECURSE _srcs CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cc)
  if(NOT _srcs AND NOT ARG_SOURCES)
    # An area that has only headers so far still links (keeps the dependency graph honest).
    set(_srcs ${PROJECT_SOURCE_DIR}/cmake/empty.cc)
  endif()
  add_library(lance_${area} STATIC ${_srcs} ${ARG_SOURCES})
  add_library(lance::${area} ALIAS lance_${area})
  target_include_directories(lance_${area} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/src>)
  target_compile_features(lance_${area} PUBLIC cxx_std_20)
  target_compile_options(lance_${area} PRIVATE -Wall -Wextra -Wno-unused-parameter)
  if(LANCE_WARNINGS_AS_ERRORS)
    target_compile_options(lance_${area} PRIVATE -Werror)
  endif()
  target_link_libraries(lance_${area} PUBLIC ${ARG_DEPS})
endfunction()

# lance_add_test(<area> [DEPS ...] [LABELS ...]): one gtest executable <area>_test from
# every *_test.cc under tests/<area>/ (subfolders included), registered with ctest under the given labels.
function(lance_add_test area)
  cmake_parse_arguments(ARG "" "" "DEPS;LABELS" ${ARGN})
  file(GLOB_RECURSE _srcs CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*_test.cc)
  if(NOT _srcs)
    return()
  endif()
  add_executable(${area}_test ${_srcs})
  target_link_libraries(${area}_test PRIVATE lance_testing ${ARG_DEPS} GTest::gmock
                                             GTest::gtest_main)
  target_compile_options(${area}_test PRIVATE -Wall -Wno-unused-parameter)
  if(NOT ARG_LABELS)
    set(ARG_LABELS unit)
  endif()
  if("unit" IN_LIST ARG_LABELS)
    add_dependencies(unit_tests ${area}_test)
  endif()
  add_test(NAME ${area}_test COMMAND ${area}_test --gtest_brief=1)
  set_tests_properties(${area}_test PROPERTIES LABELS "${ARG_LABELS}" TIMEOUT 900)
endfunction()
