import type {JinjaChatTemplate} from "./jinjaChatTemplate.js";

/**
 * How a template writes an earlier thought: the text it opens one with (`<think>\n`, `[THINK]`)
 * and closes it with (`\n</think>\n\n`, `[/THINK]`), found by rendering an assistant turn with and
 * without `reasoning_content` (as llama.cpp's analysis finds a thought's markers). Null where the
 * template writes no earlier thought (Qwen2.5's), or none between two markers; node-llama-cpp's
 * reading of the template stands then.
 */
export type ThoughtMarkup = {opening: string, closing: string};

const thought = "chatserve probe thought 3e9d";
const answer = "chatserve probe answer 3e9d";
const question = {role: "user" as const, content: "chatserve probe question"};

export function templateThoughtMarkup(template: JinjaChatTemplate): ThoughtMarkup | null {
    const render = (withThought: boolean) => {
        try {
            return template.render({
                messages: [question, {role: "assistant", content: answer, ...(withThought ? {reasoning_content: thought} : {})}], thinking: true
            }, {continueLast: true, raw: true});
        } catch {
            return null;
        }
    };
    const plain = render(false);
    const withThought = render(true);
    if (plain == null || withThought == null)
        return null;
    const thoughtAt = withThought.indexOf(thought);
    const answerAt = withThought.indexOf(answer, thoughtAt);
    if (thoughtAt < 0 || answerAt < 0)
        return null;
    // The opening: the marker right before the thought (and the layout after it), unless the turn
    // without a thought ends there too (then it is the assistant's header, as DeepSeek's `<｜Assistant｜>`).
    const before = /(<[^<>\s]{1,40}>|\[[^[\]\s]{1,40}\]|<\|[^|]{1,40}\|>)(\s*)$/.exec(withThought.slice(0, thoughtAt));
    if (before == null || plain.slice(0, plain.indexOf(answer)).trimEnd().endsWith(before[1]!))
        return null;
    const opening = before[0];
    const closing = withThought.slice(thoughtAt + thought.length, answerAt);
    return isMarker(closing.trim()) ? {opening, closing} : null;
}

function isMarker(text: string): boolean {
    return /^(<[^<>\s]{1,40}>|\[[^[\]\s]{1,40}\]|<\|[^|]{1,40}\|>)$/.test(text);
}
