import type {LlamaContext} from "node-llama-cpp";
import {describe, expect, it} from "vitest";
import {useLockstepBatches} from "../../src/engine/lockstepBatches.js";

type Queued = {sequenceId: number, logits: boolean[]};
type Decode = {queued: Queued, deliver(): void, fail(error: Error): void};

/**
 * node-llama-cpp's context as the wrapper sees it: queueing a decode records its sequence id,
 * the test dispatches it (drops the id) and delivers its output (resolves the decode's promise).
 */
class ContextDouble {
    public readonly _queuedDecodes: Queued[] = [];
    public readonly _queuedDecodeSequenceIds = new Set<number>();
    public readonly decodes: Decode[] = [];
    public dispatches = 0;

    public _decodeTokens(queued: Queued): Promise<void> {
        this._queuedDecodes.push(queued);
        this._queuedDecodeSequenceIds.add(queued.sequenceId);
        return new Promise((deliver, fail) => this.decodes.push({queued, deliver, fail}));
    }

    public dispatchPendingBatch(): void {
        this.dispatches++;
    }

    /** Queued decodes of these sequences, as a batch: dispatched, not yet delivered. */
    public dispatch(...sequenceIds: number[]): Decode[] {
        for (const id of sequenceIds) {
            this._queuedDecodeSequenceIds.delete(id);
            this._queuedDecodes.splice(this._queuedDecodes.findIndex((queued) => queued.sequenceId === id), 1);
        }
        return sequenceIds.map((id) => this.decodes.findLast((decode) => decode.queued.sequenceId === id)!);
    }

    /** How many decodes each sequence has queued so far. */
    public counts(): Record<number, number> {
        const counts: Record<number, number> = {};
        for (const {queued} of this.decodes)
            counts[queued.sequenceId] = (counts[queued.sequenceId] ?? 0) + 1;
        return counts;
    }
}

function install() {
    const context = new ContextDouble();
    expect(useLockstepBatches(context as unknown as LlamaContext)).toBe(true);
    // The wrapper replaced the method on the instance: calls go through it from here on.
    const decode = (sequenceId: number, logits = [true]) =>
        void (context as unknown as {_decodeTokens(queued: Queued): Promise<void>})._decodeTokens({sequenceId, logits});
    return {context, decode};
}

/** Lets event-loop turns pass: microtasks, then setImmediate callbacks. */
async function turns(count = 3): Promise<void> {
    for (let turn = 0; turn < count; turn++)
        await new Promise((resolve) => setImmediate(resolve));
}

/** A sequence is handed its token and, like a generation does, asks for the next one at once. */
async function deliverAndReturn(decode: Decode, next: () => void): Promise<void> {
    decode.deliver();
    await Promise.resolve();
    next();
}

describe("useLockstepBatches", () => {
    it("holds a sequence back for its next token until every sequence of its step is back, then queues them together", async () => {
        const {context, decode} = install();
        decode(0);
        decode(1);
        const [first, second] = context.dispatch(0, 1);

        await deliverAndReturn(first!, () => decode(0));
        await turns();
        expect(context.counts()).toEqual({0: 1, 1: 1});

        await deliverAndReturn(second!, () => decode(1));
        await turns();
        expect(context.counts()).toEqual({0: 2, 1: 2});
        expect(context.dispatches).toBe(1);
    });

    it("lets the others go one event-loop turn after a sequence was handed its token and did not come back", async () => {
        const {context, decode} = install();
        decode(0);
        decode(1);
        const [first, second] = context.dispatch(0, 1);
        second!.deliver(); // its generation ends here
        await deliverAndReturn(first!, () => decode(0));
        await turns();
        expect(context.counts()).toEqual({0: 2, 1: 1});
    });

    it("does not wait for a decode still queued, such as a new prompt: it joins the same batch", async () => {
        const {context, decode} = install();
        decode(0);
        const [first] = context.dispatch(0);
        decode(2, [false, false, true]);
        await deliverAndReturn(first!, () => decode(0));
        await turns();
        expect(context.counts()).toEqual({0: 2, 2: 1});
    });

    it("lets the others go when a decode of the step fails", async () => {
        const {context, decode} = install();
        decode(0);
        decode(1);
        const [first, second] = context.dispatch(0, 1);
        await deliverAndReturn(first!, () => decode(0));
        second!.fail(new Error("context disposed"));
        await turns();
        expect(context.counts()).toEqual({0: 2, 1: 1});
    });

    it("queues prompt chunks, which want no output, at once, even on a sequence whose stream just ended", async () => {
        const {context, decode} = install();
        decode(0);
        decode(1);
        const [first] = context.dispatch(0, 1);
        // Sequence 0 is handed its token and its stream ends; sequence 1 is still mid-step.
        first!.deliver();
        await Promise.resolve();
        decode(0, [false, false]);
        expect(context.counts()).toEqual({0: 2, 1: 1});
    });

    it("keeps the queue in sequence order: a new prompt queued before a step's held sequences does not lead the batch", async () => {
        const {context, decode} = install();
        decode(0);
        decode(1);
        const [first, second] = context.dispatch(0, 1);
        await deliverAndReturn(first!, () => decode(0));
        // A new request's prompt on sequence 2 is queued while sequence 1 is still being sampled.
        decode(2, [false, true]);
        await deliverAndReturn(second!, () => decode(1));
        await turns();
        expect(context._queuedDecodes.map((queued) => queued.sequenceId)).toEqual([0, 1, 2]);
    });

    it("changes nothing when node-llama-cpp's internals are not there", () => {
        expect(useLockstepBatches({} as LlamaContext)).toBe(false);
    });
});
