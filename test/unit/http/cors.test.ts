import {describe, expect, it} from "vitest";
import {isAllowedOrigin} from "../../../src/http/cors.js";

describe("isAllowedOrigin (default: no --cors-origin)", () => {
    it.each([
        "http://localhost", "http://localhost:3000", "https://localhost:8443",
        "http://127.0.0.1", "http://127.0.0.1:5173",
        "http://[::1]", "http://[::1]:8080",
        "vscode-webview://1234abcd", "vscode-file://vscode-app", "app://obsidian.md", "tauri://localhost"
    ])("allows %s", (origin) => {
        expect(isAllowedOrigin(origin, [])).toBe(true);
    });

    it.each([
        "https://evil.example", "http://evil.example:3000", "http://localhost.evil.example", "http://127.0.0.1.evil.example",
        "http://192.168.1.10:3000", "ftp://localhost", "not a url", ""
    ])("refuses %s", (origin) => {
        expect(isAllowedOrigin(origin, [])).toBe(false);
    });
});

describe("isAllowedOrigin with configured origins", () => {
    it("'*' allows every origin", () => {
        expect(isAllowedOrigin("https://evil.example", ["*"])).toBe(true);
        expect(isAllowedOrigin("https://anything.test:9999", ["*"])).toBe(true);
    });

    it("an exact origin allows that origin only", () => {
        const allowed = ["https://chat.example.com"];
        expect(isAllowedOrigin("https://chat.example.com", allowed)).toBe(true);
        expect(isAllowedOrigin("https://chat.example.com:8443", allowed)).toBe(false);
        expect(isAllowedOrigin("http://chat.example.com", allowed)).toBe(false);
        expect(isAllowedOrigin("https://evil.example", allowed)).toBe(false);
    });

    it("configured origins add to the loopback default", () => {
        expect(isAllowedOrigin("http://localhost:3000", ["https://chat.example.com"])).toBe(true);
    });
});
