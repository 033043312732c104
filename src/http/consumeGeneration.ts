import type {GenerationEvent, GenerationResult, TokenLogprob} from "../engine/generationEvents.js";

/** Where each kind of generation event goes (an SSE chunk, or a reply being assembled). */
export type GenerationHandlers = {
    text(text: string): void,
    /** A reasoning model's thought (only chat prompts have one). */
    reasoning?(text: string): void,
    toolCall?(index: number, name: string, id?: string): void,
    toolArguments?(index: number, text: string): void,
    /** Prompt processing advanced: a comment keeps idle connections and proxies open. */
    keepAlive?(comment: string): void,
    /** A sampled token's log probability (only when the request asked for them), before its text. */
    logprobs?(token: TokenLogprob): void,
    /** The prompt's tokens' (legacy completions' `echo` with `logprobs`). */
    promptLogprobs?(first: Omit<TokenLogprob, "logprob" | "top">, rest: TokenLogprob[]): void,
    /**
     * Asked after each event whether to go on now; a promise pauses the generation until it
     * settles (a stream's client reading slower than the model writes: streamedBody.ts's `ready`).
     */
    pace?(): Promise<void> | undefined
};

/** Runs a generation to its end, handing each event on as it comes. */
export async function consumeGeneration(
    events: AsyncGenerator<GenerationEvent, GenerationResult>,
    handlers: GenerationHandlers
): Promise<GenerationResult> {
    try {
        for (let step = await events.next(); ; step = await events.next()) {
            if (step.done === true)
                return step.value;
            handle(step.value, handlers);
            // Not asking for the next event is what pauses: the sequence decodes nothing meanwhile.
            const paused = handlers.pace?.();
            if (paused != null)
                await paused;
        }
    } catch (error) {
        // A handler that throws leaves the generation paused at a yield: closing it runs its cleanup
        // (the native sampler, what the sequence remembers) before its sequence goes to another request.
        await events.return(undefined as never).catch(() => undefined);
        throw error;
    }
}

function handle(event: GenerationEvent, handlers: GenerationHandlers): void {
    switch (event.type) {
        case "text":
            handlers.text(event.text);
            break;
        case "reasoning":
            handlers.reasoning?.(event.text);
            break;
        case "toolCall":
            handlers.toolCall?.(event.index, event.name, event.id);
            break;
        case "toolArguments":
            handlers.toolArguments?.(event.index, event.text);
            break;
        case "progress":
            handlers.keepAlive?.(`processing prompt ${event.evaluatedTokens}/${event.totalTokens}`);
            break;
        case "logprobs":
            handlers.logprobs?.(event.token);
            break;
        case "promptLogprobs":
            handlers.promptLogprobs?.(event.first, event.rest);
            break;
    }
}
