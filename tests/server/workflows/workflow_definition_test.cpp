// server/workflows/definition.cpp, duration.cpp and template.cpp: the YAML
// schema, the validation messages of docs/reference/workflows.md §3, canonical JSON (§2.5),
// durations (§2.4) and templates (§6).
#include <gtest/gtest.h>

#include "server/workflows/definition.h"
#include "server/workflows/duration.h"
#include "server/workflows/template.h"

namespace buzz::server {
namespace {

std::string error_of(const std::string& yaml) {
  auto d = parse_definition(yaml);
  EXPECT_FALSE(d.ok()) << yaml;
  return d ? "" : d.error();
}

std::string steps(const std::string& step_lines) { return "name: W\ntrigger:\n  on: webhook\nsteps:\n" + step_lines; }

TEST(WorkflowDefinition, CanonicalJsonOfTheSpecExample) {
  auto d = parse_definition(R"(name: Incident Triage
trigger:
  on: message_posted
  filter: 'str_contains(trigger_text, "P1")'
steps:
  - id: notify
    action: send_message
    text: "P1 incident detected: {{trigger.text}}"
    unknown_key: ignored
extra: ignored
)");
  ASSERT_TRUE(d.ok()) << d.error();
  EXPECT_EQ(definition_json(*d, false),
            R"({"name":"Incident Triage","description":null,)"
            R"J("trigger":{"on":"message_posted","filter":"str_contains(trigger_text, \"P1\")"},)J"
            R"("steps":[{"id":"notify","name":null,"if":null,"timeout_secs":null,)"
            R"("action":"send_message","text":"P1 incident detected: {{trigger.text}}","channel":null}],)"
            R"("enabled":true})");
}

TEST(WorkflowDefinition, StoredJsonReadsBackTheSame) {
  auto d = parse_definition(steps(R"(  - id: call
    action: call_webhook
    url: https://example.com/x
    headers:
      Content-Type: application/json
      X-Token: "a\"b"
    body: '{"k": "{{trigger.text}}"}'
    timeout_secs: 20
  - id: wait
    if: 'trigger_status == "failed"'
    action: delay
    duration: 60s
enabled: false
)"));
  ASSERT_TRUE(d.ok()) << d.error();
  d->webhook_secret = "00000000-0000-4000-8000-000000000000";
  const std::string json = definition_json(*d, true);
  EXPECT_NE(json.find(R"("headers":{"Content-Type":"application/json","X-Token":"a\"b"},"body")"), std::string::npos);
  EXPECT_NE(json.find(R"("_webhook_secret":")"), std::string::npos);
  EXPECT_EQ(definition_json(*d, false).find("_webhook_secret"), std::string::npos);
  auto again = parse_definition(json);
  ASSERT_TRUE(again.ok()) << again.error();
  EXPECT_EQ(definition_json(*again, true), json);
  EXPECT_FALSE(again->enabled);
  EXPECT_EQ(again->webhook_secret, d->webhook_secret);
}

TEST(WorkflowDefinition, ValidationMessagesOfSection3) {
  EXPECT_EQ(error_of("name: '  '\ntrigger: {on: webhook}\nsteps: [{id: a, action: delay, duration: 1s}]"),
            "invalid definition: name is required and must not be empty");
  EXPECT_EQ(error_of("name: W\ntrigger: {on: webhook}\nsteps: []"), "invalid definition: at least one step is required");
  EXPECT_EQ(error_of(steps("  - {id: '', action: delay, duration: 1s}\n")), "invalid definition: step id must not be empty");
  EXPECT_EQ(error_of(steps("  - {id: 'a-b', action: delay, duration: 1s}\n")),
            "invalid definition: step id 'a-b' is invalid: must contain only alphanumeric characters and underscores");
  EXPECT_NE(error_of(steps("  - {id: " + std::string(65, 'a') + ", action: delay, duration: 1s}\n")).find("is invalid"),
            std::string::npos);
  EXPECT_EQ(error_of(steps("  - {id: a, action: delay, duration: 1s}\n  - {id: a, action: delay, duration: 1s}\n")),
            "invalid definition: duplicate step id: a");
  const std::string schedule = "name: W\ntrigger:\n  on: schedule\n";
  const std::string one_step = "steps: [{id: a, action: delay, duration: 1s}]\n";
  EXPECT_EQ(error_of(schedule + one_step), "invalid definition: schedule trigger requires either 'cron' or 'interval'");
  EXPECT_EQ(error_of(schedule + "  cron: '* * * * *'\n  interval: 1h\n" + one_step),
            "invalid definition: schedule trigger cannot specify both 'cron' and 'interval'; use one or the other");
  EXPECT_EQ(error_of(schedule + "  cron: '0 9 * * 0'\n" + one_step).rfind("invalid definition: invalid cron expression '0 9 * * 0': ", 0), 0u);
  EXPECT_EQ(error_of(schedule + "  interval: soon\n" + one_step),
            "invalid definition: invalid interval 'soon': expected a duration like '30m', '1h', or '60s'");
  EXPECT_EQ(error_of(schedule + "  interval: 59s\n" + one_step),
            "invalid definition: interval must be at least 60s (cron loop ticks every 60 seconds)");
  EXPECT_TRUE(parse_definition(schedule + "  interval: 1m\n" + one_step).ok());
}

TEST(WorkflowDefinition, ShapeErrorsAreInvalidYaml) {
  EXPECT_EQ(error_of("name: [unclosed").rfind("invalid YAML: ", 0), 0u);
  EXPECT_EQ(error_of("trigger: {on: webhook}\nsteps: []"), "invalid YAML: missing field `name` at line 1 column 1");
  EXPECT_NE(error_of("name: W\ntrigger: {on: sometimes}\nsteps: []").find("unknown variant `sometimes`"), std::string::npos);
  EXPECT_NE(error_of(steps("  - {id: a, action: launch}\n")).find("unknown variant `launch`"), std::string::npos);
  EXPECT_NE(error_of(steps("  - {id: a, action: send_message}\n")).find("missing field `text`"), std::string::npos);
  EXPECT_NE(error_of(steps("  - {id: a, action: delay, duration: 1s, timeout_secs: -3}\n")).find("timeout_secs"),
            std::string::npos);
  EXPECT_NE(error_of("name: W\nenabled: maybe\ntrigger: {on: webhook}\nsteps: []").find("enabled"), std::string::npos);
  EXPECT_EQ(error_of("just a string").rfind("invalid YAML: ", 0), 0u);
}

TEST(WorkflowDefinition, HostileDocumentsAreRefusedCleanly) {
  EXPECT_NE(error_of(std::string(70000, '#')).find("more than the limit of 65536"), std::string::npos);
  // Deep nesting and alias bombs parse (or fail) as values, never crash.
  EXPECT_EQ(error_of("name: " + std::string(5000, '[') + std::string(5000, ']')).rfind("invalid YAML: ", 0), 0u);
  std::string bomb = "a: &a [x, x, x, x, x, x, x, x]\n";
  for (char c = 'b'; c <= 'j'; ++c) {
    bomb += std::string(1, c) + ": &" + c + " [*" + char(c - 1) + ", *" + char(c - 1) + ", *" + char(c - 1) + "]\n";
  }
  bomb += "name: *j\ntrigger: {on: webhook}\nsteps: []\n";
  EXPECT_EQ(error_of(bomb).rfind("invalid YAML: ", 0), 0u);
  std::string many_steps;
  for (int i = 0; i < 101; ++i) many_steps += "  - {id: s" + std::to_string(i) + ", action: delay, duration: 1s}\n";
  EXPECT_NE(error_of(steps(many_steps)).find("more than the limit of 100"), std::string::npos);
}

TEST(WorkflowDefinition, BuzzSaveTimeChecks) {
  EXPECT_EQ(error_of(steps("  - {id: a, if: 'x = 1', action: delay, duration: 1s}\n")).rfind("invalid definition: step 'a': ", 0), 0u);
  EXPECT_EQ(error_of(steps("  - {id: a, action: delay, duration: 301s}\n")),
            "invalid definition: step 'a': delay exceeds maximum of 300 seconds (got 301s); use the scheduled resume "
            "pattern for long delays");
  EXPECT_EQ(error_of(steps("  - {id: a, action: delay, duration: 1h30m}\n")), "invalid definition: step 'a': invalid duration: 1h30m");
  EXPECT_EQ(error_of(steps("  - {id: a, action: request_approval, from: any, message: m, timeout: forever}\n")),
            "invalid definition: step 'a': invalid duration: forever");
  EXPECT_EQ(error_of("name: W\ntrigger: {on: message_posted, filter: 'str_contains(('}\nsteps: [{id: a, action: delay, duration: 1s}]")
                .rfind("invalid definition: trigger filter: ", 0),
            0u);
}

TEST(WorkflowDuration, Grammar) {
  EXPECT_EQ(*parse_duration(" 30m "), 1800u);
  EXPECT_EQ(*parse_duration("2h"), 7200u);
  EXPECT_EQ(*parse_duration("45"), 45u);
  EXPECT_EQ(*parse_duration("45s"), 45u);
  EXPECT_EQ(parse_duration("1.5h").error(), "invalid duration: 1.5h");
  EXPECT_EQ(parse_duration("h").error(), "invalid duration: h");
  EXPECT_EQ(parse_duration("-5s").error(), "invalid duration: -5s");
  EXPECT_EQ(parse_duration("99999999999999999999").error(), "duration overflow: 99999999999999999999");
  EXPECT_EQ(parse_duration("9999999999999999h").error(), "duration overflow: 9999999999999999h");
}

RunContext context() {
  RunContext c;
  c.trigger.text = "héllo wörld";
  c.trigger.author = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
  c.trigger.webhook_fields = {{"service", "api"}, {"text", "shadowed"}};
  c.outputs["page"] = {{"status", OutputValue::integer(201)}, {"ok", OutputValue::boolean(true)},
                       {"none", OutputValue::null()}, {"a.b", OutputValue::string("dotted")}};
  return c;
}

std::string render(std::string_view t) {
  auto r = render_template(t, context());
  EXPECT_TRUE(r.ok()) << t << ": " << (r ? "" : r.error());
  return r ? *r : "";
}

TEST(WorkflowTemplate, Substitution) {
  EXPECT_EQ(render("no braces"), "no braces");
  EXPECT_EQ(render("{{trigger.text}}!"), "héllo wörld!");
  EXPECT_EQ(render("{{ trigger.service }}/{{trigger.text}}"), "api/héllo wörld");  // standard names shadow webhook keys
  EXPECT_EQ(render("{{steps.page.output.status}} {{steps.page.output.ok}} [{{steps.page.output.none}}]"), "201 true []");
  EXPECT_EQ(render("{{steps.page.output.a.b}}"), "dotted");
  EXPECT_EQ(render("{{ unknown.thing }} {{steps.nope.output.x}}"), "{{unknown.thing}} {{steps.nope.output.x}}");
  EXPECT_EQ(render("{{trigger.text"), "{{trigger.text");
  EXPECT_EQ(render("{{trigger.text | truncate(3)}}"), "hél");
  EXPECT_EQ(render("{{trigger.author | truncate_pubkey}}"), "012345...abcdef");
  EXPECT_EQ(render("{{trigger.service | truncate_pubkey}}"), "api");
  EXPECT_EQ(render("{{missing | shout}}"), "{{missing | shout}}");  // unresolved: the filter is not applied
  // One pass: a substituted value is never rescanned.
  RunContext c = context();
  c.trigger.text = "{{trigger.author}}";
  EXPECT_EQ(*render_template("{{trigger.text}}", c), "{{trigger.author}}");
}

TEST(WorkflowTemplate, FilterErrors) {
  EXPECT_EQ(render_template("{{trigger.text | shout}}", context()).error(), "template error: unknown filter: shout");
  EXPECT_EQ(render_template("{{trigger.text | truncate(x)}}", context()).error(),
            "template error: truncate() requires a number, got: x");
}

TEST(WorkflowContext, ConditionVariables) {
  RunContext c = context();
  c.trigger.webhook_fields.push_back({"trigger_text", "spoof"});
  auto v = c.variables();
  EXPECT_EQ(v.at("trigger_text").s, "héllo wörld");  // standard names win
  EXPECT_EQ(v.at("trigger_service").s, "api");
  EXPECT_FALSE(v.contains("trigger_trigger_text"));
  EXPECT_EQ(v.at("steps_page_output_status").i, 201);
  EXPECT_EQ(v.at("steps_page_output_none").type, engine::ConditionValue::Type::kEmpty);
  EXPECT_FALSE(c.variables(false).contains("steps_page_output_status"));
  auto back = TriggerContext::from_json(c.trigger.to_json());
  EXPECT_EQ(back.text, c.trigger.text);
  EXPECT_EQ(back.webhook_fields.size(), c.trigger.webhook_fields.size());
}

}  // namespace
}  // namespace buzz::server
