import type {JinjaChatTemplate} from "./jinjaChatTemplate.js";
import {sharedEnds} from "./sharedEnds.js";

/**
 * Whether a template has a model's thought in it, found as llama.cpp's differential analysis finds
 * it (common/chat-diff-analyzer.cpp, analyze_reasoning): an earlier `reasoning_content` is written
 * followed by a closing marker (`</think>`, `[/THINK]`), or switching `enable_thinking` opens or
 * closes a thought at the end of the generation prompt (`<think>\n`; Qwen3's `<think>\n\n</think>`).
 * llama-server turns `enable_thinking` on only for such templates; others (Apertus announces
 * "Deliberation: enabled" on it) get it off, and so they do here.
 */
export function templateHasThought(template: JinjaChatTemplate): boolean {
    return familyThinks(template.source) ?? (writesEarlierThought(template) || thinkingSwitchMarksPrompt(template));
}

/**
 * The families llama.cpp serves with a handler of their own (common/chat.cpp,
 * common_chat_try_specialized_template), which says whether they think; null for the rest.
 */
function familyThinks(source: string): boolean | null {
    const has = (...markers: string[]) => markers.every((text) => source.includes(text));
    if (has("<|role_sep|>", "<|message_sep|>") && !source.includes("<|function_call|>"))
        return false; // GigaChat 3
    if (has("[SYSTEM_PROMPT]", "[TOOL_CALLS]", "[ARGS]") && !source.includes("[CALL_ID]"))
        return true; // Ministral 3, Magistral
    const thinking = [
        ["<|channel|>"], ["<atem:function_calls>", "<|eom|>"], ["<|tool_calls_section_begin|>", "<|tool_call_begin|>"],
        ["<|open|>", "<|close|>", "<|end_of_msg|>"], ["<role>ASSISTANT</role>", "<arg_key>"], ["<|START_TEXT|>", "<|START_ACTION|>"],
        ["<|tool_list_start|>", "<|tool_list_end|>"], ["]<]minimax[>[", "<invoke name="], ["dsml_token", "DSML"], ["'<|tool_call>call:'"],
        ["Tool usage guidelines:", "<function name=\"", "<param name=\""]
    ];
    return thinking.some((markers) => has(...markers)) ? true : null;
}

const thought = "chatserve probe thought 7a1c";
const answer = "chatserve probe answer 7a1c";
const marker = /^\s*(<[^<>\s]{1,40}>|\[[^[\]\s]{1,40}\]|<\|[^|]{1,40}\|>)/;

function writesEarlierThought(template: JinjaChatTemplate): boolean {
    try {
        const text = template.render({
            messages: [{role: "user", content: "chatserve probe question"}, {role: "assistant", content: answer, reasoning_content: thought}], thinking: true
        }, {continueLast: true, raw: true});
        const at = text.indexOf(thought);
        return at >= 0 && marker.test(text.slice(at + thought.length));
    } catch {
        return false;
    }
}

function thinkingSwitchMarksPrompt(template: JinjaChatTemplate): boolean {
    const render = (thinking: boolean) => {
        try {
            return template.render({messages: [{role: "user", content: "chatserve probe question"}], thinking}, {raw: true});
        } catch {
            return null;
        }
    };
    const off = render(false);
    const on = render(true);
    if (off == null || on == null)
        return false;
    const {start, end} = sharedEnds(off, on);
    const left = off.slice(start, off.length - end).trim();
    const right = on.slice(start, on.length - end).trim();
    // Only one side adds text, and the prompt ends with it: the thought's opening, or an empty thought.
    if ((left === "" && right !== "" && on.trimEnd().endsWith(right) && marker.test(right)) ||
        (right === "" && left !== "" && off.trimEnd().endsWith(left) && marker.test(left)))
        return true;
    // Both change (SmolLM3 rewrites its system prompt too): one prompt's end, found in the other,
    // followed there by two markers alone (`<think>\n\n</think>`).
    return [[on, off], [off, on]].some(([base, extended]) => {
        const anchor = base!.slice(-64);
        const at = extended!.lastIndexOf(anchor);
        const extra = at < 0 ? "" : extended!.slice(at + anchor.length).trim();
        return extra !== "" && /^(<[^<>\s]{1,40}>|\[[^[\]\s]{1,40}\])\s*(<[^<>\s]{1,40}>|\[[^[\]\s]{1,40}\])$/.test(extra);
    });
}
