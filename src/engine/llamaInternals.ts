import {createRequire} from "node:module";
import {withLock} from "lifecycle-utils";
import {TokenBias, type LlamaContext, type LlamaContextSequence, type LlamaEmbeddingContext, type LlamaModel, type LlamaRankingContext, type Token} from "node-llama-cpp";

/**
 * The parts of node-llama-cpp 3.x below its public API that chatserve's own decode loop
 * (decodeSteps.ts, its sampler stepSampler.ts) drives: the native context and sampler, and a
 * sequence's bookkeeping.
 *
 * Why: node-llama-cpp's `sequence.evaluate()` spends ~0.35 ms of JavaScript per generated token
 * (three locks, a batch queue, sampler options resolved afresh, timers), on the same two cores as
 * llama.cpp's threads; driving the same native calls directly spends ~0.1 ms (in-process, bench
 * model, 2 cores: 0.41–0.49 against 0.11–0.14 ms of the JS thread per token, decode ~6 % faster).
 * The version is pinned in package.json; `llamaInternals` checks every member it uses and fails
 * with a clear message if an upgrade moved one.
 */

/** node-llama-cpp's native context (`AddonContext`): one batch at a time, filled then decoded. */
export type NativeContext = {
    initBatch(size: number): void,
    /** Returns each logit-carrying token's index in the batch's outputs. */
    addToBatch(sequenceId: number, firstTokenIndex: number, tokens: Uint32Array, logitIndexes: Uint32Array): Uint32Array,
    decodeBatch(): Promise<void>,
    /** Samples from the batch's output at that index and feeds the token to the sampler's state (grammar, penalties); -1 if none. */
    sampleToken(batchLogitIndex: number, sampler: NativeSampler): Promise<number>,
    /**
     * The same, returning besides the token the logits of `logits`' filter (the `top` highest, sorted,
     * then those of `tokens`) and the sum of exp(logit − highest) over the candidates the sampler left:
     * [token, probabilities, confidence, [id, logit, id, logit, …], weight]. See tokenLogprobs.ts.
     */
    sampleToken(
        batchLogitIndex: number, sampler: NativeSampler, probabilities: false, confidence: false,
        logits: [tokens: number[], includeHighest: false, includeLowest: false, includeSelected: false, top: number], totalLogitWeight: true
    ): Promise<[number, undefined, undefined, number[] | undefined, number | undefined]>,
    setThreads(threads: number): void,
    /** Drops the sequence's cells from `start` to `end` (a rejected draft's: speculation/draftRollback.ts); false if the model cannot (recurrent state). */
    removeTokenCellsFromSequence?(sequenceId: number, start: number, end: number): boolean
};

/**
 * chatserve's own native call (native/decodeBatch.cpp): the context's `decodeBatch`, except that a
 * batch that adds 2 to 63 tokens to a sequence past its 1,024th runs without flash attention, which
 * llama.cpp's CPU kernel takes row by row. Resolves to whether it chose to (llama.cpp may still
 * reuse a graph of the other kind: see the C++).
 */
export type DecodeBatch = (context: NativeContext) => Promise<boolean>;

/** node-llama-cpp's native sampler (`AddonSampler`), configured as its own evaluate does. */
export type NativeSampler = {applyConfig(config: object): void, dispose(): void};

/** A sequence's private state, which node-llama-cpp's other operations (erasing, adapting, evaluating prompts) rely on. */
export type SequenceState = {
    _sequenceId: number,
    _nextTokenIndex: number,
    _contextTokens: Token[],
    /** node-llama-cpp's own translation of evaluate options into the native sampler's config. */
    _resolveSamplerConfig(options: object): object,
    /** Hybrid, recurrent and sliding-window models keep state snapshots as tokens are added. */
    _takeIntervalCheckpointIfNeededAfterBatch(stateLength: number): Promise<void> | void
};

type ModelInternals = {_llama: {_bindings: {AddonSampler: new (model: unknown) => NativeSampler}}, _model: unknown};

export function nativeContext(context: LlamaContext): NativeContext {
    const native = (context as unknown as {_ctx?: Partial<NativeContext>})._ctx;
    for (const method of ["initBatch", "addToBatch", "decodeBatch", "sampleToken", "setThreads"] as const)
        if (typeof native?.[method] !== "function")
            throw internalsChanged(`the native context's ${method}`);
    return native as NativeContext;
}

/**
 * How a context's filled batch is decoded: through chatserve's call where the attention is chosen per
 * batch and the addon has it (the one `npm install` compiles, see scripts/buildCpuBackend.mjs),
 * else through node-llama-cpp's own (its prebuilt addons: GPUs, macOS, no compiler).
 */
export function batchDecoder(context: LlamaContext, plainAttentionForShortRuns: boolean): () => Promise<unknown> {
    const native = nativeContext(context);
    const ours = chatserveDecodeBatch(context);
    return plainAttentionForShortRuns && ours != null ? () => ours(native) : () => native.decodeBatch();
}

function chatserveDecodeBatch(context: LlamaContext): DecodeBatch | undefined {
    const call = (context as unknown as {_llama?: {_bindings?: {chatserveDecodeBatch?: unknown}}})._llama?._bindings?.chatserveDecodeBatch;
    return typeof call === "function" ? call as DecodeBatch : undefined;
}

export function sequenceState(sequence: LlamaContextSequence): SequenceState {
    const state = sequence as unknown as Partial<SequenceState>;
    if (typeof state._sequenceId !== "number" || typeof state._nextTokenIndex !== "number" || !Array.isArray(state._contextTokens) ||
        typeof state._resolveSamplerConfig !== "function" ||
        typeof state._takeIntervalCheckpointIfNeededAfterBatch !== "function")
        throw internalsChanged("a context sequence's state");
    return state as SequenceState;
}

export function createNativeSampler(model: LlamaModel): NativeSampler {
    const internals = model as unknown as Partial<ModelInternals>;
    const AddonSampler = internals._llama?._bindings?.AddonSampler;
    if (typeof AddonSampler !== "function" || internals._model == null)
        throw internalsChanged("the native sampler");
    return new AddonSampler(internals._model);
}

/**
 * Runs `work` holding the context's lock, the one node-llama-cpp takes around its own decodes and
 * KV cache edits: a native batch must not be refilled, nor a sequence's cells erased, while one decodes.
 */
export function withContextLock<T>(context: LlamaContext, work: () => Promise<T>): Promise<T> {
    return withLock([context, "context"], work);
}

/**
 * The lock is a key in lifecycle-utils' module state, so it is only shared if chatserve loads the
 * same copy of lifecycle-utils as node-llama-cpp does (package.json asks for node-llama-cpp's range).
 */
export function assertSharedLockModule(): void {
    const ours = createRequire(import.meta.url).resolve("lifecycle-utils");
    const theirs = createRequire(createRequire(import.meta.url).resolve("node-llama-cpp")).resolve("lifecycle-utils");
    if (ours !== theirs)
        throw internalsChanged(`the lifecycle-utils it locks with (${theirs}, chatserve has ${ours})`);
}

type SequenceCopy = {_copyStateFromOtherSequence(other: LlamaContextSequence, upToTokenIndex: number): Promise<boolean>};

/**
 * Gives `target` the first `length` cached tokens of `donor`, as node-llama-cpp's decision context
 * does: its bookkeeping and llama.cpp's cells at once, under the context lock (llama.cpp copies the
 * KV buffer itself before the next decode). A copy that did not come out whole leaves the target
 * empty instead: its bookkeeping may not match its cells. Resolves to whether it came out whole.
 */
export async function copySequencePrefix(target: LlamaContextSequence, donor: LlamaContextSequence, length: number): Promise<boolean> {
    const copy = (target as unknown as Partial<SequenceCopy>)._copyStateFromOtherSequence;
    if (typeof copy !== "function")
        throw internalsChanged("a context sequence's copy from another");
    const whole = await copy.call(target, donor, length).catch(() => false);
    if (!whole)
        await target.clearHistory();
    return whole;
}

/**
 * Sets the LoRA adapters a context's next decodes apply, each at its scale (0: left out), as
 * node-llama-cpp does at createContext: there is no public call to change them afterwards. The files
 * are loaded once per model (node-llama-cpp keeps them by path), so a switch reads nothing.
 */
export async function setContextLoras(context: LlamaContext, adapters: ReadonlyArray<{filePath: string, scale: number}>): Promise<void> {
    const set = (context as unknown as {_setLoras?: (loras: ReadonlyArray<{filePath: string, scale: number}>) => Promise<void>})._setLoras;
    if (typeof set !== "function")
        throw internalsChanged("a context's LoRA adapters");
    await set.call(context, adapters);
}

/**
 * A TokenBias that adds `biases` to those tokens' logits as given. Its public `set` skips
 * end-of-generation tokens (a client's `logit_bias` may ban or force them, as at OpenAI) and takes
 * probabilities, so the map it fills is written directly. `base`'s entries come first (a grammar's).
 */
export function tokenBiasOf(model: LlamaModel, biases: ReadonlyMap<number, number>, base?: TokenBias): TokenBias {
    const bias = new TokenBias(model.tokenizer);
    const entries = (bias as unknown as {_biases?: unknown})._biases;
    if (!(entries instanceof Map))
        throw internalsChanged("a token bias's entries");
    const baseEntries = (base as unknown as {_biases?: Map<number, number>} | undefined)?._biases;
    for (const [token, value] of baseEntries ?? [])
        entries.set(token, value);
    for (const [token, value] of biases)
        entries.set(token, (entries.get(token) ?? 0) + value);
    return bias;
}

/**
 * The score of one whole input (already laid out as pair tokens) on a ranking context: node-llama-cpp's
 * own evaluation of a pair, under its lock, its cells cleared first, the classifier's output made a
 * probability (sigmoid, except where llama.cpp's graph already ends in a softmax: Qwen3). Its public
 * `rank` lays the pair out itself, differently from llama-server (engine/rerankInput.ts).
 */
export function rankingEvaluator(context: LlamaRankingContext): (tokens: Token[]) => Promise<number> {
    const evaluate = (context as unknown as {_evaluateRankingForInput?: (tokens: Token[]) => Promise<number>})._evaluateRankingForInput;
    if (typeof evaluate !== "function")
        throw internalsChanged("a ranking context's evaluation of an input");
    return (tokens) => evaluate.call(context, tokens);
}

function internalsChanged(what: string): Error {
    return new Error(`chatserve drives node-llama-cpp 3.22's internals, and ${what} changed: install the node-llama-cpp version package.json names`);
}

/**
 * What llama.cpp allocated for an embedding or ranking context: node-llama-cpp keeps it on the
 * LlamaContext inside, which it does not expose; undefined if a version moves it (the figure is
 * only reported, so nothing fails for its lack).
 */
export function innerContextMemory(context: LlamaEmbeddingContext | LlamaRankingContext): {ram: number, vram: number} | undefined {
    return (context as unknown as {_llamaContext?: {memoryUsage?: {ram: number, vram: number}}})._llamaContext?.memoryUsage;
}
