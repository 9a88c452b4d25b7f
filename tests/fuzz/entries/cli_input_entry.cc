// SPDX-License-Identifier: Apache-2.0
// `lance-cpp import` inputs and the CLI's other text parsers (cli/lib). Byte 0 (mod 8)
// picks: CSV or JSON lines with an inferred schema, CSV or JSON lines with a fixed
// schema, JSON values, schema files, type strings, or schema inference alone; the rest
// is the text. Imports run over the whole text in small batches (every batch must
// validate); values that parse are formatted and must parse back to the same thing.
#include <string>

#include "fuzz/fuzz_entries.h"
#include "lance/macros.h"
#include "lib/importer.h"
#include "lib/json.h"
#include "lib/schema_spec.h"

namespace lance::fuzz {

namespace {

Status Import(std::string_view text, cli::InputFormat format, SchemaPtr schema) {
  cli::ImportOptions options;
  options.format = format;
  options.schema = std::move(schema);
  options.batch_rows = 16;
  options.batch_bytes = 4096;
  options.infer_rows = 32;
  options.infer_bytes = 8192;
  auto reader = cli::ImportReader::Make(std::string(text), options);
  if (!reader.ok()) return reader.status();
  return DrainChecked(**reader);
}

SchemaPtr FixedSchema() {
  return schema({field("i", int64()), field("s", utf8()), field("f", float64()),
                 field("b", boolean()), field("u", uint64())});
}

}  // namespace

Status FuzzCliInput(std::string_view data) {
  LANCE_ASSIGN_OR_RAISE(const Picked picked, PickParser(data, 8));
  const std::string_view text = picked.rest;
  switch (picked.mode) {
    case 0:
      return Import(text, cli::InputFormat::kCsv, nullptr);
    case 1:
      return Import(text, cli::InputFormat::kJsonLines, nullptr);
    case 2:
      return Import(text, cli::InputFormat::kCsv, FixedSchema());
    case 3:
      return Import(text, cli::InputFormat::kJsonLines, FixedSchema());
    case 4: {
      auto value = cli::ParseJson(text);
      if (!value.ok()) return value.status();
      const std::string written = cli::ToJsonText(*value);
      auto again = cli::ParseJson(written);
      FUZZ_CHECK(again.ok(),
                 "ToJsonText output does not parse: " + again.status().ToString());
      FUZZ_CHECK(cli::ToJsonText(*again) == written, "JSON text changed in a round trip");
      return Status::OK();
    }
    case 5: {
      auto parsed = cli::ParseSchemaJson(text);
      if (!parsed.ok()) return parsed.status();
      auto again = cli::ParseSchemaJson(cli::FormatSchemaJson(**parsed));
      FUZZ_CHECK(again.ok(),
                 "FormatSchemaJson output does not parse: " + again.status().ToString());
      return Status::OK();
    }
    case 6: {
      auto type = cli::ParseTypeString(text);
      if (!type.ok()) return type.status();
      const std::string spelled = cli::FormatTypeString(**type);
      auto again = cli::ParseTypeString(spelled);
      FUZZ_CHECK(again.ok(), "FormatTypeString output does not parse: " + spelled);
      FUZZ_CHECK((*again)->Equals(**type), "a type changed in a round trip: " + spelled);
      return Status::OK();
    }
    default: {
      auto csv = cli::InferSchema(text, cli::InputFormat::kCsv);
      auto jsonl = cli::InferSchema(text, cli::InputFormat::kJsonLines);
      return jsonl.ok() ? csv.status() : jsonl.status();
    }
  }
}

}  // namespace lance::fuzz
