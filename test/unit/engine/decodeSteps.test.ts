import type {LlamaContext, LlamaContextSequence, Token} from "node-llama-cpp";
import {describe, expect, it} from "vitest";
import {DecodeSteps} from "../../../src/engine/decodeSteps.js";
import {withContextLock} from "../../../src/engine/llamaInternals.js";

type Batch = {size: number, threads: number, entries: Array<{sequenceId: number, at: number, tokens: number[], logitAt: number[]}>};

/** node-llama-cpp's native context as DecodeSteps drives it: records each batch; `sample` picks the token for an output. */
class NativeDouble {
    public readonly batches: Batch[] = [];
    public failNextDecode: Error | null = null;
    public sample: (output: number) => number = (output) => 100 + output;
    private threads = 0;
    private outputs = 0;

    public initBatch(size: number): void {
        this.batches.push({size, threads: 0, entries: []});
        this.outputs = 0;
    }

    public addToBatch(sequenceId: number, at: number, tokens: Uint32Array, logitAt: Uint32Array): Uint32Array {
        this.batches.at(-1)!.entries.push({sequenceId, at, tokens: [...tokens], logitAt: [...logitAt]});
        return Uint32Array.from(logitAt, () => this.outputs++);
    }

    public setThreads(threads: number): void {
        this.threads = threads;
    }

    public decodedByNodeLlamaCpp = 0;

    public async decodeBatch(): Promise<void> {
        this.decodedByNodeLlamaCpp++;
        this.batches.at(-1)!.threads = this.threads;
        const failure = this.failNextDecode;
        this.failNextDecode = null;
        if (failure != null)
            throw failure;
    }

    public async sampleToken(output: number): Promise<number> {
        return this.sample(output);
    }

    /** Cells dropped from a sequence (a rejected draft's); `refuseRemoval`: as a recurrent model does. */
    public readonly removed: Array<{sequenceId: number, start: number, end: number}> = [];
    public refuseRemoval = false;

    public removeTokenCellsFromSequence(sequenceId: number, start: number, end: number): boolean {
        this.removed.push({sequenceId, start, end});
        return !this.refuseRemoval;
    }
}

class SamplerDouble {
    public readonly configs: object[] = [];
    public disposed = false;
    public applyConfig(config: object): void {
        this.configs.push(config);
    }
    public dispose(): void {
        this.disposed = true;
    }
}

const samplers: SamplerDouble[] = [];
const model = {_model: {}, _llama: {_bindings: {AddonSampler: class extends SamplerDouble {
    public constructor() {
        super();
        samplers.push(this);
    }
}}}};

/** A sequence's private bookkeeping, as node-llama-cpp keeps it. */
function sequenceDouble(sequenceId: number, held: number[] = []) {
    const sequence = {
        model,
        _sequenceId: sequenceId,
        _nextTokenIndex: held.length,
        _contextTokens: [...held],
        evaluatedAsPrompt: [] as number[][],
        get nextTokenIndex() {
            return this._nextTokenIndex;
        },
        needsCheckpoints: false,
        _resolveSamplerConfig: (options: object) => ({resolved: options}),
        _takeIntervalCheckpointIfNeededAfterBatch: (): Promise<void> | undefined => undefined,
        async evaluateWithoutGeneratingNewTokens(tokens: number[]) {
            this.evaluatedAsPrompt.push(tokens);
            this._nextTokenIndex += tokens.length;
            this._contextTokens.push(...tokens);
        }
    };
    return sequence;
}

type ChatserveDecodeBatch = (native: NativeDouble) => Promise<void>;

/** `chatserveDecodeBatch`: the call chatserve adds to the addon it compiles (native/decodeBatch.cpp). */
function setup({batchSize = 8, threads = 2, decodeThreads = 1, plainAttentionForShortRuns = false, chatserveDecodeBatch = undefined as ChatserveDecodeBatch | undefined} = {}) {
    const native = new NativeDouble();
    const context = {_ctx: native, batchSize, _llama: {_bindings: {chatserveDecodeBatch}}} as unknown as LlamaContext;
    const steps = new DecodeSteps(context, threads, decodeThreads, plainAttentionForShortRuns);
    const sequences = [0, 1, 2, 3].map((id) => sequenceDouble(id));
    const as = (sequence: ReturnType<typeof sequenceDouble>) => sequence as unknown as LlamaContextSequence;
    const step = (sequence: ReturnType<typeof sequenceDouble>, tokens: number[], changesPerToken = false) =>
        steps.step(as(sequence), tokens as Token[], steps.sampler(as(sequence), {temperature: 0}, changesPerToken));
    return {native, context, steps, sequences, as, step};
}

describe("DecodeSteps", () => {
    it("puts the steps asked for in one event-loop turn into one batch, in sequence order, each at its sequence's next index", async () => {
        const {native, sequences, step} = setup();
        sequences[2]!._nextTokenIndex = 5;
        sequences[2]!._contextTokens = [1, 2, 3, 4, 5];
        const tokens = await Promise.all([step(sequences[2]!, [6, 7]), step(sequences[0]!, [9, 8, 7])]);

        expect(native.batches).toEqual([{size: 5, threads: 2, entries: [
            {sequenceId: 0, at: 0, tokens: [9, 8, 7], logitAt: [2]},
            {sequenceId: 2, at: 5, tokens: [6, 7], logitAt: [1]}
        ]}]);
        // Outputs are numbered in batch order: sequence 2's is the second.
        expect(tokens).toEqual([101, 100]);
        expect(sequences[0]!._contextTokens).toEqual([9, 8, 7]);
        expect(sequences[2]!._nextTokenIndex).toBe(7);
        expect(sequences[2]!._contextTokens).toEqual([1, 2, 3, 4, 5, 6, 7]);
    });

    it("runs a one-token batch on the decode threads and any larger one on every thread", async () => {
        const {native, sequences, step} = setup({threads: 4, decodeThreads: 3});
        await step(sequences[0]!, [1]);
        await Promise.all([step(sequences[0]!, [2]), step(sequences[1]!, [3])]);
        expect(native.batches.map((batch) => batch.threads)).toEqual([3, 4]);
    });

    it("keeps streams in lockstep: a stream handed its token and asking again joins the next batch with the others", async () => {
        const {native, sequences, step} = setup();
        const generate = async (sequence: ReturnType<typeof sequenceDouble>, count: number) => {
            let token = 1;
            for (let index = 0; index < count; index++)
                token = await step(sequence, [token]);
        };
        await Promise.all([generate(sequences[0]!, 5), generate(sequences[1]!, 3), generate(sequences[3]!, 5)]);
        expect(native.batches.map((batch) => batch.entries.map((entry) => entry.sequenceId))).toEqual([
            [0, 1, 3], [0, 1, 3], [0, 1, 3], [0, 3], [0, 3]
        ]);
    });

    it("decodes a lone stream's next step at once, and waits for the turn's end only while a stream of the last batch is not back", async () => {
        const {native, sequences, step} = setup();
        const microtasks = async () => {
            for (let index = 0; index < 20; index++)
                await Promise.resolve();
        };
        const token = await step(sequences[0]!, [1]);
        // A generation's layers and its SSE write come between its token and its next step.
        await microtasks();
        void step(sequences[0]!, [token]);
        await microtasks();
        expect(native.batches).toHaveLength(2);

        await Promise.all([step(sequences[1]!, [1]), step(sequences[2]!, [1])].map((stepped) => stepped.catch(() => 0)));
        // Sequence 2 ends here; sequence 1 comes back and waits for the end of the turn.
        void step(sequences[1]!, [5]);
        await microtasks();
        expect(native.batches).toHaveLength(3);
        await new Promise((resolve) => setImmediate(resolve));
        await microtasks();
        expect(native.batches).toHaveLength(4);
    });

    it("takes whole steps shortest first, then part of the next, and leaves its rest for the next batch", async () => {
        const {native, sequences, step} = setup({batchSize: 4});
        await Promise.all([step(sequences[0]!, [1, 2, 3]), step(sequences[1]!, [4, 5]), step(sequences[2]!, [6])]);
        expect(native.batches.map((batch) => batch.entries.map(({sequenceId, tokens, logitAt}) => ({sequenceId, tokens, logitAt})))).toEqual([
            [{sequenceId: 0, tokens: [1], logitAt: []}, {sequenceId: 1, tokens: [4, 5], logitAt: [1]}, {sequenceId: 2, tokens: [6], logitAt: [0]}],
            [{sequenceId: 0, tokens: [2, 3], logitAt: [1]}]
        ]);
    });

    it("splits a step longer than a batch over several, with an output only at its end", async () => {
        const {native, sequences, step} = setup({batchSize: 4});
        await expect(step(sequences[0]!, [1, 2, 3, 4, 5, 6])).resolves.toBe(100);
        expect(native.batches.map((batch) => batch.entries)).toEqual([
            [{sequenceId: 0, at: 0, tokens: [1, 2, 3, 4], logitAt: []}],
            [{sequenceId: 0, at: 4, tokens: [5, 6], logitAt: [1]}]
        ]);
        expect(sequences[0]!._contextTokens).toEqual([1, 2, 3, 4, 5, 6]);
    });

    it("fills what generating streams leave of each batch with part of a step that does not fit, so it never waits for them to end", async () => {
        const {native, sequences, step} = setup({batchSize: 4});
        const ended: string[] = [];
        const generate = async (sequence: ReturnType<typeof sequenceDouble>, count: number) => {
            for (let index = 0, token = 1; index < count; index++)
                token = await step(sequence, [token]);
            ended.push(`stream ${sequence._sequenceId}`);
        };
        // A request arrives while the streams' second batch decodes.
        let prompt: Promise<unknown> | undefined;
        native.sample = (output) => {
            if (native.batches.length === 2)
                prompt ??= step(sequences[0]!, [1, 2, 3, 4]).then(() => ended.push("prompt"));
            return 100 + output;
        };
        await Promise.all([generate(sequences[1]!, 8), generate(sequences[2]!, 8)]);
        await prompt;

        expect(ended[0]).toBe("prompt");
        const withPrompt = native.batches.filter((batch) => batch.entries.some((entry) => entry.sequenceId === 0));
        expect(withPrompt.map((batch) => batch.entries.map((entry) => [entry.sequenceId, entry.tokens.length, entry.logitAt.length]))).toEqual([
            [[0, 2, 0], [1, 1, 1], [2, 1, 1]],
            [[0, 2, 1], [1, 1, 1], [2, 1, 1]]
        ]);
    });

    it("refuses a step with no token to sample after", async () => {
        const {native, sequences, step} = setup();
        await expect(step(sequences[0]!, [])).rejects.toThrow("at least one token");
        expect(native.batches).toHaveLength(0);
    });

    it("fails every step of a batch whose decode fails, without counting its tokens, and decodes the next batch", async () => {
        const {native, sequences, step} = setup();
        native.failNextDecode = new Error("llama_decode failed");
        const failed = await Promise.allSettled([step(sequences[0]!, [1]), step(sequences[1]!, [2])]);
        expect(failed.map((result) => result.status)).toEqual(["rejected", "rejected"]);
        expect(sequences[0]!._nextTokenIndex).toBe(0);
        await expect(step(sequences[0]!, [1])).resolves.toBe(100);
    });

    it("fails the rest of a split step with the batch that held its head", async () => {
        const {native, sequences, step} = setup({batchSize: 4});
        native.failNextDecode = new Error("llama_decode failed");
        await expect(step(sequences[0]!, [1, 2, 3, 4, 5, 6])).rejects.toThrow("llama_decode failed");
        expect(native.batches).toHaveLength(1);
        await expect(step(sequences[1]!, [1])).resolves.toBe(100);
        expect(native.batches).toHaveLength(2);
    });

    it("fails the steps of a batch whose checkpoint fails (hybrid and sliding-window models), and goes on", async () => {
        const {sequences, step} = setup();
        sequences[0]!.needsCheckpoints = true;
        sequences[0]!._takeIntervalCheckpointIfNeededAfterBatch = async () => {
            throw new Error("checkpoint failed");
        };
        await expect(step(sequences[0]!, [1])).rejects.toThrow("checkpoint failed");
        sequences[0]!._takeIntervalCheckpointIfNeededAfterBatch = () => undefined;
        await expect(step(sequences[0]!, [1])).resolves.toBe(100);
    });

    it("fails only the step whose sampler picks no token", async () => {
        const {native, sequences, step} = setup();
        native.sample = (output) => output === 0 ? -1 : 7;
        const results = await Promise.allSettled([step(sequences[0]!, [1]), step(sequences[1]!, [2])]);
        expect(results[0]).toMatchObject({status: "rejected", reason: new Error("llama.cpp sampled no token")});
        expect(results[1]).toEqual({status: "fulfilled", value: 7});
    });

    it("configures a sampler once, or before every token when its options change as the reply grows", async () => {
        const {steps, sequences, as} = setup();
        const fixed = steps.sampler(as(sequences[0]!), {temperature: 0.5}, false);
        const changing = steps.sampler(as(sequences[1]!), {temperature: 0.5}, true);
        for (let index = 0; index < 3; index++)
            await Promise.all([steps.step(as(sequences[0]!), [1 as Token], fixed), steps.step(as(sequences[1]!), [1 as Token], changing)]);
        const [fixedNative, changingNative] = samplers.slice(-2);
        expect(fixedNative!.configs).toEqual([{resolved: {temperature: 0.5}}]);
        expect(changingNative!.configs).toHaveLength(3);
        fixed.dispose();
        expect(fixedNative!.disposed).toBe(true);
    });

    it("decodes through chatserve's own call where the addon has it and attention is chosen per batch, else through node-llama-cpp's", async () => {
        const calls: NativeDouble[] = [];
        const chatserveDecodeBatch: ChatserveDecodeBatch = async (native) => {
            calls.push(native);
        };
        const ours = setup({plainAttentionForShortRuns: true, chatserveDecodeBatch});
        await expect(ours.step(ours.sequences[0]!, [1, 2, 3])).resolves.toBe(100);
        expect(calls).toEqual([ours.native]);
        expect(ours.native.decodedByNodeLlamaCpp).toBe(0);

        // `--flash-attention on` (or off) leaves every batch to node-llama-cpp, and so does its prebuilt addon.
        for (const options of [{plainAttentionForShortRuns: false, chatserveDecodeBatch}, {plainAttentionForShortRuns: true}]) {
            const theirs = setup(options);
            await theirs.step(theirs.sequences[0]!, [1, 2, 3]);
            expect(theirs.native.decodedByNodeLlamaCpp).toBe(1);
        }
        expect(calls).toHaveLength(1);
    });

    it("decodes nothing while node-llama-cpp holds the context lock (erasing a sequence, evaluating a prompt)", async () => {
        const {native, context, sequences, step} = setup();
        let release!: () => void;
        const held = withContextLock(context, () => new Promise<void>((resolve) => release = resolve));
        const stepped = step(sequences[0]!, [1]);
        await new Promise((resolve) => setTimeout(resolve, 10));
        expect(native.batches).toHaveLength(0);
        release();
        await held;
        await expect(stepped).resolves.toBe(100);
    });
});

describe("DecodeSteps with a draft", () => {
    /** Samples, per output, the token at that index of `tokens` (the outputs of one batch are numbered from 0). */
    const sampling = (native: NativeDouble, tokens: number[]) => {
        native.sample = (output) => tokens[output]!;
    };

    it("feeds the draft after the step's tokens with an output for each, and keeps the whole draft and the token after it when all is accepted", async () => {
        const {native, steps, sequences, as} = setup();
        sampling(native, [11, 12, 13, 14]);
        const sampler = steps.sampler(as(sequences[0]!), {temperature: 0}, false);
        const kept = await steps.speculate(as(sequences[0]!), [10 as Token], [11, 12, 13] as Token[], sampler);

        expect(kept).toEqual([11, 12, 13, 14]);
        expect(native.batches[0]!.entries).toEqual([{sequenceId: 0, at: 0, tokens: [10, 11, 12, 13], logitAt: [0, 1, 2, 3]}]);
        expect(native.removed).toEqual([]);
        // The draft is in the cache; the last kept token is not, as after any step.
        expect(sequences[0]!._contextTokens).toEqual([10, 11, 12, 13]);
        expect(sequences[0]!._nextTokenIndex).toBe(4);
    });

    it("stops at the first sampled token that is not the draft's, keeps it, and takes the rejected rest out of the cache and the bookkeeping", async () => {
        const {native, steps, sequences, as} = setup();
        sequences[0]!._contextTokens = [1, 2];
        sequences[0]!._nextTokenIndex = 2;
        const sampledOutputs: number[] = [];
        native.sample = (output) => {
            sampledOutputs.push(output);
            return [21, 99, 23, 24][output]!;
        };
        const sampler = steps.sampler(as(sequences[0]!), {temperature: 0}, false);
        const kept = await steps.speculate(as(sequences[0]!), [20 as Token], [21, 22, 23] as Token[], sampler);

        expect(kept).toEqual([21, 99]);
        // Outputs after the rejection are never sampled: the sampler's state advances as in plain decoding.
        expect(sampledOutputs).toEqual([0, 1]);
        expect(native.removed).toEqual([{sequenceId: 0, start: 4, end: 6}]);
        expect(sequences[0]!._contextTokens).toEqual([1, 2, 20, 21]);
        expect(sequences[0]!._nextTokenIndex).toBe(4);
    });

    it("rejects a wholly wrong draft down to the step's own token", async () => {
        const {native, steps, sequences, as} = setup();
        sampling(native, [50, 51, 52]);
        const sampler = steps.sampler(as(sequences[1]!), {temperature: 0}, false);
        await expect(steps.speculate(as(sequences[1]!), [5 as Token], [6, 7] as Token[], sampler)).resolves.toEqual([50]);
        expect(native.removed).toEqual([{sequenceId: 1, start: 1, end: 3}]);
        expect(sequences[1]!._contextTokens).toEqual([5]);
    });

    it("shares the batch with the other streams' plain steps, and takes only the room they leave", async () => {
        const {native, steps, sequences, as, step} = setup({batchSize: 5});
        native.sample = (output) => 200 + output;
        const sampler = steps.sampler(as(sequences[2]!), {temperature: 0}, false);
        const [plain0, drafted, plain1] = await Promise.all([
            step(sequences[0]!, [1]),
            steps.speculate(as(sequences[2]!), [3 as Token], [4, 5, 6, 7, 8] as Token[], sampler),
            step(sequences[1]!, [2])
        ]);
        expect(native.batches).toHaveLength(1);
        // One token each for the plain steps, the drafted step's own token, and two of its draft: five in all.
        expect(native.batches[0]!.entries).toEqual([
            {sequenceId: 0, at: 0, tokens: [1], logitAt: [0]},
            {sequenceId: 1, at: 0, tokens: [2], logitAt: [0]},
            {sequenceId: 2, at: 0, tokens: [3, 4, 5], logitAt: [0, 1, 2]}
        ]);
        expect([plain0, plain1]).toEqual([200, 201]);
        // Output 2 (the drafted step's first) is 202, not the draft's 4: rejected at once.
        expect(drafted).toEqual([202]);
    });

    it("fails the drafted step when the model cannot drop a rejected draft, and the other steps of its batch still get their tokens", async () => {
        const {native, steps, sequences, as, step} = setup();
        native.refuseRemoval = true;
        native.sample = () => 9;
        const sampler = steps.sampler(as(sequences[0]!), {temperature: 0}, false);
        const results = await Promise.allSettled([steps.speculate(as(sequences[0]!), [1 as Token], [2] as Token[], sampler), step(sequences[1]!, [1])]);
        expect(results[0]).toMatchObject({status: "rejected", reason: new Error("llama.cpp could not drop a rejected draft from the sequence's cache")});
        expect(results[1]).toEqual({status: "fulfilled", value: 9});
    });
});
