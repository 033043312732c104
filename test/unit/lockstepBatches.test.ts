import type {LlamaContext} from "node-llama-cpp";
import {describe, expect, it} from "vitest";
import {useLockstepBatches} from "../../src/engine/lockstepBatches.js";

type Queued = {sequenceId: number, logits: boolean[], afterBatchAction?: (length: number) => unknown};

/** node-llama-cpp's context as the dispatch sees it: queueing a decode records its sequence id. */
class ContextDouble {
    public readonly _queuedDecodeSequenceIds = new Set<number>();
    public readonly queued: Queued[] = [];

    public async _decodeTokens(queued: Queued): Promise<void> {
        this.queued.push(queued);
        this._queuedDecodeSequenceIds.add(queued.sequenceId);
    }

    /** What a dispatch does with a queued decode: takes it into a batch, then runs its after-batch action. */
    public decodeAndFinish(queued: Queued): Promise<unknown> {
        this._queuedDecodeSequenceIds.delete(queued.sequenceId);
        return Promise.resolve(queued.afterBatchAction?.(1));
    }
}

function install() {
    const context = new ContextDouble();
    expect(useLockstepBatches(context as unknown as LlamaContext)).toBe(true);
    return context;
}

/** Resolves "turn" once an event-loop turn has passed, to tell a microtask-quick wait from a turn-long one. */
function settledWithin<T>(promise: Promise<T>): Promise<"microtasks" | "turn"> {
    return Promise.race([promise.then(() => "microtasks" as const), new Promise<"turn">((resolve) => setImmediate(() => resolve("turn")))]);
}

describe("useLockstepBatches", () => {
    it("holds the next batch until a sequence that got an output queues its next token", async () => {
        const context = install();
        void context._decodeTokens({sequenceId: 2, logits: [false, true]});
        let afterBatch = false;
        const finished = context.decodeAndFinish(context.queued[0]!).then(() => afterBatch = true);

        for (let tick = 0; tick < 50; tick++)
            await null;
        expect(afterBatch).toBe(false);
        void context._decodeTokens({sequenceId: 2, logits: [true]});
        expect(await settledWithin(finished)).toBe("microtasks");
    });

    it("waits at most one event-loop turn for a sequence that does not come back", async () => {
        const context = install();
        void context._decodeTokens({sequenceId: 0, logits: [true]});
        const finished = context.decodeAndFinish(context.queued[0]!);
        expect(await settledWithin(finished)).toBe("turn");
        await finished;
    });

    it("does not wait for a prompt chunk, which has no output, nor for a sequence already queued again", async () => {
        const context = install();
        void context._decodeTokens({sequenceId: 0, logits: [false, false]});
        expect(await settledWithin(context.decodeAndFinish(context.queued[0]!))).toBe("microtasks");

        void context._decodeTokens({sequenceId: 1, logits: [true]});
        const first = context.queued[1]!;
        context._queuedDecodeSequenceIds.delete(1);
        void context._decodeTokens({sequenceId: 1, logits: [true]});
        expect(await settledWithin(Promise.resolve(first.afterBatchAction?.(1)))).toBe("microtasks");
    });

    it("still runs node-llama-cpp's own after-batch action", async () => {
        const context = install();
        const lengths: number[] = [];
        void context._decodeTokens({sequenceId: 0, logits: [false], afterBatchAction: (length) => lengths.push(length)});
        await context.decodeAndFinish(context.queued[0]!);
        expect(lengths).toEqual([1]);
    });

    it("changes nothing when node-llama-cpp's internals are not there", () => {
        expect(useLockstepBatches({} as LlamaContext)).toBe(false);
    });
});
