import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {afterEach, describe, expect, it} from "vitest";
// @ts-expect-error an install script in plain JavaScript, without type declarations
import {addVisionBuild, rememberVisionFailure, removeVisionBuild, visionBuildState, visionFailedBefore} from "../../../scripts/visionBuild.mjs";

/** The lines of node-llama-cpp 3.22's llama/CMakeLists.txt that the script hooks onto. */
const cmakeLists = [
    "set(LLAMA_BUILD_COMMON ON)",
    "add_subdirectory(\"llama.cpp\")",
    "include_directories(\"llama.cpp\")",
    "target_link_libraries(${PROJECT_NAME} \"llama\")",
    "target_link_libraries(${PROJECT_NAME} \"llama-common\")",
    ""
].join("\n");

const folders: string[] = [];
afterEach(() => folders.splice(0).forEach((folder) => fs.rmSync(folder, {recursive: true, force: true})));

function cmakeFile(text = cmakeLists): string {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), "chatserve-cmake-"));
    folders.push(folder);
    const file = path.join(folder, "CMakeLists.txt");
    fs.writeFileSync(file, text);
    return file;
}

describe("building llama.cpp's multimodal library into the addon", () => {
    it("turns mtmd on (video off) before llama.cpp's subproject and links it after llama-common, once", () => {
        const file = cmakeFile();
        expect(visionBuildState(file)).toBe("absent");
        expect(addVisionBuild(file)).toBe("added");
        expect(addVisionBuild(file)).toBe("present");
        const cmake = fs.readFileSync(file, "utf8");
        expect(cmake.indexOf("set(LLAMA_BUILD_MTMD ON)")).toBeLessThan(cmake.indexOf("add_subdirectory(\"llama.cpp\")"));
        expect(cmake).toContain("set(MTMD_VIDEO OFF CACHE BOOL \"\" FORCE)");
        expect(cmake.indexOf("target_link_libraries(${PROJECT_NAME} mtmd)")).toBeGreaterThan(cmake.indexOf("\"llama-common\")"));
        expect(cmake.match(/LLAMA_BUILD_MTMD/g)).toHaveLength(1);
    });

    it("restores the file exactly, to build without it", () => {
        const file = cmakeFile();
        addVisionBuild(file);
        removeVisionBuild(file);
        expect(fs.readFileSync(file, "utf8")).toBe(cmakeLists);
        expect(visionBuildState(file)).toBe("absent");
    });

    it("changes nothing when the lines it hooks onto are gone", () => {
        const changed = "add_subdirectory(llama.cpp)\n";
        const file = cmakeFile(changed);
        expect(addVisionBuild(file)).toBe("unsupported");
        expect(fs.readFileSync(file, "utf8")).toBe(changed);
    });

    it("remembers a failed build beside the file, so later installs do not try again", () => {
        const file = cmakeFile();
        expect(visionFailedBefore(file)).toBe(false);
        rememberVisionFailure("mtmd did not compile", file);
        expect(visionFailedBefore(file)).toBe(true);
    });
});
