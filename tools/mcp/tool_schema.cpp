#include "tools/mcp/tool_schema.h"

#include <cctype>

#include "engine/json_text.h"
#include "tools/cli/cli_error.h"

namespace buzz::mcp {
namespace {

using cli::CliError;
using cli::Category;
using cli::Flag;

// A flag's help as a property's description: the CLI's "or - for stdin" is
// not so under MCP, and "--flag" is the property "flag".
std::string description(std::string help) {
  if (size_t at = help.find(", or - for stdin"); at != std::string::npos) help.erase(at);
  for (size_t at; (at = help.find("--")) != std::string::npos;) {
    help.erase(at, 2);
    for (; at < help.size() && (std::isalnum(uint8_t(help[at])) || help[at] == '-'); ++at) {
      if (help[at] == '-') help[at] = '_';
    }
  }
  return help;
}

std::string property_schema(const Flag& f) {
  JsonFields out;
  switch (f.kind) {
    case Flag::kSwitch:
      out.string("type", "boolean");
      break;
    case Flag::kRepeated:
      out.string("type", "array").json("items", R"({"type":"string"})");
      break;
    case Flag::kValue:
      out.string("type", "string");
      break;
  }
  return out.string("description", description(f.help)).str();
}

// A scalar's text: a string as is, a number or boolean as written in JSON.
std::string scalar_text(const std::string& property, simdjson::dom::element v) {
  std::string_view s;
  if (!v.get(s)) return std::string(s);
  if (v.is_number() || v.is_bool()) return simdjson::minify(v);
  throw CliError(Category::kUser, "argument '" + property + "' must be a string");
}

}  // namespace

std::string snake_case(std::string_view name) {
  std::string out(name);
  for (char& c : out) c = c == '-' ? '_' : c;
  return out;
}

std::string tool_json(const cli::Command& c) {
  JsonFields properties;
  std::vector<std::string> required;
  for (const Flag& f : c.flags) {
    properties.json(snake_case(f.name), property_schema(f));
    if (f.required) required.push_back(snake_case(f.name));
  }
  JsonFields schema;
  schema.string("type", "object").json("properties", properties.str());
  if (!required.empty()) schema.json("required", json_string_array(required));
  schema.boolean("additionalProperties", false);
  return JsonFields()
      .string("name", snake_case(c.name))
      .string("description", c.summary)
      .json("inputSchema", schema.str())
      .str();
}

const cli::Command* find_tool(std::string_view name) {
  for (const cli::Command& c : cli::tool_commands()) {
    if (name == snake_case(c.name)) return &c;
  }
  return nullptr;
}

cli::Args args_from_json(const cli::Command& c, simdjson::dom::element arguments) {
  cli::Args args;
  args.set_dash_reads_stdin(false);
  simdjson::dom::object object;
  if (arguments.get(object)) throw CliError(Category::kUser, "arguments must be an object");
  for (auto [key, value] : object) {
    const std::string property(key);
    const Flag* flag = nullptr;
    for (const Flag& f : c.flags) {
      if (property == snake_case(f.name)) flag = &f;
    }
    if (!flag) throw CliError(Category::kUser, "unexpected argument '" + property + "'");
    if (value.is_null()) continue;  // a client's way of leaving an optional out
    if (flag->kind == Flag::kSwitch) {
      bool on = false;
      if (value.get(on)) throw CliError(Category::kUser, "argument '" + property + "' must be a boolean");
      if (on) args.add(flag->name, "true");
    } else if (simdjson::dom::array items; flag->kind == Flag::kRepeated && !value.get(items)) {
      for (simdjson::dom::element item : items) args.add(flag->name, scalar_text(property, item));
    } else {
      args.add(flag->name, scalar_text(property, value));
    }
  }
  std::string missing;
  for (const Flag& f : c.flags) {
    if (f.required && !args.has(f.name)) missing += (missing.empty() ? "" : ", ") + snake_case(f.name);
  }
  if (!missing.empty()) throw CliError(Category::kUser, "missing required argument(s): " + missing);
  return args;
}

}  // namespace buzz::mcp
