import {setImmediate as nextTurn} from "node:timers/promises";
import type {ChatHistoryItem, LlamaModel} from "node-llama-cpp";
import {ContextLengthExceededError} from "../errors.js";

/**
 * Refuses text that cannot fit the context without tokenizing all of it in one call.
 *
 * Why: tokenizing is synchronous native work, 0.2–3 µs a character depending on the vocabulary,
 * and the event loop serves every other stream. A 7.8 MB message (under the body limit) held it
 * for 0.5–6 s on the test models before its 400. Text longer than one slice is first counted slice
 * by slice, yielding to the event loop between slices, and refused as soon as the count passes the
 * context: at most one slice (a few ms) is tokenized at a time, and little past the limit.
 *
 * The count is a lower bound, so a prompt that fits is never refused here: each slice is cut at
 * whitespace where it can be, and is allowed `slackPerSlice` tokens for what a cut can add (a
 * token split in two, the leading space SentencePiece vocabularies add). Special-token text counts
 * as one token, its least. Prompts near the limit pass on to the exact count of the whole prompt.
 *
 * Only text of more than `charactersPerTokenAtMost` characters per context token is counted first:
 * anything shorter may well fit, and counting it would tokenize a prompt that fits twice (an IDE
 * plugin's 60,000-character system prompt, on every turn).
 */
const sliceLength = 32_768;
const slackPerSlice = 8;
const charactersPerTokenAtMost = 16;

/** `param` is the error's field, and names the text in its message ("messages", "input[2]"). */
export async function refuseTextBeyondContext(
    model: LlamaModel, texts: readonly string[], contextLength: number, {param}: {param: string}
): Promise<void> {
    if (texts.reduce((sum, text) => sum + text.length, 0) <= Math.max(sliceLength, contextLength * charactersPerTokenAtMost))
        return;
    const atLeast = await countTokensAtLeast(model, texts, contextLength);
    if (atLeast > contextLength)
        throw new ContextLengthExceededError(contextLength,
            {overflow: `your ${param} resulted in more than ${atLeast} tokens`, remedy: `the length of the ${param}`, param});
}

/** A lower bound on the texts' tokens, counted a slice per turn of the event loop; stops once past `limit`. */
export async function countTokensAtLeast(model: LlamaModel, texts: readonly string[], limit: number): Promise<number> {
    let atLeast = 0;
    for (const text of texts)
        for (const slice of slices(text)) {
            atLeast += Math.max(0, model.tokenize(slice, true).length - slackPerSlice);
            if (atLeast > limit)
                return atLeast;
            await nextTurn();
        }
    return atLeast;
}

/**
 * A conversation that cannot fit: more messages than the context has tokens (each message is at
 * least one token of the template's markup; rendering 200,000 one-letter messages held the event
 * loop for 16 s), or more text than it can hold.
 */
export async function refuseHistoryBeyondContext(
    model: LlamaModel, history: readonly ChatHistoryItem[], contextLength: number, promptName: string
): Promise<void> {
    const messages = history.reduce((count, item) =>
        count + (item.type === "model" ? Math.max(1, item.response.filter((part) => typeof part !== "string").length) : 1), 0);
    if (messages > contextLength)
        throw new ContextLengthExceededError(contextLength, {
            overflow: `your ${promptName} resulted in more than ${messages} tokens (${messages} messages of at least one token each)`,
            remedy: "the number of messages", param: promptName
        });
    await refuseTextBeyondContext(model, historyTexts(history), contextLength, {param: promptName});
}

/** The text a chat history carries, tool-call arguments and results included (their strings only: a lower bound). */
export function historyTexts(history: readonly ChatHistoryItem[]): string[] {
    const texts: string[] = [];
    const collect = (value: unknown): void => {
        if (typeof value === "string")
            texts.push(value);
        else if (Array.isArray(value))
            value.forEach(collect);
        else if (value != null && typeof value === "object")
            for (const [key, item] of Object.entries(value)) {
                texts.push(key);
                collect(item);
            }
    };
    for (const item of history) {
        if (item.type !== "model")
            collect(item.text);
        else
            for (const part of item.response)
                if (typeof part === "string")
                    texts.push(part);
                else if (part.type === "functionCall") {
                    collect(part.params);
                    collect(part.result);
                }
    }
    return texts;
}

function* slices(text: string): Generator<string> {
    for (let start = 0; start < text.length;) {
        const end = cutPoint(text, Math.min(start + sliceLength, text.length), start);
        yield text.slice(start, end);
        start = end;
    }
}

/** Before a whitespace in the slice's last KiB if there is one; never inside a surrogate pair. */
function cutPoint(text: string, end: number, start: number): number {
    if (end >= text.length)
        return text.length;
    const space = text.slice(end - 1024, end).search(/\s\S*$/);
    if (space > 0 && end - 1024 + space > start)
        return end - 1024 + space;
    const code = text.charCodeAt(end - 1);
    return code >= 0xd800 && code <= 0xdbff ? end - 1 : end;
}
