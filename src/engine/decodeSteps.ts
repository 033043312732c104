import type {LlamaContext, LlamaContextSequence, Token} from "node-llama-cpp";
import {
    assertSharedLockModule, batchDecoder, createNativeSampler, nativeContext, sequenceState, withContextLock, type NativeContext
} from "./llamaInternals.js";
import {composeBatch, type Part, type Step} from "./batchComposition.js";
import {decodeAndSample} from "./batchPass.js";
import {StepSampler, type StepSamplingOptions} from "./stepSampler.js";
import {DraftCostEstimate} from "./speculation/draftCostEstimate.js";
import type {DraftCost} from "./speculation/draftLength.js";
import {defaultDraftTokenCost, type SpeculationSettings} from "./speculation/speculationPlan.js";
import {createLogprobReader} from "./tokenLogprobs.js";

/**
 * The decode loop of one context, llama-server's slot loop in small: every generation on the
 * context asks for its next token here, and the steps that come back within one event-loop turn
 * go into one batch, one compute pass for all of them.
 *
 * - A stream handed its token comes back within that turn (its SSE write and its generators are
 *   synchronous), so concurrent streams stay in lockstep, and a new prompt's last chunk joins them.
 *   The batch goes as soon as every stream of the last one is back, so a lone stream never waits
 *   for the turn to end (a turn per token cost ~1 % of decode, in-process).
 * - Steps go into the batch in sequence order: the KV cache has one stream per sequence, and
 *   llama.cpp keeps sequences in one compute pass only while their ids go up by one in batch order
 *   (`llama_batch_allocr::split_equal`); 1, 0, 2, 3 ran as two passes, 28–34 ms instead of 18.
 * - The context lock is held for one batch at a time, so a request that must erase or evaluate a
 *   prompt through node-llama-cpp gets it between two steps, not after every stream has ended.
 * - A batch of one token (a single stream generating) runs on the decode threads, which can be
 *   fewer than prompt processing's (llama.cpp's n_threads against n_threads_batch): see threads.ts.
 *
 * It drives node-llama-cpp's native calls itself rather than `sequence.evaluate()`, whose own
 * per-token JavaScript costs ~6 % of a small model's decode: see llamaInternals.ts.
 */
export class DecodeSteps {
    private readonly native: NativeContext;
    private readonly decode: () => Promise<unknown>;
    private queue: Step[] = [];
    private dispatchScheduled = false;
    private decoding = false;
    /** Sequences handed a token by the last batch and not back for the next one yet. */
    private readonly awaited = new Set<LlamaContextSequence>();
    private batchesDecoded = 0;
    private needsCheckpoints: boolean | undefined;
    /** Streams that sampled a token in the last batch: what a drafted row's cost is shared by (speculation/speculation.ts). */
    private lastStreams = 1;
    /** What a draft costs here, timed from this loop's own passes (speculation/draftCostEstimate.ts). */
    private readonly draftCostEstimate: DraftCostEstimate;

    /**
     * `plainAttentionForShortRuns`: see native/decodeBatch.cpp (chatserve's `--flash-attention auto`).
     * `speculation`: how the context's generations draft (speculation/speculationPlan.ts); absent: from a prediction only.
     */
    public constructor(
        private readonly context: LlamaContext, private readonly threads: number, private readonly decodeThreads: number, plainAttentionForShortRuns = false,
        public readonly speculation?: SpeculationSettings
    ) {
        this.native = nativeContext(context);
        this.decode = batchDecoder(context, plainAttentionForShortRuns);
        this.draftCostEstimate = new DraftCostEstimate(speculation?.draftTokenCost ?? defaultDraftTokenCost, speculation?.draftTokenCost != null);
        assertSharedLockModule();
    }

    /**
     * A sampler for one generation; dispose it when the generation ends. With `logprobTop` (0–20), each
     * sampled token's log probability is read too (`StepSampler.logprob`), at the cost of a second pass over the logits.
     */
    public sampler(sequence: LlamaContextSequence, options: StepSamplingOptions, changesPerToken: boolean, logprobTop?: number): StepSampler {
        const state = sequenceState(sequence);
        const reader = logprobTop == null ? undefined : createLogprobReader(sequence.model, (config) => state._resolveSamplerConfig(config), logprobTop);
        return new StepSampler(createNativeSampler(sequence.model), () => state._resolveSamplerConfig(options), changesPerToken, reader);
    }

    /** What a draft costs on this context, in plain steps (a token, a pass): measured so far, or a token's fixed by --draft-token-cost. */
    public get draftCost(): DraftCost {
        return this.draftCostEstimate.cost;
    }

    /** How many streams the last batch stepped (at least 1): a draft's rows slow each of them. */
    public get streams(): number {
        return this.lastStreams;
    }

    /**
     * Feeds `tokens` to the sequence after what it holds, and samples the next token from the last
     * one's output. Any length: a step that does not fit the batch goes in over several.
     */
    public step(sequence: LlamaContextSequence, tokens: readonly Token[], sampler: StepSampler): Promise<Token> {
        return new Promise((resolve, reject) => this.enqueue(sequence, tokens, [], sampler, (kept) => resolve(kept[0]!), reject));
    }

    /**
     * A step with a draft: `tokens`, then `draft`, in the same batch as the other streams' steps (a
     * speculating sequence adds tokens to the shared pass, never a pass of its own). Resolves to the
     * tokens plain decoding would have sampled from here (speculation/draftVerification.ts): the
     * draft's accepted head and the token after it; the rejected rest leaves the sequence's cache.
     * A draft that does not fit the batch is cut. Only for samplers whose options do not change
     * per token (their grammar and penalties are set by the caller between tokens).
     */
    public speculate(sequence: LlamaContextSequence, tokens: readonly Token[], draft: readonly Token[], sampler: StepSampler): Promise<Token[]> {
        return new Promise((resolve, reject) => this.enqueue(sequence, tokens, draft, sampler, resolve, reject));
    }

    private enqueue(
        sequence: LlamaContextSequence, tokens: readonly Token[], draft: readonly Token[], sampler: StepSampler, resolve: (kept: Token[]) => void, reject: (error: unknown) => void
    ): void {
        if (tokens.length === 0)
            reject(new Error("a decode step needs at least one token to sample after"));
        else {
            this.queue.push({sequence, state: sequenceState(sequence), tokens, draft, sampler, resolve, reject});
            // The last stream of the last batch to come back sends the next one at once: a lone
            // stream never waits for the end of the event-loop turn.
            this.scheduleDispatch(this.awaited.delete(sequence) && this.awaited.size === 0);
        }
    }

    private scheduleDispatch(now: boolean): void {
        if (this.decoding || this.queue.length === 0)
            return;
        if (now) {
            void this.dispatch();
            return;
        }
        if (this.dispatchScheduled)
            return;
        this.dispatchScheduled = true;
        // Streams of the last batch that are not back by the end of this turn have ended (if another
        // batch ended meanwhile, its streams get a turn of their own).
        const batch = this.batchesDecoded;
        setImmediate(() => {
            this.dispatchScheduled = false;
            if (batch === this.batchesDecoded)
                this.awaited.clear();
            this.scheduleDispatch(this.awaited.size === 0);
        });
    }

    private async dispatch(): Promise<void> {
        this.decoding = true;
        try {
            await withContextLock(this.context, () => this.decodeBatch(this.takeBatch()));
        } finally {
            this.decoding = false;
            this.scheduleDispatch(this.awaited.size === 0);
        }
    }

    private takeBatch(): Part[] {
        const {batch, waiting} = composeBatch(this.queue, this.context.batchSize);
        this.queue = waiting;
        return batch;
    }

    private async decodeBatch(batch: Part[]): Promise<void> {
        let sampled: Array<PromiseSettledResult<Token[] | undefined>>;
        // A lone stream's step of one token (and its draft): the passes the draft cost is timed from.
        const timed = batch.length === 1 && batch[0]!.last && batch[0]!.tokens.length === 1 + batch[0]!.drafted ? batch[0]! : undefined;
        const startedAt = performance.now();
        try {
            sampled = await this.runPass(batch);
            if (timed != null)
                this.draftCostEstimate.observe(performance.now() - startedAt, timed.drafted);
            else
                this.draftCostEstimate.untimed();
        } catch (error) {
            // Every step of the batch fails, the rest of a split one included (it no longer follows on from the cache).
            const failed = new Set(batch.map(({step}) => step));
            this.queue = this.queue.filter((step) => !failed.has(step));
            failed.forEach((step) => step.reject(error));
            return;
        }
        this.batchesDecoded++;
        this.lastStreams = Math.max(1, batch.filter(({last}) => last).length);
        batch.forEach(({step, last}, index) => {
            const result = sampled[index]!;
            if (!last)
                return;
            if (result.status === "fulfilled") {
                this.awaited.add(step.sequence);
                step.resolve(result.value!);
            } else
                step.reject(result.reason);
        });
    }

    /** One compute pass and its sampling (batchPass.ts), then the checkpoints a recurrent model's sequences take. */
    private async runPass(batch: Part[]): Promise<Array<PromiseSettledResult<Token[] | undefined>>> {
        const sampled = await decodeAndSample(this.native, this.decode, batch, (size) => size === 1 ? this.decodeThreads : this.threads);
        for (const {step: {sequence, state}} of batch)
            if (this.needsCheckpoints ??= sequence.needsCheckpoints)
                await state._takeIntervalCheckpointIfNeededAfterBatch(state._nextTokenIndex + 1);
        return sampled;
    }
}
