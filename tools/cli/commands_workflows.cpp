// Workflows and approvals (§B.2): plain REST calls, no signed events.
#include "engine/json_text.h"
#include "tools/cli/cli_error.h"
#include "tools/cli/command.h"
#include "tools/cli/session.h"
#include "tools/cli/validate.h"

namespace buzz::cli {
namespace {

std::string yaml_body(const Args& a) {
  return json_object({{"yaml_definition", json_string(a.text("yaml"))}});
}

std::string workflow_path(const Args& a) { return "/api/workflows/" + checked_uuid(a.value("workflow")); }

std::string list_workflows(Session& s, const Args& a) {
  return s.request("GET", "/api/channels/" + checked_uuid(a.value("channel")) + "/workflows");
}

std::string create_workflow(Session& s, const Args& a) {
  const std::string channel = checked_uuid(a.value("channel"));
  return s.request("POST", "/api/channels/" + channel + "/workflows", yaml_body(a));
}

std::string update_workflow(Session& s, const Args& a) {
  const std::string path = workflow_path(a);
  return s.request("PUT", path, yaml_body(a));
}

std::string delete_workflow(Session& s, const Args& a) { return s.request("DELETE", workflow_path(a)); }
std::string trigger_workflow(Session& s, const Args& a) { return s.request("POST", workflow_path(a) + "/trigger", "{}"); }
std::string get_workflow(Session& s, const Args& a) { return s.request("GET", workflow_path(a)); }

std::string get_workflow_runs(Session& s, const Args& a) {
  const std::string path = workflow_path(a);
  return s.request("GET", path + "/runs?limit=" + std::to_string(clamped_limit("limit", a.get("limit"), 20, 100)));
}

std::string approve_step(Session& s, const Args& a) {
  const std::string token = checked_uuid(a.value("token"));
  const std::string& approved = a.value("approved");
  if (approved != "true" && approved != "false") {
    throw CliError(Category::kUser, "--approved must be 'true' or 'false' (got: " + approved + ")");
  }
  std::vector<std::pair<std::string, std::string>> fields;
  if (auto note = a.get("note")) fields.emplace_back("note", json_string(*note));
  const std::string body = json_object(std::move(fields));
  return s.request("POST", "/api/approvals/" + token + (approved == "true" ? "/grant" : "/deny"), body);
}

}  // namespace

std::vector<Command> workflow_commands() {
  using F = Flag;
  const Flag workflow = {"workflow", F::kValue, true, "workflow UUID"};
  const Flag yaml = {"yaml", F::kValue, true, "the workflow definition, or - for stdin"};
  return {
      {"list-workflows", "List a channel's workflows", {{"channel", F::kValue, true, "channel UUID"}}, list_workflows},
      {"create-workflow", "Create a workflow in a channel", {{"channel", F::kValue, true, "channel UUID"}, yaml},
       create_workflow},
      {"update-workflow", "Replace a workflow's definition", {workflow, yaml}, update_workflow},
      {"delete-workflow", "Delete a workflow", {workflow}, delete_workflow},
      {"trigger-workflow", "Run a workflow now", {workflow}, trigger_workflow},
      {"get-workflow-runs", "A workflow's recent runs", {workflow, {"limit", F::kValue, false, "rows (default 20, max 100)"}},
       get_workflow_runs},
      {"get-workflow", "Show one workflow", {workflow}, get_workflow},
      {"approve-step", "Grant or deny a workflow step waiting for approval",
       {{"token", F::kValue, true, "approval token (UUID)"},
        {"approved", F::kValue, true, "true or false"},
        {"note", F::kValue, false, "a note for the run's record"}},
       approve_step},
  };
}

}  // namespace buzz::cli
