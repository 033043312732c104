import {describe, expect, it} from "vitest";
import {resolveHubEndpoint} from "../../../src/pull/hubListing.js";
import {describePullSource, parsePullSource} from "../../../src/pull/pullSource.js";

const hub = "https://huggingface.co/";
const repo = (user: string, name: string, revision = "main") => ({user, name, revision});

describe("chatserve pull's argument", () => {
    it("reads a repository with or without a quantization, and a revision after #", () => {
        expect(parsePullSource("hf:Qwen/Qwen2.5-0.5B-Instruct-GGUF:Q4_K_M", hub)).toEqual({kind: "hub", repo: repo("Qwen", "Qwen2.5-0.5B-Instruct-GGUF"), quant: "Q4_K_M"});
        expect(parsePullSource("hf:Qwen/Qwen2.5-0.5B-Instruct-GGUF", hub)).toEqual({kind: "hub", repo: repo("Qwen", "Qwen2.5-0.5B-Instruct-GGUF")});
        expect(parsePullSource("hf://user/repo:q8_0#dev", hub)).toEqual({kind: "hub", repo: repo("user", "repo", "dev"), quant: "q8_0"});
        expect(parsePullSource("huggingface:user/repo", hub)).toMatchObject({kind: "hub"});
    });

    it("reads a file of a repository, in a subfolder too", () => {
        expect(parsePullSource("hf:user/repo/model-Q8_0.gguf", hub)).toEqual({kind: "hubFile", repo: repo("user", "repo"), file: "model-Q8_0.gguf"});
        expect(parsePullSource("hf:user/repo/Q4_K_M/model-Q4_K_M-00001-of-00002.gguf#v2", hub))
            .toEqual({kind: "hubFile", repo: repo("user", "repo", "v2"), file: "Q4_K_M/model-Q4_K_M-00001-of-00002.gguf"});
    });

    it("reads the hub's own page and download URLs as hub pulls (so the projector and the hashes come with them)", () => {
        expect(parsePullSource("https://huggingface.co/user/repo", hub)).toEqual({kind: "hub", repo: repo("user", "repo")});
        expect(parsePullSource("https://huggingface.co/user/repo/resolve/main/m.gguf?download=true", hub)).toEqual({kind: "hubFile", repo: repo("user", "repo"), file: "m.gguf"});
        expect(parsePullSource("https://hf.co/user/repo/blob/dev/sub/m.gguf", hub)).toEqual({kind: "hubFile", repo: repo("user", "repo", "dev"), file: "sub/m.gguf"});
        expect(parsePullSource("http://127.0.0.1:9000/mirror/user/repo/resolve/main/m.gguf", "http://127.0.0.1:9000/mirror/"))
            .toEqual({kind: "hubFile", repo: repo("user", "repo"), file: "m.gguf"});
    });

    it("reads any other URL of a .gguf file as a plain download named after its last path segment", () => {
        const source = parsePullSource("https://example.com/models/My%20Model.Q4_K_M.gguf?token=1", hub);
        expect(source).toMatchObject({kind: "url", fileName: "My Model.Q4_K_M.gguf"});
        expect(describePullSource(source)).toBe("https://example.com/models/My%20Model.Q4_K_M.gguf?token=1");
    });

    it.each([
        ["qwen2.5", /neither hf:user\/repo\[:quant\]/],
        ["hf:user", /not hf:user\/repo/],
        ["hf:user/repo:", /not hf:user\/repo/],
        ["hf:user/repo:a:b", /not hf:user\/repo/],
        ["hf:user/repo/../../etc/passwd.gguf", /not hf:user\/repo/],
        ["hf:user/repo/config.json", /'config.json' is not a .gguf file/],
        ["https://example.com/model.bin", /must name a .gguf file/],
        ["ftp://example.com/model.gguf", /not an http\(s\) URL/]
    ])("refuses %s, saying what to write", (text, message) => {
        expect(() => parsePullSource(text, hub)).toThrow(message);
    });

    it("writes a source back as it would be typed", () => {
        expect(describePullSource(parsePullSource("hf:user/repo:Q4_K_M#dev", hub))).toBe("hf:user/repo:Q4_K_M#dev");
        expect(describePullSource(parsePullSource("hf:user/repo/m.gguf", hub))).toBe("hf:user/repo/m.gguf");
    });
});

describe("the hub endpoint", () => {
    it("is --hf-endpoint, else MODEL_ENDPOINT or HF_ENDPOINT, else huggingface.co, always with a trailing slash", () => {
        expect(resolveHubEndpoint(undefined, {})).toBe("https://huggingface.co/");
        expect(resolveHubEndpoint(undefined, {HF_ENDPOINT: "https://hf-mirror.com"})).toBe("https://hf-mirror.com/");
        expect(resolveHubEndpoint(undefined, {HF_ENDPOINT: "https://a.example", MODEL_ENDPOINT: "https://b.example/"})).toBe("https://b.example/");
        expect(resolveHubEndpoint("http://127.0.0.1:9000", {HF_ENDPOINT: "https://a.example"})).toBe("http://127.0.0.1:9000/");
        expect(() => resolveHubEndpoint("not a url", {})).toThrow(/not a URL/);
    });
});
