/**
 * What the Responses API answers: the `response` object and its output items, in OpenAI's shapes
 * (the official SDK's `Response`, `ResponseOutputItem`, `ResponseStreamEvent`).
 */

export type OutputText = {type: "output_text", text: string, annotations: [], logprobs: []};

export type MessageItem = {id: string, type: "message", status: ItemStatus, role: "assistant", content: OutputText[]};

export type ReasoningItem = {id: string, type: "reasoning", summary: Array<{type: "summary_text", text: string}>, status?: ItemStatus};

export type FunctionCallItem = {
    id: string, type: "function_call", status: ItemStatus, call_id: string, name: string, namespace?: string, arguments: string
};

export type OutputItem = MessageItem | ReasoningItem | FunctionCallItem;

export type ItemStatus = "in_progress" | "completed" | "incomplete";

export type ResponseUsage = {
    input_tokens: number,
    input_tokens_details: {cached_tokens: number},
    output_tokens: number,
    output_tokens_details: {reasoning_tokens: number},
    total_tokens: number
};

export type ResponseStatus = "in_progress" | "completed" | "incomplete" | "failed";

export type ResponseObject = {
    id: string,
    object: "response",
    created_at: number,
    status: ResponseStatus,
    background: false,
    error: {code: string, message: string} | null,
    incomplete_details: {reason: "max_output_tokens"} | null,
    instructions: string | null,
    max_output_tokens: number | null,
    model: string,
    output: OutputItem[],
    parallel_tool_calls: boolean,
    previous_response_id: string | null,
    reasoning: {effort: string | null, summary: string | null},
    service_tier: "default",
    store: boolean,
    temperature: number,
    text: {format: unknown},
    tool_choice: unknown,
    tools: unknown[],
    top_p: number,
    truncation: "auto" | "disabled",
    usage: ResponseUsage | null,
    user: string | null,
    metadata: Record<string, string>
};
