import {describe, expect, it} from "vitest";
import {apiKeysFromEnv, modelAliasesFromEnv, parseModelAlias, resolveConfig} from "../../src/config.js";

describe("resolveConfig", () => {
    it("counts the admin keys among the keys", () => {
        expect(resolveConfig({apiKeys: ["a"], adminApiKeys: ["b", "a"]})).toMatchObject({apiKeys: ["a", "b"], adminApiKeys: ["b", "a"]});
        expect(resolveConfig({adminApiKeys: ["b"]}).apiKeys).toEqual(["b"]);
    });

    it("fills in every default", () => {
        expect(resolveConfig()).toEqual({
            modelsDir: "./models",
            host: "127.0.0.1",
            allowedHosts: [],
            port: 8080,
            apiKeys: [],
            adminApiKeys: [],
            sharePrefixCache: false,
            gpu: "auto",
            flashAttention: "auto",
            lookupDecoding: true,
            cacheTypeK: "f16",
            cacheTypeV: "f16",
            maxQueue: 64,
            shutdownGraceMs: 5000,
            keepAlive: null,
            memoryWaitMs: 120_000,
            promptCache: true,
            promptCacheSize: 10 * 2 ** 30,
            modelAliases: [],
            corsOrigins: [],
            logLevel: "info",
            metrics: true,
            metricsWithoutKey: false,
            logPrompts: false,
            bodyLimit: "8mb",
            allowPrivateImageUrls: false,
            allowPathsOutsideModels: false,
            maxImageBytes: 10_000_000,
            maxImagePixels: 8192 * 4096,
            maxImagesPerRequest: 16,
            rescanIntervalMs: 2000
        });
        expect(resolveConfig().threads).toBeUndefined();
        // Sized per model to its trained context and to memory (models/contextPlan.ts).
        expect(resolveConfig().ctxSize).toBeUndefined();
        expect(resolveConfig().parallel).toBeUndefined();
        // The memory free at start decides, less a tenth (server.ts), and no count limit.
        expect(resolveConfig().memoryLimit).toBeUndefined();
        expect(resolveConfig().maxLoadedModels).toBeUndefined();
    });

    it("keeps given values", () => {
        const config = resolveConfig({port: 0, apiKeys: ["k"], gpu: "cpu", threads: 2, corsOrigins: ["*"], bodyLimit: "1kb"});
        expect(config).toMatchObject({port: 0, apiKeys: ["k"], gpu: "cpu", threads: 2, corsOrigins: ["*"], bodyLimit: "1kb"});
        expect(resolveConfig({ctxSize: 8192, parallel: 2})).toMatchObject({ctxSize: 8192, parallel: 2});
    });

    it.each([
        {port: 70000}, {port: -1}, {ctxSize: 32}, {parallel: 0}, {parallel: 65}, {threads: 0},
        {maxQueue: -1}, {apiKeys: [""]}, {gpu: "tpu"}, {logLevel: "loud"}, {rescanIntervalMs: 10},
        {modelAliases: [{name: "", model: "m"}]}, {modelAliases: [{name: "a", model: "m*"}]},
        {memoryLimit: 0}, {maxLoadedModels: 0}, {keepAlive: {ms: -1}}, {keepAlive: "never"},
        {maxImageBytes: 0}, {maxImagePixels: 0}, {maxImagesPerRequest: -1}, {allowPrivateImageUrls: "yes"}
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

describe("parseModelAlias", () => {
    it("splits NAME=ID at the first '=', trimmed; NAME may hold '*'", () => {
        expect(parseModelAlias(" gpt-4o = qwen2.5-7b ")).toEqual({name: "gpt-4o", model: "qwen2.5-7b"});
        expect(parseModelAlias("claude-*=sub/model=v2")).toEqual({name: "claude-*", model: "sub/model=v2"});
        expect(parseModelAlias("*=qwen")).toEqual({name: "*", model: "qwen"});
    });

    it.each(["gpt-4o", "=qwen", "gpt-4o=", " = "])("refuses %j, saying what it expects", (text) => {
        expect(() => parseModelAlias(text)).toThrow(/is not NAME=ID \(e\.g\. /);
    });

    it("refuses a '*' in the model id", () => {
        expect(() => parseModelAlias("a=qwen*")).toThrow(/only NAME may hold '\*'/);
    });
});

describe("modelAliasesFromEnv", () => {
    it("is empty without the variable", () => {
        expect(modelAliasesFromEnv({})).toEqual([]);
        expect(modelAliasesFromEnv({CHATSERVE_MODEL_ALIASES: " , "})).toEqual([]);
    });

    it("reads comma-separated NAME=ID pairs", () => {
        expect(modelAliasesFromEnv({CHATSERVE_MODEL_ALIASES: "gpt-4o=qwen, claude-*=llama,"})).toEqual([
            {name: "gpt-4o", model: "qwen"}, {name: "claude-*", model: "llama"}
        ]);
    });

    it("names the variable when a pair is malformed", () => {
        expect(() => modelAliasesFromEnv({CHATSERVE_MODEL_ALIASES: "gpt-4o"})).toThrow(/^CHATSERVE_MODEL_ALIASES: 'gpt-4o' is not NAME=ID/);
    });
});
