# SPDX-License-Identifier: Apache-2.0
# Every protobuf of the project in one library, generated from src/ so that the generated
# headers keep their folders: #include "format/proto/file.pb.h".
set(_lance_protos
  ${CMAKE_CURRENT_SOURCE_DIR}/format/proto/file.proto
  ${CMAKE_CURRENT_SOURCE_DIR}/format/proto/file2.proto
  ${CMAKE_CURRENT_SOURCE_DIR}/format/proto/encodings_v2_0.proto
  ${CMAKE_CURRENT_SOURCE_DIR}/format/proto/encodings_v2_1.proto
  ${CMAKE_CURRENT_SOURCE_DIR}/table/proto/table.proto
  ${CMAKE_CURRENT_SOURCE_DIR}/table/proto/transaction.proto)
add_library(lance_proto STATIC ${_lance_protos})
add_library(lance::proto ALIAS lance_proto)
set_target_properties(lance_proto PROPERTIES EXPORT_NAME proto)
set_property(GLOBAL APPEND PROPERTY LANCE_LIBRARIES lance_proto)
protobuf_generate(TARGET lance_proto LANGUAGE cpp
                  IMPORT_DIRS ${CMAKE_CURRENT_SOURCE_DIR}
                  PROTOC_OUT_DIR ${PROJECT_BINARY_DIR}/gen)
# PUBLIC for the areas that link it privately (format, table) and the tests; the generated
# headers are not installed (no public header includes one).
target_include_directories(lance_proto PUBLIC $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/gen>)
target_link_libraries(lance_proto PUBLIC protobuf::libprotobuf)
