import {replicaHeader} from "./nginxProxy.js";

/** How a conversation names itself to the balancer: each of the sources the reference configuration hashes on. */
export type SessionSource = "x-chatserve-session" | "session_id" | "x-claude-code-session-id" | "prompt_cache_key" | "metadata.user_id";

export type Turn = {
    /** The server's address, without /v1. */
    baseUrl: string,
    apiKey: string,
    conversation: string,
    /** The messages so far, the last one the user's. */
    messages: Array<{role: "user" | "assistant", content: string}>,
    source?: SessionSource,
    stream?: boolean
};

/** One request's outcome, as a client saw it. */
export type TurnResult = {
    ok: boolean,
    status: number,
    /** The replicas nginx tried, in order, the last one answering (absent when the server was reached directly). */
    replicas: string[],
    reply: string,
    promptTokens: number,
    cachedTokens: number,
    /** Whether a 200 and its headers had reached the client: from then on no balancer may resend the request. */
    startedStreaming: boolean,
    error?: string
};

/** Deterministic replies: greedy sampling, a few tokens (the fixture's random weights would otherwise write until the context is full). */
const maxTokens = 6;

/** One turn through chat completions, or through Messages for Anthropic's metadata.user_id; never throws. */
export async function sendTurn(turn: Turn): Promise<TurnResult> {
    const anthropic = turn.source === "metadata.user_id";
    const headers: Record<string, string> = {"content-type": "application/json", authorization: `Bearer ${turn.apiKey}`};
    const body: Record<string, unknown> = {model: "tiny", messages: turn.messages, max_tokens: maxTokens, temperature: 0, stream: turn.stream === true};
    if (turn.stream === true && !anthropic)
        body.stream_options = {include_usage: true};
    if (turn.source === "prompt_cache_key")
        body.prompt_cache_key = turn.conversation;
    else if (anthropic)
        // As Claude Code's current releases write it: JSON in a string, so the body holds escaped quotes.
        body.metadata = {user_id: JSON.stringify({device_id: "test-device", session_id: turn.conversation})};
    else if (turn.source != null)
        headers[turn.source] = turn.conversation;
    const result: TurnResult = {ok: false, status: 0, replicas: [], reply: "", promptTokens: 0, cachedTokens: 0, startedStreaming: false};
    try {
        const response = await fetch(`${turn.baseUrl}/v1/${anthropic ? "messages" : "chat/completions"}`, {method: "POST", headers, body: JSON.stringify(body)});
        result.status = response.status;
        result.replicas = (response.headers.get(replicaHeader) ?? "").split(",").map((address) => address.trim()).filter((address) => address !== "");
        result.startedStreaming = turn.stream === true && response.status === 200;
        const text = await response.text();
        if (response.status !== 200)
            return {...result, error: `${response.status}: ${text.slice(0, 300)}`};
        return turn.stream === true ? readStream(result, text, anthropic) : readReply(result, JSON.parse(text), anthropic);
    } catch (error) {
        return {...result, error: String((error as Error).cause ?? error)};
    }
}

function readReply(result: TurnResult, reply: any, anthropic: boolean): TurnResult {
    if (anthropic)
        return {...result, ok: true, reply: reply.content.map((block: {text?: string}) => block.text ?? "").join(""), promptTokens: reply.usage.input_tokens + reply.usage.cache_read_input_tokens, cachedTokens: reply.usage.cache_read_input_tokens};
    return {...result, ok: true, reply: reply.choices[0].message.content ?? "", promptTokens: reply.usage.prompt_tokens, cachedTokens: reply.usage.prompt_tokens_details?.cached_tokens ?? 0};
}

/** A stream counts only when it ended as its protocol ends one: a cut stream is a failed request. */
function readStream(result: TurnResult, text: string, anthropic: boolean): TurnResult {
    const events = text.split("\n").filter((line) => line.startsWith("data: ")).map((line) => line.slice("data: ".length));
    let reply = "";
    let ended = false;
    for (const data of events) {
        if (data === "[DONE]") {
            ended = true;
            continue;
        }
        const event = JSON.parse(data);
        if (event.error != null || event.type === "error")
            return {...result, error: `stream error: ${data.slice(0, 300)}`};
        if (anthropic) {
            if (event.type === "content_block_delta" && event.delta.type === "text_delta")
                reply += event.delta.text;
            if (event.type === "message_start") {
                result.cachedTokens = event.message.usage.cache_read_input_tokens;
                result.promptTokens = event.message.usage.input_tokens + result.cachedTokens;
            }
            ended ||= event.type === "message_stop";
        } else {
            reply += event.choices?.[0]?.delta?.content ?? "";
            if (event.usage != null) {
                result.promptTokens = event.usage.prompt_tokens;
                result.cachedTokens = event.usage.prompt_tokens_details?.cached_tokens ?? 0;
            }
        }
    }
    return ended ? {...result, ok: true, reply} : {...result, error: "the stream was cut before its end"};
}

/** A conversation of `turns` turns, each sent once the previous reply is in; stops at the first failure. */
export async function converse(base: Omit<Turn, "messages">, firstMessage: string, turns: number): Promise<TurnResult[]> {
    const messages: Turn["messages"] = [{role: "user", content: firstMessage}];
    const results: TurnResult[] = [];
    for (let index = 0; index < turns; index++) {
        const result = await sendTurn({...base, messages: [...messages]});
        results.push(result);
        if (!result.ok)
            break;
        messages.push({role: "assistant", content: result.reply}, {role: "user", content: `Go on (turn ${index + 2}).`});
    }
    return results;
}
