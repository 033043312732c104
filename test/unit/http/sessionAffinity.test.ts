import {createHash} from "node:crypto";
import {describe, expect, it} from "vitest";
import {BadRequestError} from "../../../src/errors.js";
import {sessionKeyOf} from "../../../src/http/sessionAffinity.js";

const digest = (value: string) => createHash("sha256").update(value).digest("hex").slice(0, 32);

describe("sessionKeyOf", () => {
    it("takes an explicit x-chatserve-session as it is, before anything else", () => {
        expect(sessionKeyOf({"x-chatserve-session": "conv-42", "session_id": "codex"}, {prompt_cache_key: "pck"})).toBe("conv-42");
    });

    it("takes Codex's session_id and Claude Code's x-claude-code-session-id as digests, in that order", () => {
        expect(sessionKeyOf({"session_id": "0199-codex"}, undefined)).toBe(digest("0199-codex"));
        expect(sessionKeyOf({"x-claude-code-session-id": "cc-uuid"}, {metadata: {user_id: "u"}})).toBe(digest("cc-uuid"));
        expect(sessionKeyOf({"session_id": "a", "x-claude-code-session-id": "b"}, undefined)).toBe(digest("a"));
    });

    it("reads the body's keys when no header names the conversation: prompt_cache_key, then metadata.user_id, then user", () => {
        expect(sessionKeyOf({}, {prompt_cache_key: "pck", user: "alice", metadata: {user_id: "m"}})).toBe(digest("pck"));
        expect(sessionKeyOf({}, {user: "alice", metadata: {user_id: "user_abc_session_1"}})).toBe(digest("user_abc_session_1"));
        expect(sessionKeyOf({}, {user: "alice"})).toBe(digest("alice"));
    });

    it("gives Codex's conversation the same key from its header as from its prompt_cache_key", () => {
        expect(sessionKeyOf({"session_id": "conv"}, undefined)).toBe(sessionKeyOf({}, {prompt_cache_key: "conv"}));
    });

    it("never echoes a body's value itself (a user id can be an e-mail address)", () => {
        const key = sessionKeyOf({}, {user: "alice@example.com"});
        expect(key).toMatch(/^[0-9a-f]{32}$/);
        expect(key).not.toContain("alice");
    });

    it("has no key when nothing names the conversation: blank values, other types and bodies that are no object count as nothing", () => {
        expect(sessionKeyOf({}, undefined)).toBeUndefined();
        expect(sessionKeyOf({"session_id": "  "}, {prompt_cache_key: "", user: 7, metadata: "x"})).toBeUndefined();
        expect(sessionKeyOf({}, [{prompt_cache_key: "in an array"}])).toBeUndefined();
        expect(sessionKeyOf({}, "text")).toBeUndefined();
    });

    it("refuses an explicit key that is too long or holds spaces (a header sent twice arrives joined by ', ') with a 400", () => {
        expect(() => sessionKeyOf({"x-chatserve-session": "a".repeat(257)}, undefined)).toThrow(BadRequestError);
        expect(() => sessionKeyOf({"x-chatserve-session": "one, two"}, undefined)).toThrow(/visible ASCII/);
        expect(sessionKeyOf({"x-chatserve-session": "a".repeat(256)}, undefined)).toBe("a".repeat(256));
    });
});
