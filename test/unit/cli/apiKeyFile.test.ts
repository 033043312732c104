import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {afterAll, describe, expect, it} from "vitest";
import {readApiKeyFile} from "../../../src/cli/apiKeyFile.js";
import {describeStartupFailure} from "../../../src/cli/startupFailure.js";

const folder = fs.mkdtempSync(path.join(os.tmpdir(), "chatserve-keys-"));
afterAll(() => fs.rmSync(folder, {recursive: true, force: true}));

function keyFile(text: string): string {
    const file = path.join(folder, `keys-${Math.random().toString(36).slice(2)}`);
    fs.writeFileSync(file, text);
    return file;
}

describe("readApiKeyFile", () => {
    it("reads one key a line, trimmed, leaving out blank lines and # comments (CRLF too)", () => {
        expect(readApiKeyFile(keyFile("# team keys\r\nsk-alice\r\n\r\n  sk-bob  \n#sk-retired\n"))).toEqual(["sk-alice", "sk-bob"]);
    });

    it("keeps a # inside a key: only whole lines are comments", () => {
        expect(readApiKeyFile(keyFile("sk-a#b\n"))).toEqual(["sk-a#b"]);
    });

    it.each([
        ["a missing file", path.join(folder, "nowhere"), /cannot read the API key file .*nowhere \(--api-key-file\): there is no such file/],
        ["a folder", folder, /cannot read the API key file .* it is a folder, not a file/],
        ["an empty file", "", /holds no key: write one key on each line/],
        ["comments only", "# nothing yet\n\n", /holds no key/]
    ])("stops the start with one clear line for %s", (_what, fileOrText, message) => {
        const file = fileOrText.startsWith(folder) ? fileOrText : keyFile(fileOrText);
        let thrown: unknown;
        try {
            readApiKeyFile(file);
        } catch (error) {
            thrown = error;
        }
        // As the CLI prints it: the sentence, not a models-folder message for ENOENT.
        expect(describeStartupFailure(thrown)).toMatch(message);
    });

    it.skipIf(process.getuid?.() === 0)("says when the file may not be read", () => {
        const file = keyFile("sk-alice\n");
        fs.chmodSync(file, 0o000);
        expect(() => readApiKeyFile(file)).toThrow(/this user may not read it/);
    });
});
