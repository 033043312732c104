// The same battery of requests (every chat-shaped API, errors above all) against the HTTP app of a tree with its
// engine double, one normalised JSON line per request. Compare two trees (a worktree of an earlier commit beside this one):
//   npx tsx scripts/compareApi/battery.mts /path/to/before > before.jsonl && npx tsx scripts/compareApi/battery.mts . > after.jsonl && diff before.jsonl after.jsonl
import request from "supertest";
import path from "node:path";
const root = path.resolve(process.argv[2] ?? ".");
const {createTestApp, MODEL} = await import(`${root}/test/http/support/testApp.ts`);
const img = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
const weather = {type: "function", function: {name: "get_weather", parameters: {type: "object", properties: {city: {type: "string"}}, required: ["city"]}}};
const user = {role: "user", content: "hi"};
const chat: unknown[] = [
  {messages: [user]}, {messages: [user], max_tokens: 3}, {messages: [user], max_completion_tokens: 2, stop: "x"},
  {messages: [{role: "system", content: "s"}, {role: "developer", content: "d"}, user]},
  {messages: [user, {role: "assistant", content: "a", reasoning_content: "t"}, user]},
  {messages: [user, {role: "assistant", content: null, tool_calls: [{id: "c1", type: "function", function: {name: "get_weather", arguments: "{\"city\":\"P\"}"}}]}, {role: "tool", tool_call_id: "c1", content: "sunny"}], tools: [weather]},
  {messages: [user, {role: "tool", tool_call_id: "nope", content: "x"}]},
  {messages: [{role: "user", content: [{type: "text"}]}]},
  {messages: [{role: "user", content: [{type: "input_audio"}]}]},
  {messages: [{role: "user", content: [{type: "image_url", image_url: {url: img}}]}]},
  {messages: [{role: "user", content: [{type: "image_url", image_url: {}}]}]},
  {messages: [{role: "system", content: [{type: "image_url", image_url: {url: img}}]}, user]},
  {messages: [user, {role: "assistant", content: [{type: "image_url", image_url: {url: img}}]}]},
  {messages: [user, {role: "assistant", content: null, tool_calls: [{id: "c1", type: "function", function: {name: "get_weather", arguments: "{}"}}]}, {role: "tool", tool_call_id: "c1", content: [{type: "text", text: "shot"}, {type: "image_url", image_url: {url: img}}]}], tools: [weather]},
  {messages: [user], tools: [weather]}, {messages: [user], tools: [weather], tool_choice: "required"}, {messages: [user], tools: [weather], tool_choice: "none"},
  {messages: [user], tools: [weather], tool_choice: {type: "function", function: {name: "get_weather"}}},
  {messages: [user], tools: [weather], tool_choice: {type: "function", function: {name: "other"}}},
  {messages: [user], tool_choice: "auto"}, {messages: [user], tools: [weather, weather]},
  {messages: [user], tools: [{type: "function", function: {name: "f", parameters: {type: "string"}}}]},
  {messages: [user], tools: [{type: "function", function: {name: "f", strict: true, parameters: {type: "object", properties: {u: {type: "string", format: "uri"}}}}}]},
  {messages: [user], tools: [{type: "function", function: {name: "f", parameters: {type: "object", properties: {u: {type: "string", format: "uri"}}}}}]},
  {messages: [user], response_format: {type: "json_object"}}, {messages: [user], response_format: {type: "json_schema", json_schema: {name: "s", schema: {type: "object", properties: {a: {type: "integer"}}}}}},
  {messages: [user], response_format: {type: "json_schema", json_schema: {name: "s", strict: true, schema: {type: "object", properties: {a: {type: "integer", multipleOf: 3}}}}}},
  {messages: [user], response_format: {type: "json_schema", json_schema: {name: "s", strict: true, schema: {type: "object", properties: {a: {$ref: "#/nope"}}}}}},
  {messages: [user], tools: [weather], response_format: {type: "json_object"}},
  {messages: [user], chat_template_kwargs: {enable_thinking: false}}, {messages: [user], chat_template_kwargs: {foo: 1}},
  {messages: [user], n: 2}, {messages: [user], n: 500}, {messages: [user], logprobs: true, top_logprobs: 2}, {messages: [user], top_logprobs: 2},
  {messages: [user], logit_bias: {"5": 10}}, {messages: [user], logit_bias: {"99999999": 10}}, {messages: [user], seed: -5, temperature: 0.2, top_p: 0.5},
  {messages: [user], functions: [{name: "f"}]}, {messages: [user], stream_options: {include_usage: true}},
  {messages: [user], stream: true}, {messages: [user], stream: true, stream_options: {include_usage: true}, n: 2},
  {messages: [user], tools: [weather], tool_choice: "required", stream: true},
  {messages: [user], model: "nope"}, {messages: []}
];
const messages: unknown[] = [
  {messages: [user]}, {system: "s", messages: [user]}, {system: [{type: "text", text: "x-anthropic-billing-header: 1"}, {type: "text", text: "sys"}], messages: [user]},
  {messages: [user, {role: "assistant", content: [{type: "thinking", thinking: "t", signature: "s"}, {type: "text", text: "a"}, {type: "tool_use", id: "t1", name: "get_weather", input: {city: "P"}}]}, {role: "user", content: [{type: "tool_result", tool_use_id: "t1", content: "sunny"}, {type: "text", text: "more"}]}], tools: [{name: "get_weather", input_schema: weather.function.parameters}]},
  {messages: [user, {role: "user", content: [{type: "tool_result", tool_use_id: "nope", content: "x"}]}]},
  {messages: [{role: "user", content: [{type: "image", source: {type: "base64", media_type: "image/png", data: img.split(",")[1]}}]}]},
  {messages: [{role: "user", content: [{type: "image", source: {type: "base64", media_type: "application/pdf", data: "AAAA"}}]}]},
  {messages: [{role: "user", content: [{type: "image", source: {type: "file", file_id: "f"}}]}]},
  {messages: [{role: "user", content: [{type: "document", source: {type: "text", data: "x"}}]}]},
  {messages: [user, {role: "assistant", content: [{type: "tool_use", id: "t1", name: "get_weather", input: {}}]}, {role: "user", content: [{type: "tool_result", tool_use_id: "t1", is_error: true, content: [{type: "text", text: "bad"}, {type: "image", source: {type: "base64", media_type: "image/png", data: "AAAA"}}]}]}], tools: [{name: "get_weather", input_schema: weather.function.parameters}]},
  {messages: [user], tools: [{name: "f", input_schema: {type: "string"}}]},
  {messages: [user], tools: [{name: "f", strict: true, input_schema: {type: "object", properties: {u: {type: "string", format: "uri"}}}}]},
  {messages: [user], tools: [{type: "web_search_20250305", name: "web_search"}], tool_choice: {type: "tool", name: "web_search"}},
  {messages: [user], tools: [{name: "get_weather", input_schema: weather.function.parameters}], tool_choice: {type: "any", disable_parallel_tool_use: true}},
  {messages: [user], tools: [{name: "get_weather", input_schema: weather.function.parameters}], tool_choice: {type: "tool", name: "other"}},
  {messages: [user], thinking: {type: "disabled"}, stop_sequences: ["x"], temperature: 0.5},
  {messages: [user], stream: true}, {messages: [user], tools: [{name: "get_weather", input_schema: weather.function.parameters}], tool_choice: {type: "any"}, stream: true},
  {messages: [user], model: "nope"}
];
const responses: unknown[] = [
  {input: "hi"}, {input: "hi", instructions: "be brief"}, {input: []},
  {input: [{role: "user", content: [{type: "input_text", text: "a"}, {type: "input_image", image_url: img}]}]},
  {input: [{role: "user", content: [{type: "input_image", file_id: "f"}]}]},
  {input: [{role: "user", content: [{type: "input_image"}]}]},
  {input: [{role: "user", content: [{type: "input_file", file_id: "f"}]}]},
  {input: [{role: "developer", content: [{type: "input_image", image_url: img}]}, {role: "user", content: "x"}]},
  {input: [{role: "user", content: "x"}, {type: "function_call_output", call_id: "nope", output: "x"}]},
  {input: [{role: "user", content: "x"}, {type: "reasoning", summary: [{type: "summary_text", text: "t"}]}, {type: "function_call", call_id: "c1", name: "get_weather", arguments: "{}"}, {type: "function_call_output", call_id: "c1", output: [{type: "input_text", text: "sunny"}, {type: "input_image", image_url: img}]}], tools: [{type: "function", name: "get_weather", parameters: weather.function.parameters}]},
  {input: [{role: "user", content: "x"}, {type: "function_call", call_id: "c1", name: "get_weather", arguments: "{}"}, {type: "function_call_output", call_id: "c1", output: [{type: "input_file", file_id: "f"}]}], tools: [{type: "function", name: "get_weather", parameters: weather.function.parameters}]},
  {input: [{type: "mystery_item"}]},
  {input: "hi", tools: [{type: "function", name: "f", parameters: {type: "string"}}]},
  {input: "hi", tools: [{type: "function", name: "f", strict: true, parameters: {type: "object", properties: {u: {type: "string", format: "uri"}}}}]},
  {input: "hi", tools: [{type: "web_search"}, {type: "namespace", name: "ns", tools: [{type: "function", name: "g", strict: true, parameters: {type: "object", properties: {u: {type: "string", format: "uri"}}}}]}]},
  {input: "hi", tools: [{type: "function", name: "f", parameters: weather.function.parameters}], tool_choice: {type: "function", name: "other"}},
  {input: "hi", tools: [{type: "function", name: "f", parameters: weather.function.parameters}], tool_choice: {type: "web_search"}},
  {input: "hi", text: {format: {type: "json_object"}}}, {input: "hi", text: {format: {type: "json_schema", name: "s", strict: true, schema: {type: "object", properties: {a: {type: "integer", multipleOf: 2}}}}}},
  {input: "hi", reasoning: {effort: "none"}, max_output_tokens: 5, temperature: 0.3},
  {input: "hi", previous_response_id: "resp_nope"}, {input: "hi", stream: true}, {input: "hi", model: "nope"}
];
const completions: unknown[] = [{prompt: "hi"}, {prompt: ["a", "b"], n: 2}, {prompt: "hi", best_of: 3}, {prompt: "hi", echo: true, suffix: "x"}, {prompt: "hi", suffix: "x"}, {prompt: [1, 2, 3]}, {prompt: "hi", stream: true}];
const embeddings: unknown[] = [{input: "hi"}, {input: ["a", "b"]}, {input: []}];
const normal = (text: string) => text.replace(/(chatcmpl|cmpl|resp|msg|toolu|call|fc|rs)[-_][A-Za-z0-9]+/g, "$1_ID").replace(/"created(_at)?":\s*\d+/g, "\"created$1\":0").replace(/"seed":\d+/g, "").replace(/req_[0-9a-f]+/g, "req_ID");
const {app} = createTestApp();
const send = async (path: string, body: Record<string, unknown>) => {
  const res = await request(app).post(path).send(body);
  console.log(JSON.stringify({path, body: JSON.stringify(body).slice(0, 160), status: res.status, type: res.headers["content-type"], out: normal(res.text)}));
};
for (const extra of chat) await send("/v1/chat/completions", {model: MODEL, ...extra as object});
for (const extra of messages) { await send("/v1/messages", {model: MODEL, max_tokens: 20, ...extra as object}); await send("/v1/messages/count_tokens", {model: MODEL, ...extra as object, stream: undefined}); }
for (const extra of responses) { await send("/v1/responses", {model: MODEL, ...extra as object}); await send("/v1/responses/input_tokens", {model: MODEL, ...extra as object, stream: undefined}); }
for (const extra of completions) await send("/v1/completions", {model: MODEL, ...extra as object});
for (const extra of embeddings) await send("/v1/embeddings", {model: MODEL, ...extra as object});
process.exit(0);
