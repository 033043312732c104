import {agentTools} from "./agentTools.js";
import {promptText} from "./prompts.js";
import {streamChat, ttftMs, type ChatMessage} from "./sse.js";

/**
 * An agent's session as the prompt cache benchmark replays it: a long system prompt documenting
 * the agent's twelve tools (agentTools.ts, written into the prompt as JSON, the way a template
 * renders them) followed by its instructions, then one user turn after another, each resending
 * everything before it with the last reply, as agents do. Greedy, a few tokens a reply: what is
 * measured is the time to the first token, that is the prompt's evaluation or its restoration.
 */
export type TurnFigures = {phase: string, ttftMs: number, promptTokens: number, cachedTokens: number};

export class AgentSession {
    private readonly messages: ChatMessage[];
    private turns = 0;

    public constructor(private readonly name: string, systemTokens: number, private readonly replyTokens: number) {
        const tools = JSON.stringify(agentTools.map((tool) => tool.function));
        this.messages = [{role: "system", content: `${name}. You can call these tools:\n${tools}\n\n${promptText(`${name} instructions`, systemTokens)}`}];
    }

    /** The next turn: a new user message of ~`userTokens` tokens after everything so far. */
    public async turn(url: string, model: string, phase: string, userTokens = 120): Promise<TurnFigures> {
        this.turns++;
        this.messages.push({role: "user", content: promptText(`${this.name} turn ${this.turns}`, userTokens)});
        const result = await streamChat(url, model, this.messages, this.replyTokens);
        if (result.usage == null)
            throw new Error(`${phase}: no usage in the reply (finish reason ${result.finishReason})`);
        this.messages.push({role: "assistant", content: result.content});
        return {phase, ttftMs: ttftMs(result), promptTokens: result.usage.prompt_tokens, cachedTokens: result.usage.prompt_tokens_details?.cached_tokens ?? 0};
    }
}
