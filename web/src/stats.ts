/** What the server's `usage` says about one reply, with the page's own clock for the times. */
export type Usage = {prompt_tokens: number, completion_tokens: number, total_tokens: number};

export type ReplyStats = {
    /** Milliseconds from sending to the first streamed token. */
    ttftMs: number | null,
    /** Completion tokens per second after the first one arrived (the server's count, not the page's). */
    tokensPerSecond: number | null,
    /** How much of the model's context the conversation now fills, 0..1 (total tokens / context length). */
    contextFill: number | null,
    completionTokens: number | null,
    totalTokens: number | null
};

/**
 * Stats from the three instants the page sees and the usage the server reports. Tokens per second
 * counts the tokens after the first, over the time after the first: the first one's time is TTFT.
 */
export function replyStats(sentAt: number, firstTokenAt: number | null, endedAt: number, usage: Usage | null, contextLength: number | null): ReplyStats {
    const ttftMs = firstTokenAt == null ? null : firstTokenAt - sentAt;
    const generating = firstTokenAt == null ? 0 : endedAt - firstTokenAt;
    const tokensPerSecond = usage != null && usage.completion_tokens > 1 && generating > 0
        ? (usage.completion_tokens - 1) / (generating / 1000)
        : null;
    const contextFill = usage != null && contextLength != null && contextLength > 0
        ? Math.min(1, usage.total_tokens / contextLength)
        : null;
    return {ttftMs, tokensPerSecond, contextFill, completionTokens: usage?.completion_tokens ?? null, totalTokens: usage?.total_tokens ?? null};
}

/** "1.2 s" / "350 ms" / "12.3 tok/s" / "45%", as the message footer shows them. */
export function formatStats(stats: ReplyStats): string[] {
    const parts: string[] = [];
    if (stats.ttftMs != null)
        parts.push(`first token ${stats.ttftMs >= 1000 ? `${(stats.ttftMs / 1000).toFixed(1)} s` : `${Math.round(stats.ttftMs)} ms`}`);
    if (stats.tokensPerSecond != null)
        parts.push(`${stats.tokensPerSecond.toFixed(1)} tok/s`);
    if (stats.completionTokens != null)
        parts.push(`${stats.completionTokens} tokens`);
    if (stats.contextFill != null)
        parts.push(`context ${Math.round(stats.contextFill * 100)}%`);
    return parts;
}
