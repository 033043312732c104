#!/usr/bin/env node
// Shim: the program lives in dist/ (built by `npm install`'s prepare step).
//
// On Linux, one libuv worker thread unless the user chose otherwise (measured there, where npm
// install builds llama.cpp with OpenMP; elsewhere libuv's default stays). node-llama-cpp runs every
// decode and sampling step on that pool; with several workers each step lands on a different
// sleeping thread, and an OpenMP build keeps a team of compute threads per calling thread, so 2
// cores end up shared by several spinning teams. With one worker, single-stream decode on 2 cores
// was 113–120 tok/s instead of 83–88 (in-process, OpenMP build). libuv reads this when its pool
// first starts, which for an ES module entry is before its first line runs: so this shim is CommonJS.
if (process.platform === "linux")
    process.env.UV_THREADPOOL_SIZE ??= "1";

import("../dist/cli/main.js").then(
    ({main}) => main(process.argv),
    (error) => {
        if (error?.code === "ERR_MODULE_NOT_FOUND")
            console.error("chatserve is not built yet: run `npm install` (or `npm run build`) in its folder.");
        else
            console.error(error);
        process.exit(1);
    }
);
