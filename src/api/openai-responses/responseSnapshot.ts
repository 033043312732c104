import {randomBytes} from "node:crypto";
import type {ResponsesRequest} from "./responsesRequest.js";
import type {ResponseObject} from "./responsesResponse.js";

/**
 * A response as it starts, `in_progress` with no output: what `response.created` carries. The
 * request's settings are echoed with OpenAI's defaults filled in, as OpenAI's own response does.
 */
export function newResponseSnapshot(request: ResponsesRequest): ResponseObject {
    return {
        id: `resp_${randomBytes(24).toString("hex")}`,
        object: "response",
        created_at: Math.floor(Date.now() / 1000),
        status: "in_progress",
        background: false,
        error: null,
        incomplete_details: null,
        instructions: request.instructions ?? null,
        max_output_tokens: request.max_output_tokens ?? null,
        model: request.model,
        output: [],
        parallel_tool_calls: request.parallel_tool_calls ?? true,
        previous_response_id: request.previous_response_id ?? null,
        reasoning: {effort: request.reasoning?.effort ?? null, summary: request.reasoning?.summary ?? null},
        service_tier: "default",
        store: request.store !== false,
        temperature: request.temperature ?? 1,
        text: {format: request.text?.format ?? {type: "text"}},
        tool_choice: request.tool_choice ?? "auto",
        tools: request.tools ?? [],
        top_p: request.top_p ?? 1,
        truncation: request.truncation ?? "disabled",
        usage: null,
        user: request.user ?? null,
        metadata: request.metadata ?? {}
    };
}
