import {mkdir, writeFile} from "node:fs/promises";
import path from "node:path";
import {SCRIPTED_ANSWER, type AgentClient} from "../agentClient.js";

/**
 * opencode (`opencode run`), on a custom provider through its bundled `@ai-sdk/openai-compatible`
 * package, declared in its global config (XDG_CONFIG_HOME/opencode/opencode.json in the client's
 * home). The environment turns off what would reach the internet: the update check, the models.dev
 * catalogue, default plugins (installed from npm at start), language-server downloads and sharing.
 */
export const opencode: AgentClient = {
    name: "opencode",
    packageName: "opencode-ai",
    version: "1.18.33",
    binName: "opencode",
    api: "chat completions",
    // `read` lists a directory too. (Its glob and grep run ripgrep, which opencode downloads from
    // GitHub on first use.) The optional offset and limit are written too (valid, not needed).
    script: (workDir) => ({call: {name: "read", arguments: JSON.stringify({filePath: workDir, offset: 1, limit: 100})}, answer: SCRIPTED_ANSWER}),
    async prepare({home, baseUrl, model, apiKey, task}) {
        const configDir = path.join(home, ".config", "opencode");
        await mkdir(configDir, {recursive: true});
        await writeFile(path.join(configDir, "opencode.json"), JSON.stringify({
            $schema: "https://opencode.ai/config.json",
            provider: {
                chatserve: {
                    npm: "@ai-sdk/openai-compatible",
                    name: "chatserve",
                    options: {baseURL: baseUrl, apiKey},
                    models: {[model]: {name: model, tool_call: true, limit: {context: 32768, output: 4096}}}
                }
            },
            model: `chatserve/${model}`,
            small_model: `chatserve/${model}`,
            autoupdate: false,
            share: "disabled"
        }, null, 2));
        return {
            args: ["run", "--model", `chatserve/${model}`, "--pure", "--print-logs", "--log-level", "WARN", task],
            env: {
                OPENCODE_DISABLE_AUTOUPDATE: "1",
                OPENCODE_DISABLE_MODELS_FETCH: "1",
                OPENCODE_DISABLE_DEFAULT_PLUGINS: "1",
                OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
                OPENCODE_DISABLE_SHARE: "1",
                OPENCODE_DISABLE_CLAUDE_CODE: "1"
            }
        };
    }
};
