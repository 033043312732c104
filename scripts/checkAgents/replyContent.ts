/** What a reply said: the tools it called (a Responses namespace's function as `namespace.name`) and its text, from any of the three APIs, streamed or not. */
export type ReplyContent = {calls: string[], text: string};

type ChatMessage = {content?: string | null, tool_calls?: Array<{function?: {name?: string}}>};
type ResponsesItem = {type?: string, name?: string, namespace?: string, content?: Array<{type?: string, text?: string}>};
type MessageBlock = {type?: string, name?: string, text?: string};
type Payload = {
    // Chat completions: a chunk's deltas or a completion's messages.
    choices?: Array<{delta?: ChatMessage, message?: ChatMessage}>,
    // Responses API: a stream event, or the response object itself.
    type?: string, delta?: string | {type?: string, text?: string}, item?: ResponsesItem, output?: ResponsesItem[],
    // Messages API: a stream event's block, or the message's blocks.
    content_block?: MessageBlock, content?: MessageBlock[]
};

/** Reads a recorded reply body: SSE `data:` events (chat chunks, Responses or Messages events), or one JSON object. */
export function replyContent(reply: string): ReplyContent {
    const content: ReplyContent = {calls: [], text: ""};
    const events = reply.split("\n").filter((line) => line.startsWith("data:")).map((line) => line.slice(5).trim());
    for (const payload of (events.length > 0 ? events : [reply]).map(parse)) {
        if (payload == null) continue;
        for (const choice of payload.choices ?? []) {
            const message = choice.delta ?? choice.message;
            content.text += message?.content ?? "";
            for (const call of message?.tool_calls ?? [])
                if (call.function?.name != null) content.calls.push(call.function.name);
        }
        // Streamed, each output item arrives whole in its `.done` event; the text also in deltas.
        if (payload.type === "response.output_text.delta" && typeof payload.delta === "string") content.text += payload.delta;
        const items = payload.type === "response.output_item.done" ? [payload.item] : payload.type == null ? payload.output ?? [] : [];
        for (const item of items) {
            if (item?.type === "function_call" && item.name != null) content.calls.push(item.namespace != null ? `${item.namespace}.${item.name}` : item.name);
            if (item?.type === "message" && payload.type == null) content.text += (item.content ?? []).map((part) => part.text ?? "").join("");
        }
        // Messages API: streamed, a tool_use block's name comes in its content_block_start; text in text_delta events.
        const blocks = payload.type === "content_block_start" ? [payload.content_block] : payload.type === "message" ? payload.content ?? [] : [];
        for (const block of blocks) {
            if (block?.type === "tool_use" && block.name != null) content.calls.push(block.name);
            if (block?.type === "text") content.text += block.text ?? "";
        }
        if (payload.type === "content_block_delta" && typeof payload.delta === "object" && payload.delta.type === "text_delta")
            content.text += payload.delta.text ?? "";
    }
    return content;
}

function parse(text: string): Payload | null {
    try {
        return JSON.parse(text) as Payload;
    } catch {
        return null;
    }
}
