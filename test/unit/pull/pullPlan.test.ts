import {describe, expect, it} from "vitest";
import type {HubFile} from "../../../src/pull/hubListing.js";
import {planHubPull} from "../../../src/pull/pullPlan.js";

const MiB = 1024 * 1024;
const file = (path: string, size = 100 * MiB): HubFile => ({path, size, sha256: "ab".repeat(32)});
const label = "hf:user/Model-GGUF";

/** A repository as bartowski and unsloth lay them out: one file per quantization, a split big one, projectors. */
const repo = [
    file(".gitattributes", 2000), file("README.md", 5000),
    file("Model-IQ4_XS.gguf"), file("Model-Q4_K_M.gguf"), file("Model-Q4_K_S.gguf"), file("Model-Q8_0.gguf"),
    file("BF16/Model-BF16-00001-of-00002.gguf"), file("BF16/Model-BF16-00002-of-00002.gguf"),
    file("mmproj-Model-F32.gguf"), file("mmproj-Model-F16.gguf")
];

describe("which files a hub pull downloads", () => {
    it("takes the file of the quantization asked for (in any case), with the repository's F16 projector", () => {
        expect(planHubPull(repo, {quant: "q4_k_m"}, label)).toEqual({
            model: [file("Model-Q4_K_M.gguf")], projector: file("mmproj-Model-F16.gguf"), quant: "Q4_K_M"
        });
    });

    it("reads a quantization as a word of the name: Q4_K is neither Q4_K_M nor Q4_K_S, XS is not IQ4_XS", () => {
        expect(() => planHubPull(repo, {quant: "Q4_K"}, label)).toThrow(/has no Q4_K file/);
        expect(() => planHubPull(repo, {quant: "Q4_XS"}, label)).toThrow(/has no Q4_XS file/);
        expect(planHubPull(repo, {quant: "IQ4_XS"}, label).model).toEqual([file("Model-IQ4_XS.gguf")]);
    });

    it("takes every part of a split model, in order", () => {
        expect(planHubPull(repo, {quant: "BF16"}, label).model).toEqual([file("BF16/Model-BF16-00001-of-00002.gguf"), file("BF16/Model-BF16-00002-of-00002.gguf")]);
        expect(planHubPull(repo, {file: "BF16/Model-BF16-00002-of-00002.gguf"}, label).model).toHaveLength(2);
    });

    it("lists what the repository has when the quantization is not there, with a command to copy", () => {
        let message = "";
        try {
            planHubPull(repo, {quant: "Q5_K_M"}, label);
        } catch (error) {
            message = (error as Error).message;
        }
        expect(message.split("\n")).toEqual([
            "hf:user/Model-GGUF has no Q5_K_M file.",
            "It has:",
            "  BF16       BF16/Model-BF16-00001-of-00002.gguf (2 parts)  200 MiB",
            "  IQ4_XS     Model-IQ4_XS.gguf  100 MiB",
            "  Q4_K_M     Model-Q4_K_M.gguf  100 MiB",
            "  Q4_K_S     Model-Q4_K_S.gguf  100 MiB",
            "  Q8_0       Model-Q8_0.gguf  100 MiB",
            "Pull one with: chatserve pull hf:user/Model-GGUF:Q4_K_M"
        ]);
    });

    it("without a quantization, takes the only model, else Q4_K_M, else asks", () => {
        expect(planHubPull([file("only-Q8_0.gguf")], {}, label).model).toEqual([file("only-Q8_0.gguf")]);
        expect(planHubPull(repo, {}, label).quant).toBe("Q4_K_M");
        expect(() => planHubPull([file("a-Q8_0.gguf"), file("a-F16.gguf")], {}, label)).toThrow(/holds 2 models: name one by its quantization or file\.\nIt has:/);
    });

    it("takes a file by its path, and lists the models when there is no such file", () => {
        expect(planHubPull(repo, {file: "Model-Q8_0.gguf"}, label)).toMatchObject({model: [file("Model-Q8_0.gguf")], quant: "Q8_0"});
        expect(planHubPull(repo, {file: "model-q8_0.gguf"}, label).model).toEqual([file("Model-Q8_0.gguf")]);
        expect(() => planHubPull(repo, {file: "Model-Q2_K.gguf"}, label)).toThrow(/has no file Model-Q2_K\.gguf\.\nIt has:/);
        expect(() => planHubPull(repo, {file: "mmproj-Model-F16.gguf"}, label)).toThrow(/is a vision projector, not a model/);
    });

    it("asks for a file when several models share the quantization", () => {
        const twoSizes = [file("Model-7B-Q4_K_M.gguf"), file("Model-13B-Q4_K_M.gguf")];
        expect(() => planHubPull(twoSizes, {quant: "Q4_K_M"}, label)).toThrow(/has 2 Q4_K_M files: name one by its file\.[\s\S]*chatserve pull hf:user\/Model-GGUF\/Model-13B-Q4_K_M\.gguf/);
    });

    it("prefers the projector beside the model, and has none when the repository has none", () => {
        const nested = [file("Q4_K_M/m-Q4_K_M.gguf"), file("Q4_K_M/mmproj-BF16.gguf"), file("mmproj-F16.gguf")];
        expect(planHubPull(nested, {quant: "Q4_K_M"}, label).projector).toEqual(file("Q4_K_M/mmproj-BF16.gguf"));
        expect(planHubPull([file("m-Q4_K_M.gguf")], {}, label)).not.toHaveProperty("projector");
    });

    it("refuses a repository without a GGUF model, or a split model missing parts, saying why", () => {
        expect(() => planHubPull([file("config.json"), file("model.safetensors")], {}, label))
            .toThrow(/holds no GGUF model; .* ends in -GGUF\nIts files: config\.json, model\.safetensors/);
        expect(() => planHubPull([file("mmproj-F16.gguf")], {}, label)).toThrow(/holds no GGUF model \(only a vision projector\)/);
        expect(() => planHubPull([file("big-00001-of-00003.gguf"), file("big-00002-of-00003.gguf")], {}, label))
            .toThrow("hf:user/Model-GGUF holds only 2 of the 3 parts of big: it cannot be served");
    });
});
