import type {AgentScript} from "../../test/fixtures/gguf/agentModel.js";

/**
 * Asks chatserve's chat completions, as a plain client would, for the two turns a scripted model
 * was built for: with the tool offered, it must call it with the scripted arguments; with that
 * call's result in the history, it must answer. A failure here is the harness's (the model or its
 * vocabulary), not a client's, and is reported as such before any client runs.
 */
export async function preflight(origin: string, model: string, script: AgentScript): Promise<string | null> {
    // Any object: the client's own schema is the client's business; here the script alone is checked.
    const tools = [{type: "function", function: {name: script.call.name, description: "a tool", parameters: {type: "object"}}}];
    const user = {role: "user", content: "Use the tool, then answer."};
    const first = await complete(origin, {model, tools, messages: [user]});
    const call = first.choices?.[0]?.message?.tool_calls?.[0]?.function;
    if (call?.name !== script.call.name || call.arguments !== script.call.arguments)
        return `turn 1 should call ${script.call.name}(${script.call.arguments}); chatserve answered ${JSON.stringify(first).slice(0, 400)}`;
    const second = await complete(origin, {model, tools, messages: [
        user,
        {role: "assistant", content: null, tool_calls: [{id: "call_1", type: "function", function: call}]},
        {role: "tool", tool_call_id: "call_1", content: "done"}
    ]});
    const content = second.choices?.[0]?.message?.content;
    return content === script.answer ? null : `turn 2 should answer ${JSON.stringify(script.answer)}; chatserve answered ${JSON.stringify(second).slice(0, 400)}`;
}

type Completion = {choices?: Array<{message?: {content?: string | null, tool_calls?: Array<{function?: {name: string, arguments: string}}>}}>};

async function complete(origin: string, body: object): Promise<Completion> {
    const response = await fetch(`${origin}/v1/chat/completions`, {method: "POST", headers: {"content-type": "application/json"}, body: JSON.stringify({...body, temperature: 0})});
    return await response.json() as Completion;
}
