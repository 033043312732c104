import {ApiError} from "../../errors.js";
import type {ResponseTools} from "./responseTools.js";

/**
 * An error the chat path raised, naming the Responses request's field instead of the chat request's
 * it was translated into (`messages[2].content[0]` → `input[1].content[0]`), in its `param` and in
 * its message. Errors without a param, and other throwables, pass unchanged.
 */
export function errorParamInResponses(error: unknown, messageParams: ReadonlyArray<string | null>, tools: ResponseTools): unknown {
    if (!(error instanceof ApiError) || error.param == null)
        return error;
    return error.withParam(responsesParam(error.param, messageParams, tools));
}

function responsesParam(param: string, messageParams: ReadonlyArray<string | null>, tools: ResponseTools): string {
    const message = /^messages\[(\d+)\](.*)$/.exec(param);
    if (message != null) {
        const source = messageParams[Number(message[1])] ?? "previous_response_id";
        // An input_image's URL is a string field of its own (`image_url`), not chat's `image_url.url`.
        return source === "previous_response_id" || source === "instructions" ? source
            : source + message[2]!.replace(/^\.tool_call_id$/, ".call_id").replace(/^(\.content\[\d+\])\.image_url\.url$/, "$1.image_url");
    }
    const tool = /^tools\[(\d+)\]\.function(.*)$/.exec(param);
    if (tool != null)
        return (tools.sourceParams[Number(tool[1])] ?? "tools") + tool[2];
    const renames: Array<[RegExp, string]> = [
        [/^messages$/, "input"],
        [/^response_format\.json_schema(.*)$/, "text.format$1"],
        [/^response_format$/, "text.format"],
        [/^max_completion_tokens$/, "max_output_tokens"],
        [/^chat_template_kwargs.*$/, "reasoning"]
    ];
    for (const [pattern, replacement] of renames)
        if (pattern.test(param))
            return param.replace(pattern, replacement);
    return param;
}
