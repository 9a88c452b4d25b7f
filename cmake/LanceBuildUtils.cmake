# SPDX-License-Identifier: Apache-2.0

# lance_add_library(<area> [DEPS ...] [PRIVATE_DEPS ...]): the static library lance_<area>
# (alias lance::<area>, exported as lance::<area> too) from every .cc under src/<area>/
# (subfolders included). Sources are globbed so that adding a file to an area needs no CMake
# edit.
#
# include/ is the library's PUBLIC include path; src/ is PRIVATE: code built on the library
# (cli/, python/, tools/, examples/, bench/) sees the public API only. Tests get src/ through
# lance_testing (tests/CMakeLists.txt); scripts/check_layers.py checks the rest (which area
# may include which).
# DEPS are needed by the public headers or by the areas above (PUBLIC); PRIVATE_DEPS only by
# the library's own sources (their include paths do not reach the users; static libraries
# still pass them on to the link).
function(lance_add_library area)
  cmake_parse_arguments(ARG "" "" "DEPS;PRIVATE_DEPS;SOURCES" ${ARGN})
  file(GLOB_RECURSE _srcs CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cc)
  if(NOT _srcs AND NOT ARG_SOURCES)
    # An area that has only headers so far still links (keeps the dependency graph honest).
    set(_srcs ${PROJECT_SOURCE_DIR}/cmake/empty.cc)
  endif()
  add_library(lance_${area} STATIC ${_srcs} ${ARG_SOURCES})
  add_library(lance::${area} ALIAS lance_${area})
  set_target_properties(lance_${area} PROPERTIES EXPORT_NAME ${area})
  target_include_directories(lance_${area}
    PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include> $<INSTALL_INTERFACE:include>
    PRIVATE ${PROJECT_SOURCE_DIR}/src)
  target_compile_features(lance_${area} PUBLIC cxx_std_20)
  target_compile_options(lance_${area} PRIVATE -Wall -Wextra -Wno-unused-parameter)
  if(LANCE_WARNINGS_AS_ERRORS)
    target_compile_options(lance_${area} PRIVATE -Werror)
  endif()
  target_link_libraries(lance_${area} PUBLIC ${ARG_DEPS} PRIVATE ${ARG_PRIVATE_DEPS})
  set_property(GLOBAL APPEND PROPERTY LANCE_LIBRARIES lance_${area})
endfunction()

# lance_add_test(<area> [DEPS ...] [LABELS ...]): one gtest executable <area>_test from
# every *_test.cc under tests/<area>/ (subfolders included), registered with ctest under the
# given labels (default unit). A test labelled unit is labelled asan too: the ASan+UBSan
# pass (scripts/run_tests.sh run_asan) runs label asan, which other suites join by naming
# it (the S3 suite: LABELS s3 asan); `ninja asan_tests` builds them all.
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
    if(NOT "asan" IN_LIST ARG_LABELS)
      list(APPEND ARG_LABELS asan)
    endif()
  endif()
  if("asan" IN_LIST ARG_LABELS)
    add_dependencies(asan_tests ${area}_test)
  endif()
  add_test(NAME ${area}_test COMMAND ${area}_test --gtest_brief=1)
  set_tests_properties(${area}_test PROPERTIES LABELS "${ARG_LABELS}" TIMEOUT 900)
endfunction()

# lance_add_tsan_test(<name> TARGET <test executable> [FILTER <gtest filter>]
#                     [ENVIRONMENT ...]): in a LANCE_ENABLE_TSAN build only, the ctest <name>
# (label tsan) running TARGET, restricted to the tests FILTER selects, and TARGET added to
# `ninja tsan_tests`. Other builds register nothing (their ctest runs TARGET whole already).
function(lance_add_tsan_test name)
  cmake_parse_arguments(ARG "" "TARGET;FILTER" "ENVIRONMENT" ${ARGN})
  if(NOT LANCE_ENABLE_TSAN OR NOT TARGET ${ARG_TARGET})
    return()
  endif()
  set(_args --gtest_brief=1)
  if(ARG_FILTER)
    list(APPEND _args --gtest_filter=${ARG_FILTER})
  endif()
  add_dependencies(tsan_tests ${ARG_TARGET})
  add_test(NAME ${name} COMMAND ${ARG_TARGET} ${_args})
  set_tests_properties(${name} PROPERTIES LABELS tsan TIMEOUT 900)
  if(ARG_ENVIRONMENT)
    set_tests_properties(${name} PROPERTIES ENVIRONMENT "${ARG_ENVIRONMENT}")
  endif()
endfunction()
