/**
 * A call's index, where the template writes one into the call's markup: Kimi K2 names each call
 * `functions.NAME:0`, `functions.NAME:1`, … (llama.cpp's common/parsers/kimi-k2.cpp reads that
 * name as the call's id). Found by comparing the markup between a call's name and its arguments
 * for the first and the second call of one reply: the same text but for one digit, 0 then 1.
 *
 * Templates count in one of two ways: Kimi K2's first template from 0 in every message
 * (`loop.index0`), Kimi K2 Instruct's and Thinking's on through the whole conversation (a
 * counter that each earlier call moves on). Which one is found by rendering a call, its result and
 * a second reply's call: the second call is 0 or 1.
 */
export type CallIndexText = {
    /** Where the index's digit stands in the params prefix (the first call's, which has 0 there). */
    at: number,
    counts: "reply" | "conversation",
    /**
     * The text of the call's prefix after its last marker (Kimi's `functions.`): with the name and
     * the index it makes the call's id, `functions.get_weather:0`, as llama.cpp's parser takes it.
     */
    idHead: string
};

/** Where `first` (the first call's params prefix) and `second` (the second's) differ by 0 → 1 alone; null when they are equal or differ otherwise. */
export function indexDigitAt(first: string, second: string): number | null {
    if (first.length !== second.length)
        return null;
    const differing = [...first].map((char, at) => char === second[at] ? -1 : at).filter((at) => at >= 0);
    return differing.length === 1 && first[differing[0]!] === "0" && second[differing[0]!] === "1" ? differing[0]! : null;
}

/** How the template counts, given the params prefix it writes for a later reply's only call (after one earlier call). */
export function indexCounting(at: number, laterParams: string | null): CallIndexText["counts"] | null {
    const digit = laterParams?.[at];
    return digit === "0" ? "reply" : digit === "1" ? "conversation" : null;
}

/** The index of a reply's first call: 0, or for a template counting through the conversation, how many calls its earlier messages hold. */
export function firstCallIndex(counts: CallIndexText["counts"], messages: ReadonlyArray<{tool_calls?: readonly unknown[]}>): number {
    return counts === "reply" ? 0 : messages.reduce((sum, message) => sum + (message.tool_calls?.length ?? 0), 0);
}
