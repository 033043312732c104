import type {Token} from "node-llama-cpp";

/** Must render special tokens as empty text, as node-llama-cpp's `model.detokenize(tokens, false)` does. */
export type DetokenizeTokens = (tokens: readonly Token[]) => string;

/** Shared tokens decoded before each span, so that its first token decodes as it does mid-text. */
const contextTokens = 4;
/** Shorter spans tried per divergence when a token boundary of one side falls inside a token of the other. */
const maxAttempts = 16;
/** Divergences one prompt may splice over: a long chat has one per earlier reply. */
const maxSplices = 64;

/**
 * Lets a prompt reuse the tokens a sequence already holds where they spell the same text.
 *
 * A reply is cached as the tokens the model sampled, but the next turn re-renders the conversation and
 * tokenizes the reply's text afresh, often into a different split, so token-wise reuse stops at the
 * start of the reply. Where a span of the cached tokens decodes to exactly the text of a span of the
 * prompt, the cached span replaces it: the prompt's text is unchanged and more of it is already evaluated.
 * Special tokens (empty text) are never inside a replaced span, only matched token for token, so a template
 * marker never stands in for plain text or the other way round.
 */
export function alignPromptWithCache<T extends readonly Token[]>(cached: readonly Token[], prompt: T, detokenize: DetokenizeTokens): T | Token[] {
    const barriers = new Map<Token, boolean>();
    const isBarrier = (token: Token): boolean => barriers.get(token) ?? barriers.set(token, detokenize([token]) === "").get(token)!;
    let cachedAt = 0;
    let promptAt = 0;
    let firstDivergence = -1;
    for (let splice = 0; splice < maxSplices; splice++) {
        const shared = commonPrefixLength(cached, cachedAt, prompt, promptAt);
        cachedAt += shared;
        promptAt += shared;
        if (shared === 0 || cachedAt === cached.length || promptAt === prompt.length)
            break;
        const context = cached.slice(cachedAt - Math.min(shared, contextTokens), cachedAt);
        const match = alignSpans(context, cached, cachedAt, prompt, promptAt, detokenize, isBarrier);
        if (match == null)
            break;
        firstDivergence = firstDivergence < 0 ? cachedAt : firstDivergence;
        cachedAt += match.cachedLength;
        promptAt += match.promptLength;
    }
    if (firstDivergence < 0)
        return prompt;

    const aligned = [...cached.slice(0, cachedAt), ...prompt.slice(promptAt)];
    // A last check over the diverging tails only: the whole prompt must still read the same.
    const from = Math.max(0, firstDivergence - contextTokens);
    return detokenize(aligned.slice(from)) === detokenize(prompt.slice(from)) ? aligned : prompt;
}

/** The longest cached span from `cachedAt` with the text of a prompt span from `promptAt`, both free of special tokens. */
function alignSpans(
    context: readonly Token[], cached: readonly Token[], cachedAt: number, prompt: readonly Token[], promptAt: number,
    detokenize: DetokenizeTokens, isBarrier: (token: Token) => boolean
): {cachedLength: number, promptLength: number} | undefined {
    const contextText = detokenize(context);
    // Most divergences are different text: a few tokens tell, before a long span is decoded.
    const probe = (tokens: readonly Token[], at: number): string => detokenize([...context, ...tokens.slice(at, at + contextTokens)]);
    if (sharedTextLength(probe(cached, cachedAt), probe(prompt, promptAt)) <= contextText.length)
        return undefined;
    const cachedSpan = cached.slice(cachedAt, barrierFreeEnd(cached, cachedAt, cached.length, isBarrier));
    const texts = new Map<string, string>();
    const textOf = (span: readonly Token[], length: number): string => {
        const key = `${span === cachedSpan ? "c" : "p"}${length}`;
        const full = texts.get(key) ?? texts.set(key, detokenize([...context, ...span.slice(0, length)])).get(key)!;
        return full.startsWith(contextText) ? full.slice(contextText.length) : "\uFFFD" + full;
    };

    const cachedText = textOf(cachedSpan, cachedSpan.length);
    // n characters are at most 4n tokens (one per UTF-8 byte): no need to look further into a long prompt.
    const promptLimit = Math.min(prompt.length, promptAt + 4 * cachedText.length + 1);
    const promptSpan = prompt.slice(promptAt, barrierFreeEnd(prompt, promptAt, promptLimit, isBarrier));
    let target = sharedTextLength(cachedText, textOf(promptSpan, promptSpan.length));
    for (let attempt = 0; attempt < maxAttempts && target > 0; attempt++) {
        // The longest cached span within the shared text, then a prompt span ending where it does.
        const cachedLength = lowerBound(cachedSpan.length, (n) => textOf(cachedSpan, n).length > target) - 1;
        if (cachedLength <= 0)
            return undefined;
        const text = textOf(cachedSpan, cachedLength);
        const promptLength = lowerBound(promptSpan.length, (n) => textOf(promptSpan, n).length >= text.length);
        if (promptLength <= promptSpan.length && textOf(promptSpan, promptLength) === text && !text.includes("\uFFFD"))
            return {cachedLength, promptLength};
        target = textOf(promptSpan, promptLength - 1).length;
    }
    return undefined;
}

function commonPrefixLength(a: readonly Token[], aFrom: number, b: readonly Token[], bFrom: number): number {
    let length = 0;
    while (aFrom + length < a.length && bFrom + length < b.length && a[aFrom + length] === b[bFrom + length])
        length++;
    return length;
}

function barrierFreeEnd(tokens: readonly Token[], from: number, to: number, isBarrier: (token: Token) => boolean): number {
    let end = from;
    while (end < to && !isBarrier(tokens[end]!))
        end++;
    return end;
}

/** Characters both texts start with, up to the first U+FFFD (a character split between tokens, or bad bytes). */
function sharedTextLength(a: string, b: string): number {
    let length = 0;
    while (length < a.length && length < b.length && a[length] === b[length] && a[length] !== "\uFFFD")
        length++;
    return length;
}

/** The smallest n in 0..max where `isPast(n)` holds (max + 1 if none), for a predicate that stays true once true. */
function lowerBound(max: number, isPast: (n: number) => boolean): number {
    let low = 0;
    let high = max + 1;
    while (low < high) {
        const middle = (low + high) >> 1;
        [low, high] = isPast(middle) ? [low, middle] : [middle + 1, high];
    }
    return low;
}
