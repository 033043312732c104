import {describe, expect, it} from "vitest";
import {
    branchAt, editedAt, newConversation, samplingFields, searchConversations, titleFrom, toRequestMessages, withoutLastReply, type Conversation, type Message
} from "../../../web/src/conversation.js";

const message = (role: Message["role"], content: string, extra: Partial<Message> = {}): Message => ({id: `${role}-${content}`, role, content, images: [], ...extra});

function conversation(messages: Message[], extra: Partial<Conversation> = {}): Conversation {
    return {...newConversation("tiny", 1000), messages, ...extra};
}

describe("the page's conversations", () => {
    it("sends the system prompt, the turns, and images as image_url parts before the text; a failed empty reply is left out", () => {
        const image = "data:image/png;base64,AAAA";
        const sent = toRequestMessages(conversation([
            message("user", "hi"), message("assistant", "", {error: "refused"}),
            message("user", "look", {images: [image]}), message("assistant", "a cat")
        ], {system: "Be brief."}));
        expect(sent).toEqual([
            {role: "system", content: "Be brief."},
            {role: "user", content: "hi"},
            {role: "user", content: [{type: "image_url", image_url: {url: image}}, {type: "text", text: "look"}]},
            {role: "assistant", content: "a cat"}
        ]);
    });

    it("sends only the sampling fields that are set", () => {
        expect(samplingFields({temperature: 0.2, top_p: null, max_tokens: 64})).toEqual({temperature: 0.2, max_tokens: 64});
    });

    it("regenerates from the last user turn, edits a user turn dropping what followed, branches into a copy", () => {
        const original = conversation([message("user", "a"), message("assistant", "b"), message("user", "c"), message("assistant", "d")]);
        expect(withoutLastReply(original).messages.map((item) => item.content)).toEqual(["a", "b", "c"]);
        expect(editedAt(original, 0, "A").messages.map((item) => item.content)).toEqual(["A"]);
        expect(() => editedAt(original, 1, "x")).toThrow(/not a user message/);
        const branch = branchAt(original, 1, 2000);
        expect(branch.id).not.toBe(original.id);
        expect(branch.messages.map((item) => item.content)).toEqual(["a", "b"]);
        expect(original.messages).toHaveLength(4);
    });

    it("titles a chat from its first words, and finds chats by every word of a query", () => {
        expect(titleFrom("  Hello\n  there  ")).toBe("Hello there");
        expect(titleFrom("x".repeat(60))).toHaveLength(48);
        expect(titleFrom("")).toBe("Image");
        const cats = conversation([message("user", "Tell me about cats")], {title: "Cats", updatedAt: 1});
        const dogs = conversation([message("user", "and dogs too")], {title: "Dogs", updatedAt: 2});
        expect(searchConversations([cats, dogs], "").map((item) => item.title)).toEqual(["Dogs", "Cats"]);
        expect(searchConversations([cats, dogs], "CATS tell").map((item) => item.title)).toEqual(["Cats"]);
        expect(searchConversations([cats, dogs], "cats dogs")).toEqual([]);
    });
});
