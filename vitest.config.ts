import {defineConfig} from "vitest/config";

// The test processes run with the libuv pool chatserve's bin gives the server (bin/chatserve.cjs):
// one worker thread. The forks inherit it; libuv reads it when a process's pool first starts.
if (process.platform === "linux")
    process.env.UV_THREADPOOL_SIZE ??= "1";

/**
 * One test file at a time: end-to-end files run real models, and on a small CPU two model
 * processes at once starve each other's inference threads (generation collapses when threads
 * outnumber free cores). Unit and HTTP files are fast enough that running them serially costs little.
 */
export default defineConfig({
    test: {
        include: ["test/**/*.test.ts"],
        pool: "forks",
        fileParallelism: false,
        testTimeout: 60_000,
        hookTimeout: 120_000
    }
});
