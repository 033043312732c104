#!/usr/bin/env node
// Shim: the program lives in dist/ (built by `npm install`'s prepare step).
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
