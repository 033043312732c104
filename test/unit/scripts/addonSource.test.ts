import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {afterEach, describe, expect, it} from "vitest";
// @ts-expect-error an install script in plain JavaScript, without type declarations
import {addChatserveSource, chatserveSourceState} from "../../../scripts/addonSource.mjs";

/** The lines of node-llama-cpp 3.22's addon.cpp that the script hooks onto. */
const addonCpp = [
    "#include \"addonGlobals.h\"",
    "Napi::Object registerCallback(Napi::Env env, Napi::Object exports) {",
    "    AddonSampler::init(exports);",
    "",
    "    llama_log_set(addonLlamaCppLogCallback, nullptr);",
    "    return exports;",
    "}",
    ""
].join("\n");

const folders: string[] = [];
afterEach(() => folders.splice(0).forEach((folder) => fs.rmSync(folder, {recursive: true, force: true})));

function addonFolder(source = addonCpp): string {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), "chatserve-addon-"));
    folders.push(folder);
    fs.writeFileSync(path.join(folder, "addon.cpp"), source);
    return folder;
}

describe("adding chatserve's native calls to node-llama-cpp's addon source", () => {
    it("copies native/decodeBatch.cpp and native/vision.cpp beside the addon's files and registers it once, however often it runs", () => {
        const folder = addonFolder();
        expect(chatserveSourceState(folder)).toBe("stale");
        expect(addChatserveSource(folder)).toBe("added");
        expect(addChatserveSource(folder)).toBe("present");

        const addon = fs.readFileSync(path.join(folder, "addon.cpp"), "utf8");
        expect(addon.match(/chatserveRegister\(exports\);/g)).toHaveLength(1);
        expect(addon.indexOf("void chatserveRegister(Napi::Object exports);")).toBeLessThan(addon.indexOf("registerCallback"));
        expect(addon.indexOf("chatserveRegister(exports);")).toBeLessThan(addon.indexOf("llama_log_set"));
        expect(fs.readFileSync(path.join(folder, "chatserveDecodeBatch.cpp"), "utf8"))
            .toBe(fs.readFileSync(new URL("../../../native/decodeBatch.cpp", import.meta.url), "utf8"));
        expect(fs.readFileSync(path.join(folder, "chatserveVision.cpp"), "utf8"))
            .toBe(fs.readFileSync(new URL("../../../native/vision.cpp", import.meta.url), "utf8"));
        expect(chatserveSourceState(folder)).toBe("current");
    });

    it("calls an older copy stale, so the install builds the addon again", () => {
        const folder = addonFolder();
        addChatserveSource(folder);
        fs.writeFileSync(path.join(folder, "chatserveDecodeBatch.cpp"), "// an earlier version\n");
        expect(chatserveSourceState(folder)).toBe("stale");
        expect(addChatserveSource(folder)).toBe("present");
        expect(chatserveSourceState(folder)).toBe("current");
    });

    it("changes nothing when addon.cpp no longer has the lines it hooks onto", () => {
        const changed = "Napi::Object init(Napi::Env env, Napi::Object exports) {\n    return exports;\n}\n";
        const folder = addonFolder(changed);
        expect(chatserveSourceState(folder)).toBe("unsupported");
        expect(addChatserveSource(folder)).toMatch(/addon\.cpp has changed: building it without chatserve's decode call/);
        expect(fs.readFileSync(path.join(folder, "addon.cpp"), "utf8")).toBe(changed);
        expect(fs.readdirSync(folder)).toEqual(["addon.cpp"]);
    });
});
