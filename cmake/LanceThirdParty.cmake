# SPDX-License-Identifier: Apache-2.0
# One resolve_<dep>() per dependency. Everything comes from Debian packages; a failed
# lookup names the package to install (scripts/setup.sh installs them all).

macro(lance_require found pkg)
  if(NOT ${found})
    message(FATAL_ERROR "lance-cpp: missing dependency; install the Debian package '${pkg}' "
                        "(or run scripts/setup.sh)")
  endif()
endmacro()

# A pkg-config module as the imported target lance_dep_<name>, e.g. lance_dep_zstd.
function(lance_resolve_pkg_config name prefix module debian_pkg)
  find_package(PkgConfig QUIET)
  pkg_check_modules(${prefix} QUIET IMPORTED_TARGET GLOBAL ${module})
  lance_require(${prefix}_FOUND "${debian_pkg}")
  add_library(lance_dep_${name} ALIAS PkgConfig::${prefix})
endfunction()

# A CMake package (find_package) whose <found_var> says whether it was found.
macro(lance_resolve_package package found_var debian_pkg)
  find_package(${package} QUIET)
  lance_require(${found_var} "${debian_pkg}")
endmacro()

function(resolve_threads)
  set(THREADS_PREFER_PTHREAD_FLAG ON)
  find_package(Threads REQUIRED)
endfunction()

function(resolve_zstd)
  lance_resolve_pkg_config(zstd ZSTD libzstd libzstd-dev)
endfunction()

function(resolve_lz4)
  lance_resolve_pkg_config(lz4 LZ4 liblz4 liblz4-dev)
endfunction()

function(resolve_protobuf)
  lance_resolve_package(Protobuf Protobuf_FOUND "libprotobuf-dev protobuf-compiler")
endfunction()

function(resolve_curl)
  lance_resolve_package(CURL CURL_FOUND libcurl4-openssl-dev)
endfunction()

function(resolve_openssl)
  lance_resolve_package(OpenSSL OPENSSL_FOUND libssl-dev)
endfunction()

function(resolve_nlohmann_json)
  lance_resolve_package(nlohmann_json nlohmann_json_FOUND nlohmann-json3-dev)
endfunction()

function(resolve_flatbuffers)
  lance_resolve_package(FlatBuffers FlatBuffers_FOUND "libflatbuffers-dev flatbuffers-compiler")
endfunction()

function(resolve_httplib)
  # Debian's cpp-httplib: a compiled library plus its header (TLS through OpenSSL).
  lance_resolve_pkg_config(httplib HTTPLIB cpp-httplib libcpp-httplib-dev)
endfunction()

resolve_threads()
resolve_zstd()
resolve_lz4()
resolve_protobuf()
resolve_curl()
resolve_openssl()
resolve_nlohmann_json()
resolve_flatbuffers()
resolve_httplib()

if(LANCE_BUILD_TESTS)
  lance_resolve_package(GTest GTest_FOUND "libgtest-dev libgmock-dev")
endif()
if(LANCE_BUILD_BENCHMARKS)
  lance_resolve_package(benchmark benchmark_FOUND libbenchmark-dev)
endif()
