import {describe, expect, it} from "vitest";
import {NoBinaryFoundError} from "node-llama-cpp";
import {describeStartupFailure} from "../../../src/cli/startupFailure.js";
import {resolveConfig} from "../../../src/config.js";

const failure = (fields: Record<string, unknown>) => Object.assign(new Error(String(fields.message ?? "failed")), fields);

describe("describeStartupFailure", () => {
    it("says what to do about the common causes, in one line", () => {
        expect(describeStartupFailure(failure({code: "EADDRINUSE"}), {port: 8080})).toBe(
            "port 8080 is already in use: stop what is listening there, or pick another with --port");
        expect(describeStartupFailure(failure({code: "ENOTFOUND"}), {host: "nowhere"})).toMatch(/^cannot listen on host 'nowhere'.*--host$/);
        expect(describeStartupFailure(failure({code: "EACCES"}), {port: 80})).toMatch(/port 80.*privileges/);
        expect(describeStartupFailure(failure({code: "ENOTDIR", message: "ENOTDIR: not a directory, scandir '/etc/passwd'"})))
            .toMatch(/^the models folder cannot be read \(ENOTDIR.*\): point --models at a folder$/);
        expect(describeStartupFailure(new NoBinaryFoundError(), {gpu: "cuda"})).toBe(
            "no cuda build of llama.cpp runs on this machine: start with --gpu auto (or cpu)");
    });

    it("names the setting a config check refused, and keeps only the first line of anything else", () => {
        let refused: unknown;
        try {
            resolveConfig({port: -1});
        } catch (error) {
            refused = error;
        }
        expect(describeStartupFailure(refused)).toMatch(/^invalid setting 'port': /);
        expect(describeStartupFailure(new Error("first line\nsecond line"))).toBe("first line");
    });
});
