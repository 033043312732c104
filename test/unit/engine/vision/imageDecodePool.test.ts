import {describe, expect, it} from "vitest";
import {ServerBusyError} from "../../../../src/errors.js";
import {ImageDecodePool, imageDecodeConcurrency} from "../../../../src/engine/vision/imageDecodePool.js";

/** A decode the test finishes by hand: `started` says whether the pool called it. */
function manualWork<T>() {
    let finish!: (value: T) => void;
    let fail!: (error: unknown) => void;
    const work = {
        started: false,
        run: () => {
            work.started = true;
            return new Promise<T>((resolve, reject) => {
                finish = resolve;
                fail = reject;
            });
        },
        finish: (value: T) => finish(value),
        fail: (error: unknown) => fail(error)
    };
    return work;
}

const never = () => new AbortController().signal;
const settled = () => new Promise((resolve) => setImmediate(resolve));

describe("the pool of image decodes", () => {
    it("runs at most its concurrency at once, and starts the rest first come first served", async () => {
        const pool = new ImageDecodePool(2, 10);
        const works = Array.from({length: 5}, () => manualWork<number>());
        const outcomes = Promise.allSettled(works.map((work) => pool.run(work.run, never())));
        expect(works.map((work) => work.started)).toEqual([true, true, false, false, false]);
        expect([pool.running, pool.queued]).toEqual([2, 3]);

        works[1]!.finish(1);
        await settled();
        expect(works.map((work) => work.started)).toEqual([true, true, true, false, false]);
        works[0]!.finish(0);
        await settled();
        expect(works.map((work) => work.started)).toEqual([true, true, true, true, false]);
        works[2]!.fail(new Error("the image could not be decoded"));
        works[3]!.finish(3);
        await settled();
        expect(works[4]!.started).toBe(true);
        works[4]!.finish(4);

        expect((await outcomes).map((outcome) => outcome.status)).toEqual(["fulfilled", "fulfilled", "rejected", "fulfilled", "fulfilled"]);
        expect([pool.running, pool.queued]).toEqual([0, 0]);
    });

    it("refuses a decode that would wait beyond --max-queue with the sequence queue's 503", async () => {
        const pool = new ImageDecodePool(1, 2);
        const first = manualWork<string>();
        const running = pool.run(first.run, never());
        const waiting = [pool.run(manualWork<string>().run, never()), pool.run(manualWork<string>().run, never())];
        await expect(pool.run(manualWork<string>().run, never())).rejects.toBeInstanceOf(ServerBusyError);
        expect(pool.queued).toBe(2);
        first.finish("done");
        await expect(running).resolves.toBe("done");
        void waiting;
    });

    it("takes an aborted waiting decode out of the queue: it never starts, and makes room for another", async () => {
        const pool = new ImageDecodePool(1, 1);
        const first = manualWork<string>();
        const running = pool.run(first.run, never());
        const abandoned = manualWork<string>();
        const client = new AbortController();
        const leaving = pool.run(abandoned.run, client.signal);
        client.abort(new Error("client left"));
        await expect(leaving).rejects.toThrow("client left");
        expect(pool.queued).toBe(0);

        const next = manualWork<string>();
        const nextResult = pool.run(next.run, never());
        first.finish("first");
        await running;
        await settled();
        expect(abandoned.started).toBe(false);
        expect(next.started).toBe(true);
        expect(pool.started).toBe(2);
        next.finish("next");
        await expect(nextResult).resolves.toBe("next");
    });

    it("answers an aborted running decode at once, and keeps its slot until the native call returns", async () => {
        const pool = new ImageDecodePool(1, 5);
        const abandoned = manualWork<string>();
        const client = new AbortController();
        const leaving = pool.run(abandoned.run, client.signal);
        const waiting = manualWork<string>();
        const waitingResult = pool.run(waiting.run, never());

        client.abort(new Error("client left"));
        await expect(leaving).rejects.toThrow("client left");
        // The decoder's thread is still busy: the slot is too.
        expect([pool.running, waiting.started]).toEqual([1, false]);

        abandoned.finish("dropped");
        await settled();
        expect([pool.running, waiting.started]).toEqual([1, true]);
        waiting.finish("kept");
        await expect(waitingResult).resolves.toBe("kept");
        expect(pool.running).toBe(0);
    });

    it("never starts work whose signal aborted before it came", async () => {
        const pool = new ImageDecodePool(1, 5);
        const work = manualWork<string>();
        await expect(pool.run(work.run, AbortSignal.abort(new Error("gone")))).rejects.toThrow("gone");
        expect(work.started).toBe(false);
    });
});

describe("how many images decode at once", () => {
    it("is one where inference takes every core, two at most where cores are left over", () => {
        expect(imageDecodeConcurrency(2, 2)).toBe(1);
        expect(imageDecodeConcurrency(1, 2)).toBe(1);
        expect(imageDecodeConcurrency(4, 6)).toBe(1);
        expect(imageDecodeConcurrency(4, 8)).toBe(2);
        expect(imageDecodeConcurrency(8, 64)).toBe(2);
    });
});
