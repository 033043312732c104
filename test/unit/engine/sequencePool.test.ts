import {describe, expect, it} from "vitest";
import {ServerBusyError} from "../../../src/errors.js";
import {commonPrefixLength, SequencePool} from "../../../src/engine/sequencePool.js";
import {claimCache} from "../../../src/engine/cachePartitions.js";
import type {LlamaContextSequence} from "node-llama-cpp";

type Seq = {name: string, contextTokens: number[]};
const seq = (name: string, contextTokens: number[] = []): Seq => ({name, contextTokens});
const never = () => new AbortController().signal;
/** Lets pending promise callbacks run (no timers involved). */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("commonPrefixLength", () => {
    it("counts the leading tokens two lists share", () => {
        expect(commonPrefixLength([], [])).toBe(0);
        expect(commonPrefixLength([1, 2, 3], [])).toBe(0);
        expect(commonPrefixLength([5], [1])).toBe(0);
        expect(commonPrefixLength([1, 2, 3], [1, 2, 4])).toBe(2);
        expect(commonPrefixLength([1, 2], [1, 2, 3])).toBe(2);
        expect(commonPrefixLength([1, 2, 3], [1, 2, 3])).toBe(3);
        expect(commonPrefixLength([1, 9, 3], [1, 2, 3])).toBe(1);
    });
});

describe("SequencePool", () => {
    it("gives a request the free sequence sharing the longest prefix with its prompt", async () => {
        const pool = new SequencePool([seq("empty"), seq("short", [1, 2, 3]), seq("long", [1, 2, 9, 9])], 4);
        expect((await pool.acquire([1, 2, 9, 7], never())).name).toBe("long");
        expect((await pool.acquire([1, 2, 3, 4], never())).name).toBe("short");
        expect((await pool.acquire([1, 2, 3, 4], never())).name).toBe("empty");
    });

    it("takes the least recently used free sequence when no free one shares a useful prefix, keeping other conversations' caches", async () => {
        const conversation = Array.from({length: 500}, (_, index) => index + 1);
        const pool = new SequencePool([seq("a"), seq("b"), seq("c")], 4);
        const a = await pool.acquire(conversation, never());
        expect(a.name).toBe("a");
        a.contextTokens = conversation;
        pool.release(a);
        // A new conversation shares only the template's first tokens with a's: b, never used, takes it.
        const other = [1, 2, 3, ...Array.from({length: 200}, (_, index) => 9000 + index)];
        const b = await pool.acquire(other, never());
        expect(b.name).toBe("b");
        pool.release(b);
        // The follow-up turn of a's conversation still finds it, though a is now the least recently used.
        expect((await pool.acquire([...conversation, 7, 7], never())).name).toBe("a");
        // Half a short prompt is a useful prefix too.
        const short = new SequencePool([seq("empty"), seq("half", [5, 6])], 4);
        expect((await short.acquire([5, 6, 7, 8], never())).name).toBe("half");
    });

    it("queues requests when every sequence is busy and serves them first in, first out", async () => {
        const a = seq("a");
        const pool = new SequencePool([a], 4);
        const held = await pool.acquire([], never());
        const order: string[] = [];
        const first = pool.acquire([1], never()).then((s) => { order.push("first"); return s; });
        const second = pool.acquire([2], never()).then((s) => { order.push("second"); return s; });
        expect(pool.queued).toBe(2);

        pool.release(held);
        expect(await first).toBe(a);
        await settle();
        expect(order).toEqual(["first"]);
        pool.release(a);
        expect(await second).toBe(a);
        expect(order).toEqual(["first", "second"]);
        expect(pool.queued).toBe(0);
    });

    it("fails fast with ServerBusyError and Retry-After once the queue is full", async () => {
        const pool = new SequencePool([seq("a")], 1);
        await pool.acquire([], never());
        void pool.acquire([], never());
        const error = await pool.acquire([], never()).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(ServerBusyError);
        expect((error as ServerBusyError).status).toBe(503);
        expect((error as ServerBusyError).headers["Retry-After"]).toMatch(/^\d+$/);
        expect(pool.queued).toBe(1);
    });

    it("with maxQueue 0, refuses at once when all sequences are busy", async () => {
        const pool = new SequencePool([seq("a")], 0);
        await pool.acquire([], never());
        await expect(pool.acquire([], never())).rejects.toBeInstanceOf(ServerBusyError);
    });

    it("counts a sequence whose request was aborted as coming back: the next request waits for it instead of a 503", async () => {
        const pool = new SequencePool([seq("a")], 0);
        const cancelled = new AbortController();
        const sequence = await pool.acquire([], cancelled.signal);
        await expect(pool.acquire([], never())).rejects.toBeInstanceOf(ServerBusyError);

        cancelled.abort();
        const next = pool.acquire([], never());
        await expect(pool.acquire([], never())).rejects.toBeInstanceOf(ServerBusyError);
        pool.release(sequence);
        await expect(next).resolves.toBe(sequence);
        await expect(pool.acquire([], never())).rejects.toBeInstanceOf(ServerBusyError);
    });

    it("removes an aborted waiter from the queue at once, rejecting with the abort reason", async () => {
        const a = seq("a");
        const pool = new SequencePool([a], 4);
        const held = await pool.acquire([], never());
        const controller = new AbortController();
        const leaving = pool.acquire([], controller.signal);
        const staying = pool.acquire([], never());
        expect(pool.queued).toBe(2);

        const reason = new Error("client left");
        controller.abort(reason);
        expect(pool.queued).toBe(1);
        await expect(leaving).rejects.toBe(reason);

        pool.release(held);
        expect(await staying).toBe(a);
    });

    it("refuses a request whose signal is already aborted", async () => {
        const pool = new SequencePool([seq("a")], 4);
        await expect(async () => pool.acquire([], AbortSignal.abort(new Error("gone")))).rejects.toThrow("gone");
        // The sequence was not taken.
        await expect(pool.whenIdle()).resolves.toBeUndefined();
    });

    it("whenIdle resolves at once when nothing is leased, else when the last sequence comes back", async () => {
        const a = seq("a");
        const b = seq("b");
        const pool = new SequencePool([a, b], 4);
        await pool.whenIdle();

        const first = await pool.acquire([], never());
        const second = await pool.acquire([], never());
        const waiter = pool.acquire([], never());
        let idle = false;
        void pool.whenIdle().then(() => { idle = true; });

        pool.release(first); // goes to the waiter
        await waiter;
        pool.release(second);
        await settle();
        expect(idle).toBe(false);

        pool.release(first);
        await settle();
        expect(idle).toBe(true);
    });

    it("close fails every waiting request with the given error, and every later one that would wait; a free sequence still serves", async () => {
        const pool = new SequencePool([seq("a")], 4);
        const held = await pool.acquire([], never());
        const waiters = [pool.acquire([], never()), pool.acquire([], never())];
        const error = new Error("shutting down");
        pool.close(error);
        expect(pool.queued).toBe(0);
        for (const waiter of waiters)
            await expect(waiter).rejects.toBe(error);
        await expect(pool.acquire([], never())).rejects.toBe(error);

        pool.release(held);
        await expect(pool.whenIdle()).resolves.toBeUndefined();
        await expect(pool.acquire([], never())).resolves.toBe(held);
    });

    // A waiter removed by close keeps its abort listener: when its signal fires later, it must not
    // remove another waiter (indexOf -1 once spliced the last one in the queue).
    it("aborting a waiter already rejected by close changes nothing", async () => {
        const pool = new SequencePool([seq("a")], 4);
        const held = await pool.acquire([], never());
        const controller = new AbortController();
        const rejected = pool.acquire([], controller.signal);
        pool.close(new Error("stop"));
        await expect(rejected).rejects.toThrow("stop");
        controller.abort();
        expect(pool.queued).toBe(0);
        pool.release(held);
        await expect(pool.acquire([], never())).resolves.toBe(held);
    });
});

describe("SequencePool with cache partitions", () => {
    /** A sequence whose cache `partition`'s request filled with `tokens` (as llamaLoadedModel.ts claims a leased one). */
    const filledBy = async (name: string, tokens: number[], partition: string | undefined): Promise<Seq> => {
        const sequence = {name, contextTokens: [] as number[], nextTokenIndex: 0, clearHistory: async () => {}};
        await claimCache(sequence as unknown as LlamaContextSequence, partition);
        sequence.contextTokens = tokens;
        return sequence;
    };
    const prompt = Array.from({length: 300}, (_, index) => index + 1);

    it("never gives a request another partition's cached prefix: it takes the least recently used sequence as a blank one", async () => {
        const pool = new SequencePool([await filledBy("fresh", [], undefined), await filledBy("a's", prompt.slice(0, 250), "key-a")], 4);
        // Key B's prompt shares 250 tokens with a's cache, but that is not B's to reuse.
        expect((await pool.acquire(prompt, never(), "key-b")).name).toBe("fresh");
    });

    it("still gives a request its own partition's longest prefix", async () => {
        const pool = new SequencePool([
            await filledBy("b's short", prompt.slice(0, 80), "key-b"),
            await filledBy("a's long", prompt.slice(0, 250), "key-a"),
            await filledBy("b's long", prompt.slice(0, 200), "key-b")
        ], 4);
        expect((await pool.acquire(prompt, never(), "key-b")).name).toBe("b's long");
        expect((await pool.acquire(prompt, never(), "key-a")).name).toBe("a's long");
    });

    it("shares prefixes between requests without a partition, as before", async () => {
        const pool = new SequencePool([await filledBy("empty", [], undefined), await filledBy("shared", prompt.slice(0, 250), undefined)], 4);
        expect((await pool.acquire(prompt, never())).name).toBe("shared");
    });
});

describe("SequencePool with LoRA adapter sets", () => {
    it("leases sequences to one adapter set at a time: another set waits, though sequences are free, until the running set's are back", async () => {
        const pool = new SequencePool([seq("a"), seq("b"), seq("c")], 4);
        const tuned = await pool.acquire([1], never(), undefined, "lora:[0.5]");
        const tunedToo = await pool.acquire([2], never(), undefined, "lora:[0.5]");
        let baseGot: Seq | undefined;
        const base = pool.acquire([3], never()).then((sequence) => baseGot = sequence);
        await settle();
        expect(baseGot).toBeUndefined();
        expect(pool.queued).toBe(1);
        pool.release(tuned);
        await settle();
        expect(baseGot).toBeUndefined();
        pool.release(tunedToo);
        await base;
        expect(baseGot).toBeDefined();
        expect(pool.leased).toBe(1);
    });

    it("keeps the queue first in, first out: a request of the running set behind a waiting set waits its turn, so no set starves", async () => {
        const pool = new SequencePool([seq("a"), seq("b")], 4);
        const running = await pool.acquire([1], never(), undefined, "x");
        const order: string[] = [];
        const other = pool.acquire([2], never(), undefined, "y").then((sequence) => { order.push("y"); return sequence; });
        const sameAsRunning = pool.acquire([3], never(), undefined, "x").then((sequence) => { order.push("x"); return sequence; });
        await settle();
        expect(order).toEqual([]);
        pool.release(running);
        pool.release(await other);
        await sameAsRunning;
        expect(order).toEqual(["y", "x"]);
    });

    it("serves every waiter of the set it switches to at once, as far as sequences go", async () => {
        const pool = new SequencePool([seq("a"), seq("b"), seq("c")], 4);
        const running = await pool.acquire([1], never(), undefined, "x");
        const waiting = [pool.acquire([2], never(), undefined, "y"), pool.acquire([3], never(), undefined, "y")];
        await settle();
        expect(pool.queued).toBe(2);
        pool.release(running);
        await Promise.all(waiting);
        expect([pool.leased, pool.queued]).toEqual([2, 0]);
    });

    it("lets the requests behind an aborted head of the queue run when their set may", async () => {
        const pool = new SequencePool([seq("a"), seq("b")], 4);
        await pool.acquire([1], never(), undefined, "x");
        const leaving = new AbortController();
        const other = pool.acquire([2], leaving.signal, undefined, "y");
        const sameAsRunning = pool.acquire([3], never(), undefined, "x");
        await settle();
        leaving.abort(new Error("client left"));
        await expect(other).rejects.toThrow("client left");
        expect((await sameAsRunning).name).toBe("b");
    });
});
