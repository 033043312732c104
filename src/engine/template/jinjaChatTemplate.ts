import {Template} from "@huggingface/jinja";
// Importing it bounds every Jinja render in the process (templateDeadline.ts).
import "../templateDeadline.js";
// And renders as llama.cpp's Jinja does where @huggingface/jinja is stricter (jinjaLeniency.ts).
import "./jinjaLeniency.js";
import {probeCapabilities, type TemplateCapabilities} from "./templateCapabilities.js";
import {templateHasThought} from "./templateReasoning.js";
import {forFamily, type FamilyMessage} from "./familyMessages.js";
import type {TemplateInput, TemplateMessage} from "./templateMessage.js";

const turnProbe = "CHATSERVE_TURN_PROBE_51c2";

/** The variables llama.cpp sets for its preserve_reasoning, on by default in llama-server, under each family's name for them. */
const keepEarlierThoughts = {preserve_reasoning: true, preserve_thinking: true, clear_thinking: false, truncate_history_thinking: false, drop_thinking: false};

/** The model's special tokens as templates print them, and whether llama.cpp adds them itself. */
export type TemplateTokens = {bos: string, eos: string, addBos: boolean, addEos: boolean};

/**
 * A model's own Jinja chat template (the GGUF's, or chat_template in chatserve.json), rendered as
 * llama-server renders it with `--jinja` (common/chat.cpp), so the model reads the prompt it was
 * trained on: the OpenAI-shaped messages, the client's tools exactly as sent, `bos_token`,
 * `eos_token`, `enable_thinking`, the date variables some templates print, and the generation
 * prompt. A BOS the template writes is dropped where the tokenizer adds one itself (and an EOS at
 * the end likewise), as llama.cpp does, so it is never doubled.
 */
export class JinjaChatTemplate {
    private readonly template: Template;
    private capabilitiesFound: TemplateCapabilities | undefined;
    private turnEndFound: string | undefined;
    private hasThoughtFound: boolean | undefined;

    /** Throws where the template cannot be parsed. */
    public constructor(public readonly source: string, private readonly tokens: TemplateTokens) {
        this.template = new Template(source);
    }

    /**
     * What the template writes after an assistant's text to end its turn (`<|im_end|>`,
     * `<|eot_id|>`, `<end_of_turn>`): its first marker; "" when it writes nothing there. A
     * reply ends there even in a vocabulary that does not mark it as an end-of-generation token.
     */
    public get turnEnd(): string {
        if (this.turnEndFound == null) {
            const conversation = [{role: "user", content: "User message"}, {role: "assistant", content: turnProbe}];
            try {
                const text = this.template.render(this.globals({messages: conversation, enable_thinking: true}));
                const after = text.lastIndexOf(turnProbe) < 0 ? "" : text.slice(text.lastIndexOf(turnProbe) + turnProbe.length);
                this.turnEndFound = firstMarker(after.trim());
            } catch {
                this.turnEndFound = "";
            }
        }
        return this.turnEndFound;
    }

    /** Whether the template writes a thought (templateReasoning.ts); `raw` renders skip this, for the probes that find it. */
    public get hasThought(): boolean {
        this.hasThoughtFound ??= templateHasThought(this);
        return this.hasThoughtFound;
    }

    public get capabilities(): TemplateCapabilities {
        this.capabilitiesFound ??= probeCapabilities(this.template, (template, context) => template.render(this.globals(context)));
        return this.capabilitiesFound;
    }

    /**
     * The prompt for `input`, ending with the generation prompt; or, with `continueLast`, ending
     * inside the last (assistant) message, right after its text, for the model to continue it.
     */
    public render(input: TemplateInput, {continueLast = false, raw = false}: {continueLast?: boolean, raw?: boolean} = {}): string {
        const messages = forFamily(this.source, this.adapted(input.messages));
        const context = {
            messages,
            ...(input.tools != null && input.tools.length > 0 ? {tools: input.tools} : {}),
            // On only where the template has a thought (templateReasoning.ts), as llama-server sets it.
            enable_thinking: input.thinking && (raw || this.hasThought),
            // llama-server's default (preserve_reasoning): earlier thoughts stay where the template can keep them.
            ...keepEarlierThoughts,
            ...clientVariables(input.variables),
            ...(continueLast ? {} : {add_generation_prompt: true})
        };
        let text = this.template.render(this.globals(context));
        if (continueLast)
            text = cutAfterLastContent(text, textOf(messages.at(-1)));
        if (this.tokens.addBos && this.tokens.bos !== "" && text.startsWith(this.tokens.bos))
            text = text.slice(this.tokens.bos.length);
        if (this.tokens.addEos && this.tokens.eos !== "" && text.endsWith(this.tokens.eos))
            text = text.slice(0, -this.tokens.eos.length);
        return text;
    }

    private globals(context: Record<string, unknown>): Record<string, unknown> {
        const now = new Date();
        const month = now.toLocaleString("en-US", {month: "short", timeZone: "UTC"});
        const day = String(now.getUTCDate()).padStart(2, "0");
        return {
            bos_token: this.tokens.bos, eos_token: this.tokens.eos,
            // llama.cpp's: "Nov 29 2026" and "29 Nov 2026".
            datetime: `${month} ${day} ${now.getUTCFullYear()}`, date_string: `${day} ${month} ${now.getUTCFullYear()}`,
            ...context
        };
    }

    /**
     * The messages as this template takes them (llama.cpp's work-arounds): a system message where
     * the template shows none opens the first user message; a call's arguments parsed where the
     * template reads inside them (text that is not JSON stays text, as it came).
     */
    private adapted(messages: readonly TemplateMessage[]): TemplateMessage[] {
        let adapted = [...messages];
        if (!this.capabilities.systemRole && adapted[0]?.role === "system") {
            const [system, next] = adapted;
            adapted = next == null ? adapted.slice(1) : [{...next, content: `${system!.content}\n${next.content}`}, ...adapted.slice(2)];
        }
        if (this.capabilities.objectArguments)
            adapted = adapted.map((message) => message.tool_calls == null ? message : {
                ...message,
                tool_calls: message.tool_calls.map((call) => ({...call, function: {...call.function, arguments: parsedArguments(call.function.arguments)}}))
            });
        return adapted;
    }
}

/** The client's variables; a reasoning effort under both names families read it by (GPT-OSS's and others'), as llama.cpp sets it. */
function clientVariables(variables: Record<string, unknown> | undefined): Record<string, unknown> {
    const effort = variables?.reasoning_effort;
    return {...variables, ...(typeof effort === "string" && effort !== "" ? {reasoning_strength: effort} : {})};
}

function parsedArguments(text: string | Record<string, unknown>): string | Record<string, unknown> {
    if (typeof text !== "string")
        return text;
    try {
        const parsed: unknown = JSON.parse(text);
        return typeof parsed === "object" && parsed != null && !Array.isArray(parsed) ? parsed as Record<string, unknown> : text;
    } catch {
        return text;
    }
}

/** The first marker of markup (`<|im_end|>`, `</s>`, `<｜end▁of▁sentence｜>`, `[/INST]`), or a short line without one. */
function firstMarker(text: string): string {
    const marker = /^(<[^<>\s]{1,48}>|\[[^[\]\s]{1,48}\])/.exec(text);
    if (marker != null)
        return marker[0];
    const line = text.split("\n")[0]!.trim();
    return line.length <= 16 ? line : "";
}

function textOf(message: FamilyMessage | undefined): string {
    const content = message?.content ?? "";
    return typeof content === "string" ? content : content.at(-1)?.text ?? "";
}

/** The rendered conversation up to the end of the last message's text: its end-of-turn markup is left for the model to write. */
function cutAfterLastContent(text: string, content: string): string {
    const at = content === "" ? -1 : text.lastIndexOf(content);
    return at < 0 ? text : text.slice(0, at + content.length);
}
