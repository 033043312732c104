/**
 * The chat requests bench/templateParity.ts sends to both servers: the shapes a family's template
 * branches on (a system prompt, several turns, tools, a call and its result, an earlier thought,
 * thinking switched off).
 */
const tools = [{
    type: "function",
    function: {
        name: "get_weather", description: "Current weather for a city",
        parameters: {type: "object", properties: {city: {type: "string", description: "City name"}, unit: {type: "string", enum: ["celsius", "fahrenheit"]}}, required: ["city"]}
    }
}];
const question = {role: "user", content: "What is the weather in Paris?"};
const call = {role: "assistant", content: "", tool_calls: [{id: "call00001", type: "function", function: {name: "get_weather", arguments: "{\"city\":\"Paris\"}"}}]};
const result = {role: "tool", tool_call_id: "call00001", content: "{\"temperature\": 18, \"sky\": \"clear\"}"};

export const parityRequests: ReadonlyArray<{name: string, body: Record<string, unknown>}> = [
    {name: "system + user", body: {messages: [{role: "system", content: "You are terse."}, {role: "user", content: "Hello there"}]}},
    {name: "multi-turn", body: {messages: [{role: "user", content: "Hi"}, {role: "assistant", content: "Hello! How can I help?"}, {role: "user", content: "Tell me a joke"}]}},
    {name: "tools", body: {messages: [{role: "system", content: "You are terse."}, question], tools}},
    {name: "tool result", body: {messages: [question, call, result], tools}},
    {name: "next turn after a result", body: {messages: [question, call, result, {role: "assistant", content: "It is 18 degrees and clear."}, {role: "user", content: "And tomorrow?"}], tools}},
    {name: "reasoning in history", body: {messages: [{role: "user", content: "2+2?"}, {role: "assistant", content: "4", reasoning_content: "Adding two and two."}, {role: "user", content: "3+3?"}]}},
    {name: "thinking off", body: {messages: [{role: "user", content: "Hello"}], chat_template_kwargs: {enable_thinking: false}}}
];
