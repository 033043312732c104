import type {ReplyStats} from "./stats.js";

/** One turn as the page keeps it; images are data: URLs so a conversation exports as plain JSON. */
export type Message = {
    id: string,
    role: "user" | "assistant",
    content: string,
    images: string[],
    reasoning?: string,
    stats?: ReplyStats,
    error?: string,
    /** The reply was stopped by the user before it ended. */
    stopped?: boolean
};

/** The sampling a conversation sends; null leaves the server's (the model's) default. */
export type Sampling = {temperature: number | null, top_p: number | null, max_tokens: number | null};

export type Conversation = {
    id: string,
    title: string,
    createdAt: number,
    updatedAt: number,
    model: string,
    system: string,
    sampling: Sampling,
    messages: Message[]
};

export const defaultSampling: Sampling = {temperature: null, top_p: null, max_tokens: null};

export function newId(): string {
    return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
}

export function newConversation(model: string, now = Date.now()): Conversation {
    return {id: newId(), title: "New chat", createdAt: now, updatedAt: now, model, system: "", sampling: {...defaultSampling}, messages: []};
}

/** A title from the first words of the first message, as a person would name it. */
export function titleFrom(text: string): string {
    const line = text.trim().split(/\s+/).join(" ");
    if (line === "")
        return "Image";
    return line.length > 48 ? `${line.slice(0, 47)}…` : line;
}

type ContentPart = {type: "text", text: string} | {type: "image_url", image_url: {url: string}};
export type RequestMessage = {role: "system" | "user" | "assistant", content: string | ContentPart[]};

/** The chat-completions messages for a conversation: its system prompt, then each turn; images as image_url parts. */
export function toRequestMessages(conversation: Conversation): RequestMessage[] {
    const messages: RequestMessage[] = [];
    if (conversation.system.trim() !== "")
        messages.push({role: "system", content: conversation.system});
    for (const message of conversation.messages) {
        if (message.role === "assistant" && message.error != null && message.content === "")
            continue;
        if (message.images.length === 0)
            messages.push({role: message.role, content: message.content});
        else
            messages.push({role: message.role, content: [
                ...message.images.map((url): ContentPart => ({type: "image_url", image_url: {url}})),
                ...(message.content !== "" ? [{type: "text", text: message.content} as ContentPart] : [])
            ]});
    }
    return messages;
}

/** The sampling fields to send: only those set, so the model's defaults apply to the rest. */
export function samplingFields(sampling: Sampling): Record<string, number> {
    const fields: Record<string, number> = {};
    for (const [name, value] of Object.entries(sampling))
        if (value != null && Number.isFinite(value))
            fields[name] = value;
    return fields;
}

/** Regenerate: the conversation without its last reply (and anything after the last user turn). */
export function withoutLastReply(conversation: Conversation): Conversation {
    const lastUser = conversation.messages.map((message) => message.role).lastIndexOf("user");
    return {...conversation, messages: conversation.messages.slice(0, lastUser + 1)};
}

/** Edit a user turn: it takes the new text and everything after it goes (to be answered again). */
export function editedAt(conversation: Conversation, index: number, content: string): Conversation {
    const message = conversation.messages[index];
    if (message == null || message.role !== "user")
        throw new Error(`Message ${index} is not a user message.`);
    return {...conversation, messages: [...conversation.messages.slice(0, index), {...message, id: newId(), content}]};
}

/** Branch: a new conversation holding the turns up to and including `index`, the original untouched. */
export function branchAt(conversation: Conversation, index: number, now = Date.now()): Conversation {
    return {
        ...conversation,
        id: newId(),
        title: `${conversation.title} (branch)`,
        createdAt: now,
        updatedAt: now,
        messages: conversation.messages.slice(0, index + 1).map((message) => ({...message}))
    };
}

/** Conversations whose title or any message contains every word of the query (case-insensitive), newest first. */
export function searchConversations(conversations: Conversation[], query: string): Conversation[] {
    const words = query.toLowerCase().split(/\s+/).filter((word) => word !== "");
    return conversations
        .filter((conversation) => {
            const text = [conversation.title, ...conversation.messages.map((message) => message.content)].join("\n").toLowerCase();
            return words.every((word) => text.includes(word));
        })
        .sort((a, b) => b.updatedAt - a.updatedAt);
}
