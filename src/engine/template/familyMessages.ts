import {createHash} from "node:crypto";
import {readsGemma4ToolResponses, withGemma4ToolResponses} from "./gemma4ToolResponses.js";
import type {TemplateMessage} from "./templateMessage.js";

/** A message as a family's template reads it: content may become typed blocks (Ministral 3's thought). */
export type FamilyMessage = Omit<TemplateMessage, "content"> & {content: string | Array<Record<string, string>>, thinking?: string};

/**
 * Where a family's official template reads an earlier thought from a field of its own rather than
 * from `reasoning_content`, it is moved there, as llama.cpp's handler for that family does
 * (common/parsers/): LFM2 and LFM2.5 read `thinking`; Ministral 3 and Magistral read a content
 * block of type `thinking` before the text, in system and assistant messages. Mistral's call ids
 * are made to fit its templates. Gemma 4's first templates read a call's results inside the
 * assistant's turn (gemma4ToolResponses.ts).
 */
export function forFamily(source: string, given: readonly TemplateMessage[]): FamilyMessage[] {
    const messages = source.includes("alphanumeric strings with length 9") ? given.map(withNineCharacterIds) : given;
    if (isMinistral3(source))
        return messages.map((message): FamilyMessage => {
            if (message.role !== "system" && message.role !== "assistant")
                return message;
            const {reasoning_content: thought, ...rest} = message;
            const blocks: Array<Record<string, string>> = thought == null ? [] : [{type: "thinking", thinking: thought}];
            return {
                ...rest,
                content: [...blocks, {type: "text", text: message.content}]
            };
        });
    if (isLfm2(source))
        return messages.map((message) => message.reasoning_content == null ? message : {...message, thinking: message.reasoning_content});
    if (readsGemma4ToolResponses(source))
        return withGemma4ToolResponses(messages);
    return [...messages];
}

/**
 * Mistral's templates refuse call ids other than nine letters and digits (what Mistral's own API
 * hands out), and chatserve's are OpenAI's `call_…`: each is rendered as nine characters drawn from
 * it, the same every time (so a cached prompt stays valid), for the call and for its result alike.
 */
function withNineCharacterIds(message: TemplateMessage): TemplateMessage {
    return {
        ...message,
        ...(message.tool_call_id == null ? {} : {tool_call_id: nineCharacterId(message.tool_call_id)}),
        ...(message.tool_calls == null ? {} : {tool_calls: message.tool_calls.map((call) => call.id == null ? call : {...call, id: nineCharacterId(call.id)})})
    };
}

function nineCharacterId(id: string): string {
    if (/^[a-zA-Z0-9]{9}$/.test(id))
        return id;
    return createHash("sha256").update(id).digest("base64").replace(/[^a-zA-Z0-9]/g, "").slice(0, 9).padEnd(9, "0");
}

/** Ministral 3 / Magistral: Mistral's system prompt and call markup without Mistral Small 3.2's `[CALL_ID]`. */
function isMinistral3(source: string): boolean {
    return source.includes("[SYSTEM_PROMPT]") && source.includes("[TOOL_CALLS]") && source.includes("[ARGS]") && !source.includes("[CALL_ID]");
}

function isLfm2(source: string): boolean {
    return (source.includes("<|tool_list_start|>") && source.includes("<|tool_list_end|>")) ||
        (source.includes("List of tools: [") && !source.includes("<|tool_list_start|>"));
}
