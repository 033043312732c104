import {BadRequestError} from "../../errors.js";
import type {Tool, ToolChoice} from "../../conversation/conversation.js";
import type {ResponsesRequest, ResponsesTool} from "./responsesRequest.js";

/** A function as the client named it: Codex groups MCP tools in namespaces, and a call names both. */
export type ClientToolName = {name: string, namespace?: string};

/**
 * The Responses API's tools → the tools offered to the model, and the names between the two.
 *
 * A namespace's functions are shown to the model as `namespace__name` (Codex's own flat spelling,
 * so a model trained on Codex transcripts sees what it knows), and a call the model writes comes
 * back as `{name, namespace}`, which is what Codex sends back on the next turn and looks up.
 * Ollama and vLLM send the flat name back, and Codex then reports an unsupported call.
 *
 * Hosted tools (web_search, file_search, code_interpreter, computer use, MCP, custom grammars…) run
 * on OpenAI's side; chatserve cannot run them. Agents send them on every request whatever the
 * server, so they are left out of the prompt, and named in a log line, rather than refused.
 */
export class ResponseTools {
    /** Model-facing name → the client's name and namespace. */
    private readonly byFlatName = new Map<string, ClientToolName>();
    /** The hosted tools left out (their types). */
    public readonly skipped: string[] = [];
    /** The functions offered to the model, by their model-facing names. */
    public readonly offered: Tool[] = [];

    public constructor(tools: ResponsesRequest["tools"]) {
        (tools ?? []).forEach((tool, index) => this.add(tool, `tools[${index}]`));
    }

    /** What the model writes for a client's function. */
    public static flatName({name, namespace}: ClientToolName): string {
        return namespace == null || namespace === "" ? name : `${namespace.replace(/_+$/, "")}__${name.replace(/^_+/, "")}`;
    }

    /** The client's name for a call the model wrote. */
    public clientName(flatName: string): ClientToolName {
        return this.byFlatName.get(flatName) ?? {name: flatName};
    }

    /** `tool_choice` in the conversation's terms; naming a hosted tool is a 400 (it cannot be called here). */
    public toolChoice(choice: ResponsesRequest["tool_choice"]): ToolChoice | undefined {
        if (choice == null || typeof choice === "string")
            return choice ?? undefined;
        if (choice.type === "function") {
            const {name, namespace} = choice as {name: string, namespace?: string | null};
            return {name: ResponseTools.flatName({name, namespace: namespace ?? undefined})};
        }
        if (choice.type === "allowed_tools") {
            // A subset of tools the model may call: chatserve offers them all, in the mode asked for.
            const mode = (choice as {mode?: unknown}).mode;
            return mode === "required" ? "required" : "auto";
        }
        throw new BadRequestError(`Invalid 'tool_choice': '${choice.type}' is a hosted tool, which chatserve cannot run; offer a function tool instead.`,
            {param: "tool_choice", code: "unsupported_tool"});
    }

    private add(tool: ResponsesTool, param: string): void {
        if (tool.type === "function")
            return this.addFunction(tool as FunctionShape, undefined, param);
        if (tool.type === "namespace") {
            const group = tool as {name: string, tools: Array<{type: string}>};
            group.tools.forEach((inner, index) => inner.type === "function"
                ? this.addFunction(inner as unknown as FunctionShape, group.name, `${param}.tools[${index}]`)
                : this.skipped.push(`${group.name}.${inner.type}`));
            return;
        }
        this.skipped.push(tool.type);
    }

    private addFunction(tool: FunctionShape, namespace: string | undefined, param: string): void {
        const flat = ResponseTools.flatName({name: tool.name, namespace});
        this.byFlatName.set(flat, namespace == null ? {name: tool.name} : {name: tool.name, namespace});
        this.offered.push({
            name: flat, ...(tool.description != null ? {description: tool.description} : {}),
            parameters: tool.parameters, strict: tool.strict === true, parametersPath: `${param}.parameters`
        });
    }
}

type FunctionShape = {name: string, description?: string | null, parameters?: Record<string, unknown> | null, strict?: boolean | null};
