import type {Token} from "node-llama-cpp";
import type {ThoughtSyntax} from "./thoughtSyntax.js";

/** What the end of a reasoning model's prompt is for: a new reply (first turn, or after a tool's result) or the client's own, continued. */
export type PromptEnd = {newReply: boolean, thinking: boolean, continuedReply: string};

/**
 * Ends a reasoning model's prompt the way its template does for the reply asked for, and says
 * whether the reply begins inside a thought. node-llama-cpp renders a new reply's turn as an empty
 * assistant message, so templates differ in what it ends with:
 * - the opening marker (the template opens every thought itself): the reply begins inside it;
 * - an empty thought (`<think></think>`, or a lone `</think>`: how Qwen3's, GLM-4.7's and DeepSeek
 *   V3.1's templates write a message without one): that means "do not think", so it stays only
 *   when the model is not to think;
 * - neither: the assistant's opening alone.
 * Then a model that thinks gets the opening where its template's generation prompt has one
 * (QwQ's, DeepSeek R1's `<think>\n`), and one that must not gets an empty thought.
 * `blank` tells whitespace tokens (special tokens are not blank).
 */
export function endPromptForThought(
    syntax: ThoughtSyntax, prompt: Token[], blank: (token: Token) => boolean, {newReply, thinking, continuedReply}: PromptEnd
): {tokens: Token[], opened: boolean} {
    if (!newReply)
        return {tokens: prompt, opened: continuedReply.lastIndexOf(syntax.open) > continuedReply.lastIndexOf(syntax.close)};
    const beforeBlanks = (end: number): number => {
        while (end > 0 && blank(prompt[end - 1]!))
            end--;
        return end;
    };
    const end = beforeBlanks(prompt.length);
    const last = prompt[end - 1];
    // Markers that are special tokens (Command R7B's, Bielik's) came in for reading replies only:
    // the prompt stays the template's own, as llama-server evaluates it.
    if (syntax.hiddenMarkers)
        return {tokens: prompt, opened: last === syntax.openToken};
    let kept = prompt;
    if (last === syntax.openToken) {
        if (thinking)
            return {tokens: prompt, opened: true};
        kept = prompt.slice(0, end - 1);
    } else if (last === syntax.closeToken) {
        if (!thinking)
            return {tokens: prompt, opened: false};
        const beforeClose = beforeBlanks(end - 1);
        kept = prompt.slice(0, prompt[beforeClose - 1] === syntax.openToken ? beforeClose - 1 : end - 1);
    }
    if (!thinking)
        return {tokens: [...kept, ...syntax.emptyThought], opened: false};
    return syntax.opensEveryReply ? {tokens: [...kept, ...syntax.opening], opened: true} : {tokens: kept, opened: false};
}
