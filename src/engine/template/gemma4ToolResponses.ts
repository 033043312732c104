import type {TemplateMessage} from "./templateMessage.js";

/** An assistant turn as Gemma 4's older official templates read it: its calls' results inside it. */
export type Gemma4Turn = TemplateMessage & {tool_responses?: Array<{name: string, response: unknown}>};

/**
 * Whether the template is one of Gemma 4's first official templates (`google-gemma-4-31B-it-
 * interleaved`), which read a call's results from the assistant message (`tool_responses`), not
 * from `tool` messages; the later ones say they take OpenAI's messages.
 */
export function readsGemma4ToolResponses(source: string): boolean {
    return source.includes("'<|tool_call>call:'") && !source.includes("{#- OpenAI Chat Completions:");
}

/**
 * Each assistant message with calls, the `tool` messages after it and the answer that follows
 * them become one assistant turn, as llama.cpp's workaround for these templates has it
 * (common/parsers/gemma4.cpp): each result named after its call, its content parsed where it is
 * JSON; the answer, where one follows, as the turn's content.
 */
export function withGemma4ToolResponses(messages: readonly TemplateMessage[]): Gemma4Turn[] {
    const turns: Gemma4Turn[] = [];
    for (let at = 0; at < messages.length;) {
        const message = messages[at]!;
        if (message.role !== "assistant" || message.tool_calls == null || message.tool_calls.length === 0) {
            turns.push(message);
            at++;
            continue;
        }
        const calls = message.tool_calls;
        const responses: NonNullable<Gemma4Turn["tool_responses"]> = [];
        for (at++; messages[at]?.role === "tool"; at++) {
            const result = messages[at]!;
            const name = calls[responses.length]?.function.name || result.tool_call_id || "";
            responses.push({name, response: parsedOrText(result.content)});
        }
        const next = messages[at];
        const answer = next?.role === "assistant" && (next.tool_calls == null || next.tool_calls.length === 0) && next.content !== "" ? next : null;
        if (answer != null)
            at++;
        const {content: _, ...call} = message;
        turns.push({
            ...call, content: answer?.content ?? "",
            ...(responses.length === 0 ? {} : {tool_responses: responses})
        });
    }
    return turns;
}

function parsedOrText(content: string): unknown {
    try {
        return JSON.parse(content);
    } catch {
        return content;
    }
}
