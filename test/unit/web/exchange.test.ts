import {describe, expect, it} from "vitest";
import {newConversation} from "../../../web/src/conversation.js";
import {exportConversations, importConversations} from "../../../web/src/exchange.js";

describe("export and import", () => {
    it("round-trips conversations, each imported under a new id", () => {
        const original = {...newConversation("tiny"), title: "Kept", system: "Be brief.", messages: [
            {id: "1", role: "user" as const, content: "hi", images: ["data:image/png;base64,AA"]},
            {id: "2", role: "assistant" as const, content: "hello", images: [], reasoning: "greet"}
        ]};
        const [imported] = importConversations(exportConversations([original]));
        expect(imported!.id).not.toBe(original.id);
        expect({...imported, id: original.id}).toEqual(original);
    });

    it("says what is wrong with a file that is not an export", () => {
        expect(() => importConversations("not json")).toThrow("The file is not JSON.");
        expect(() => importConversations("{}")).toThrow(/not a chatserve conversations export/);
        expect(() => importConversations(JSON.stringify({format: "chatserve-conversations", version: 1, conversations: [{messages: [{role: "tool", content: "x"}]}]})))
            .toThrow(/Conversation 1, message 1: needs a role/);
    });

    it("drops image URLs that are not data: images (a file could point the page elsewhere)", () => {
        const file = JSON.stringify({format: "chatserve-conversations", version: 1, conversations: [{messages: [{role: "user", content: "x", images: ["https://evil.example/a.png", "data:image/png;base64,AA"]}]}]});
        expect(importConversations(file)[0]!.messages[0]!.images).toEqual(["data:image/png;base64,AA"]);
    });
});
