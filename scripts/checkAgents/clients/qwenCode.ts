import {mkdir, writeFile} from "node:fs/promises";
import path from "node:path";
import {SCRIPTED_ANSWER, type AgentClient} from "../agentClient.js";

/**
 * Qwen Code (`qwen`), headless with `--prompt`, on an OpenAI-compatible provider given by
 * OPENAI_BASE_URL / OPENAI_API_KEY / OPENAI_MODEL. Its settings (QWEN_HOME, in the client's own
 * home) turn off auto-update, usage statistics and telemetry; `--yolo` approves the tool call.
 * Nothing else is configured: it sends its own max_tokens, as a new user's would.
 */
export const qwenCode: AgentClient = {
    name: "qwen-code",
    packageName: "@qwen-code/qwen-code",
    version: "0.24.4",
    binName: "qwen",
    api: "chat completions",
    // Its file tools other than these are deferred behind tool_search (list_directory among them).
    // The arguments name glob's optional `path` as well as its `pattern` (the search's folder).
    script: (workDir) => ({call: {name: "glob", arguments: JSON.stringify({pattern: "*", path: workDir})}, answer: SCRIPTED_ANSWER}),
    async prepare({home, baseUrl, model, apiKey, task}) {
        const qwenHome = path.join(home, ".qwen");
        await mkdir(qwenHome, {recursive: true});
        await writeFile(path.join(qwenHome, "settings.json"), JSON.stringify({
            security: {auth: {selectedType: "openai"}},
            model: {name: model},
            general: {enableAutoUpdate: false},
            privacy: {usageStatisticsEnabled: false},
            telemetry: {enabled: false}
        }, null, 2));
        return {
            args: ["--prompt", task, "--yolo", "--auth-type", "openai", "--model", model],
            env: {
                QWEN_HOME: qwenHome,
                OPENAI_BASE_URL: baseUrl,
                OPENAI_API_KEY: apiKey,
                OPENAI_MODEL: model,
                QWEN_TELEMETRY_ENABLED: "false",
                QWEN_USAGE_STATISTICS_ENABLED: "false"
            }
        };
    }
};
