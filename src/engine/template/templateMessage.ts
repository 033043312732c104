/**
 * A conversation as chat templates read it: OpenAI's chat message shape, which is what every
 * family's official template was written against and what llama.cpp (common/chat.cpp) hands its
 * templates. Keys are in llama.cpp's order, since a template that prints a message with `tojson`
 * prints them in that order.
 */
export type TemplateMessage = {
    role: "system" | "user" | "assistant" | "tool",
    /** Text parts joined by a line break (an image's marker stands in its place, with no break beside it); "" when none. */
    content: string,
    /** An assistant's earlier thought; the template decides whether to show it again. */
    reasoning_content?: string,
    /** The call a tool message answers. */
    tool_call_id?: string,
    tool_calls?: TemplateToolCall[]
};

export type TemplateToolCall = {
    type: "function",
    /** `arguments` as the client sent them (JSON text); the parsed object for templates that read into them. */
    function: {name: string, arguments: string | Record<string, unknown>},
    id?: string
};

/** A tool as templates list it: the client's own schema, untouched (the grammar's stricter copy is not for the model to read). */
export type TemplateTool = {type: "function", function: {name: string, description: string, parameters: unknown}};

/** What a chat template is rendered with besides the messages. */
export type TemplateInput = {
    messages: TemplateMessage[],
    /** Absent or empty: the request has no tools, and the template sees none. */
    tools?: TemplateTool[],
    /** Whether the model may think (`enable_thinking`, as llama.cpp always passes it). */
    thinking: boolean,
    /** The client's own variables (chat_template_kwargs, reasoning_effort), over chatserve's, as llama-server sets them. */
    variables?: Record<string, unknown>
};
