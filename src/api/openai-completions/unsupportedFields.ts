import {BadRequestError} from "../../errors.js";
import {rejectStreamOptionsWithoutStream, rejectUnsupported} from "../openai-shared/unsupportedFields.js";
import type {CompletionRequest} from "./completionRequest.js";

/** Known legacy-completions fields that ask for something chatserve does not do yet, each a 400 naming it. */
export function rejectUnsupportedCompletionFields(request: CompletionRequest): void {
    rejectStreamOptionsWithoutStream(request);
    if (request.best_of != null && request.best_of > 1)
        rejectUnsupported("best_of", "best_of > 1");
    if (request.echo === true && request.suffix != null)
        throw new BadRequestError("echo cannot be combined with suffix.", {param: "echo", code: "invalid_value"});
}
