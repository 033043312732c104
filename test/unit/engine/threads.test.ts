import os from "node:os";
import {describe, expect, it} from "vitest";
import {defaultThreadCount, libuvPoolSize, resolveDecodeThreads, resolveThreadCount} from "../../../src/engine/threads.js";

describe("defaultThreadCount", () => {
    it("uses the math cores, capped at the cores available", () => {
        expect(defaultThreadCount(4, 16)).toBe(4);
        expect(defaultThreadCount(16, 2)).toBe(2);
        expect(defaultThreadCount(8, 8)).toBe(8);
    });

    it("is at least 1", () => {
        expect(defaultThreadCount(0, 4)).toBe(1);
    });

    it("defaults `available` to this process's parallelism", () => {
        expect(defaultThreadCount(1024)).toBe(os.availableParallelism());
    });
});

describe("resolveThreadCount", () => {
    it("without a request, is the default", () => {
        expect(resolveThreadCount(undefined, 6, 4)).toBe(4);
        expect(resolveThreadCount(undefined, 2, 4)).toBe(2);
    });

    it("honours a request up to the cores available, even above the math cores", () => {
        expect(resolveThreadCount(3, 2, 8)).toBe(3);
        expect(resolveThreadCount(16, 8, 4)).toBe(4);
    });

    it("never exceeds the cores available, nor goes below 1", () => {
        for (let available = 1; available <= 12; available++)
            for (let cores = 0; cores <= 12; cores++)
                for (const requested of [undefined, 1, 2, 3, 4, 8, 16, 64]) {
                    const threads = resolveThreadCount(requested, cores, available);
                    expect(threads).toBeGreaterThanOrEqual(1);
                    expect(threads).toBeLessThanOrEqual(available);
                    expect(defaultThreadCount(cores, available)).toBeLessThanOrEqual(available);
                }
    });
});

describe("resolveDecodeThreads", () => {
    it("without OpenMP, defaults to one thread fewer than the inference threads, at least 1", () => {
        expect(resolveDecodeThreads(undefined, 2, false)).toBe(1);
        expect(resolveDecodeThreads(undefined, 8, false)).toBe(7);
        expect(resolveDecodeThreads(undefined, 1, false)).toBe(1);
    });

    it("with OpenMP on one libuv worker, defaults to all the inference threads", () => {
        expect(resolveDecodeThreads(undefined, 2, true)).toBe(2);
        expect(resolveDecodeThreads(undefined, 8, true)).toBe(8);
    });

    it("honours a request up to the inference threads", () => {
        expect(resolveDecodeThreads(2, 2, false)).toBe(2);
        expect(resolveDecodeThreads(1, 2, true)).toBe(1);
        expect(resolveDecodeThreads(6, 4, true)).toBe(4);
    });
});

describe("libuvPoolSize", () => {
    it("reads UV_THREADPOOL_SIZE, and libuv's default of 4 when it is unset or not a count", () => {
        expect(libuvPoolSize({UV_THREADPOOL_SIZE: "1"})).toBe(1);
        expect(libuvPoolSize({UV_THREADPOOL_SIZE: "8"})).toBe(8);
        expect(libuvPoolSize({})).toBe(4);
        expect(libuvPoolSize({UV_THREADPOOL_SIZE: ""})).toBe(4);
        expect(libuvPoolSize({UV_THREADPOOL_SIZE: "two"})).toBe(4);
    });
});
