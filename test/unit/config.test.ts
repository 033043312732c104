import {describe, expect, it} from "vitest";
import {apiKeysFromEnv, resolveConfig} from "../../src/config.js";

describe("resolveConfig", () => {
    it("fills in every default", () => {
        expect(resolveConfig()).toEqual({
            modelsDir: "./models",
            host: "127.0.0.1",
            port: 8080,
            apiKeys: [],
            gpu: "auto",
            ctxSize: 4096,
            flashAttention: "auto",
            parallel: 4,
            maxQueue: 64,
            corsOrigins: [],
            logLevel: "info",
            logPrompts: false,
            bodyLimit: "8mb",
            rescanIntervalMs: 2000
        });
        expect(resolveConfig().threads).toBeUndefined();
    });

    it("keeps given values", () => {
        const config = resolveConfig({port: 0, apiKeys: ["k"], gpu: "cpu", threads: 2, corsOrigins: ["*"], bodyLimit: "1kb"});
        expect(config).toMatchObject({port: 0, apiKeys: ["k"], gpu: "cpu", threads: 2, corsOrigins: ["*"], bodyLimit: "1kb", ctxSize: 4096});
    });

    it.each([
        {port: 70000}, {port: -1}, {ctxSize: 32}, {parallel: 0}, {parallel: 65}, {threads: 0},
        {maxQueue: -1}, {apiKeys: [""]}, {gpu: "tpu"}, {logLevel: "loud"}, {rescanIntervalMs: 10}
    ])("refuses %j", (input) => {
        expect(() => resolveConfig(input as never)).toThrow();
    });
});

describe("apiKeysFromEnv", () => {
    it("is empty without the variables", () => {
        expect(apiKeysFromEnv({})).toEqual([]);
        expect(apiKeysFromEnv({CHATSERVE_API_KEY: "", CHATSERVE_API_KEYS: " , "})).toEqual([]);
    });

    it("reads CHATSERVE_API_KEY, trimmed", () => {
        expect(apiKeysFromEnv({CHATSERVE_API_KEY: "  secret  "})).toEqual(["secret"]);
    });

    it("reads comma-separated CHATSERVE_API_KEYS, skipping blanks", () => {
        expect(apiKeysFromEnv({CHATSERVE_API_KEYS: "a, b,,c ,"})).toEqual(["a", "b", "c"]);
    });

    it("combines both", () => {
        expect(apiKeysFromEnv({CHATSERVE_API_KEY: "one", CHATSERVE_API_KEYS: "two,three"})).toEqual(["one", "two", "three"]);
    });
});
