import {defaultSampling, newId, type Conversation, type Message} from "./conversation.js";

/** The export file's shape: versioned, so a later page can still read today's files. */
export type ExportFile = {format: "chatserve-conversations", version: 1, conversations: Conversation[]};

export function exportConversations(conversations: Conversation[]): string {
    return JSON.stringify({format: "chatserve-conversations", version: 1, conversations} satisfies ExportFile, null, 2);
}

/**
 * Conversations from an export file, checked field by field (a file is untrusted input); each gets
 * a fresh id so importing twice never overwrites. Throws with what is wrong.
 */
export function importConversations(text: string): Conversation[] {
    let parsed: unknown;
    try {
        parsed = JSON.parse(text);
    } catch {
        throw new Error("The file is not JSON.");
    }
    const file = parsed as Partial<ExportFile>;
    if (file == null || typeof file !== "object" || file.format !== "chatserve-conversations" || !Array.isArray(file.conversations))
        throw new Error("The file is not a chatserve conversations export.");
    return file.conversations.map((raw, index) => readConversation(raw, index));
}

function readConversation(raw: unknown, index: number): Conversation {
    const value = raw as Partial<Conversation>;
    if (value == null || typeof value !== "object" || !Array.isArray(value.messages))
        throw new Error(`Conversation ${index + 1} has no messages list.`);
    const now = Date.now();
    return {
        id: newId(),
        title: typeof value.title === "string" ? value.title : "Imported chat",
        createdAt: typeof value.createdAt === "number" ? value.createdAt : now,
        updatedAt: typeof value.updatedAt === "number" ? value.updatedAt : now,
        model: typeof value.model === "string" ? value.model : "",
        system: typeof value.system === "string" ? value.system : "",
        sampling: {...defaultSampling, ...(typeof value.sampling === "object" ? value.sampling : {})},
        messages: value.messages.map((message, at) => readMessage(message, index, at))
    };
}

function readMessage(raw: unknown, conversation: number, index: number): Message {
    const value = raw as Partial<Message>;
    if (value == null || (value.role !== "user" && value.role !== "assistant") || typeof value.content !== "string")
        throw new Error(`Conversation ${conversation + 1}, message ${index + 1}: needs a role (user or assistant) and text content.`);
    return {
        ...value,
        id: typeof value.id === "string" ? value.id : newId(),
        role: value.role,
        content: value.content,
        images: Array.isArray(value.images) ? value.images.filter((url) => typeof url === "string" && url.startsWith("data:image/")) : []
    };
}
