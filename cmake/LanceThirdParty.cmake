# SPDX-License-Identifier: Apache-2.0
# One resolve_<dep>() per dependency. Everything comes from Debian packages; a failed
# lookup names the package to install (scripts/setup.sh installs them all).

macro(lance_require found pkg)
  if(NOT ${found})
    message(FATAL_ERROR "lance-cpp: missing dependency; install the Debian package '${pkg}' "
                        "(or run scripts/setup.sh)")
  endif()
endmacro()

function(resolve_threads)
  set(THREADS_PREFER_PTHREAD_FLAG ON)
  find_package(Threads REQUIRED)
endfunction()

function(resolve_zstd)
  find_package(PkgConfig QUIET)
  pkg_check_modules(ZSTD QUIET IMPORTED_TARGET GLOBAL libzstd)
  lance_require(ZSTD_FOUND libzstd-dev)
  add_library(lance_dep_zstd ALIAS PkgConfig::ZSTD)
endfunction()

function(resolve_lz4)
  find_package(PkgConfig QUIET)
  pkg_check_modules(LZ4 QUIET IMPORTED_TARGET GLOBAL liblz4)
  lance_require(LZ4_FOUND liblz4-dev)
  add_library(lance_dep_lz4 ALIAS PkgConfig::LZ4)
endfunction()

function(resolve_protobuf)
  find_package(Protobuf QUIET)
  lance_require(Protobuf_FOUND "libprotobuf-dev protobuf-compiler")
endfunction()

function(resolve_curl)
  find_package(CURL QUIET)
  lance_require(CURL_FOUND libcurl4-openssl-dev)
endfunction()

function(resolve_openssl)
  find_package(OpenSSL QUIET)
  lance_require(OPENSSL_FOUND libssl-dev)
endfunction()

function(resolve_nlohmann_json)
  find_package(nlohmann_json QUIET)
  lance_require(nlohmann_json_FOUND nlohmann-json3-dev)
endfunction()

function(resolve_flatbuffers)
  find_package(FlatBuffers QUIET)
  lance_require(FlatBuffers_FOUND "libflatbuffers-dev flatbuffers-compiler")
endfunction()

function(resolve_httplib)
  # Debian's cpp-httplib: a compiled library plus its header (TLS through OpenSSL).
  find_package(PkgConfig QUIET)
  pkg_check_modules(HTTPLIB QUIET IMPORTED_TARGET GLOBAL cpp-httplib)
  lance_require(HTTPLIB_FOUND libcpp-httplib-dev)
  add_library(lance_dep_httplib ALIAS PkgConfig::HTTPLIB)
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
  find_package(GTest QUIET)
  lance_require(GTest_FOUND "libgtest-dev libgmock-dev")
endif()
if(LANCE_BUILD_BENCHMARKS)
  find_package(benchmark QUIET)
  lance_require(benchmark_FOUND libbenchmark-dev)
endif()
