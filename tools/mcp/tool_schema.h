// The CLI's commands as MCP tools: a command's name and flags become a tool's
// name and JSON Schema, and a tools/call's arguments become the command's Args.
// Names are snake_case (send-message → send_message, reply-to → reply_to), the
// form MCP clients and models expect.
#pragma once

#include <simdjson.h>

#include <string>

#include "tools/cli/command.h"

namespace buzz::mcp {

std::string snake_case(std::string_view flag_or_command);

// {"name":…,"description":…,"inputSchema":{"type":"object",…}} for tools/list.
std::string tool_json(const cli::Command& c);

// The command for a tool name, or nullptr.
const cli::Command* find_tool(std::string_view name);

// A tools/call's "arguments" object as the command's Args. Strings, numbers and
// booleans are all accepted as a value's text; a switch takes a boolean; a
// repeated flag takes an array (or one string). Throws CliError(kUser) for an
// unknown or ill-typed argument, or a missing required one.
cli::Args args_from_json(const cli::Command& c, simdjson::dom::element arguments);

}  // namespace buzz::mcp
