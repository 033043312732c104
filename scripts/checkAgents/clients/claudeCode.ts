import {SCRIPTED_ANSWER, type AgentClient} from "../agentClient.js";

/** For each run: the result as one JSON line (its usage included), and its Glob tool allowed without asking. */
const RUN_OPTIONS = ["--output-format", "json", "--allowedTools", "Glob"];

/**
 * Claude Code (`claude -p`), on chatserve's Messages API through ANTHROPIC_BASE_URL (it sends
 * `POST /v1/messages?beta=true`, streamed, with the key as `x-api-key`). ANTHROPIC_MODEL names its
 * scripted model and ANTHROPIC_DEFAULT_HAIKU_MODEL the same for its "small fast" side tasks (its
 * print-mode runs made none). No login or onboarding state is needed: with ANTHROPIC_API_KEY set,
 * print mode starts in an empty home and writes its own ~/.claude.json.
 *
 * Its session runs three turns, as the "Claude Code's prompt stays cached" asks: the task
 * (a Glob call, its result, the answer), then two `--continue` turns in the same home and work
 * folder, each resending the whole conversation; every request must reuse the prompt before it.
 *
 * What would leave the machine is off: without these four variables a run asked the proxy for three
 * connections to api.anthropic.com:443; CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC alone stopped all
 * three, DISABLE_TELEMETRY alone two (error reports and updates are the other two's business).
 * With all four, an strace of a run showed one connection: to chatserve.
 */
export const claudeCode: AgentClient = {
    name: "claude-code",
    packageName: "@anthropic-ai/claude-code",
    version: "2.1.332",
    binName: "claude",
    api: "messages",
    // Glob's schema: {pattern, path?}. The optional path is written too (valid, not needed).
    script: (workDir) => ({call: {name: "Glob", arguments: JSON.stringify({pattern: "*", path: workDir})}, answer: SCRIPTED_ANSWER}),
    mustReusePrompt: true,
    async prepare({baseUrl, model, apiKey, task}) {
        return {
            args: ["-p", task, ...RUN_OPTIONS],
            followUps: [
                ["-p", "--continue", "Say again what you found, in one sentence.", ...RUN_OPTIONS],
                ["-p", "--continue", "Thanks. Is there anything else in that folder?", ...RUN_OPTIONS]
            ],
            env: {
                // Its base URL is the origin: it appends /v1/messages itself.
                ANTHROPIC_BASE_URL: baseUrl.replace(/\/v1$/, ""),
                ANTHROPIC_API_KEY: apiKey,
                ANTHROPIC_MODEL: model,
                ANTHROPIC_DEFAULT_HAIKU_MODEL: model,
                DISABLE_TELEMETRY: "1",
                DISABLE_ERROR_REPORTING: "1",
                DISABLE_AUTOUPDATER: "1",
                CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1"
            }
        };
    }
};
