import type {TemplateMessage} from "./templateMessage.js";

/** A message as a family's template reads it: content may become typed blocks (Ministral 3's thought). */
export type FamilyMessage = Omit<TemplateMessage, "content"> & {content: string | Array<Record<string, string>>, thinking?: string};

/**
 * Where a family's official template reads an earlier thought from a field of its own rather than
 * from `reasoning_content`, it is moved there, as llama.cpp's handler for that family does
 * (common/parsers/): LFM2 and LFM2.5 read `thinking`; Ministral 3 and Magistral read a content
 * block of type `thinking` before the text, in system and assistant messages.
 */
export function forFamily(source: string, messages: readonly TemplateMessage[]): FamilyMessage[] {
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
    return [...messages];
}

/** Ministral 3 / Magistral: Mistral's system prompt and call markup without Mistral Small 3.2's `[CALL_ID]`. */
function isMinistral3(source: string): boolean {
    return source.includes("[SYSTEM_PROMPT]") && source.includes("[TOOL_CALLS]") && source.includes("[ARGS]") && !source.includes("[CALL_ID]");
}

function isLfm2(source: string): boolean {
    return (source.includes("<|tool_list_start|>") && source.includes("<|tool_list_end|>")) ||
        (source.includes("List of tools: [") && !source.includes("<|tool_list_start|>"));
}
