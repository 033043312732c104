import {mkdir, writeFile} from "node:fs/promises";
import path from "node:path";
import {SCRIPTED_ANSWER, type AgentClient} from "../agentClient.js";

/**
 * Continue's CLI (`cn`), headless with `-p`, on a local config file with one `openai`-provider
 * model whose apiBase is chatserve. Headless runs never check for updates; CONTINUE_METRICS_ENABLED=0
 * turns its telemetry off. `--auto` allows every tool, so the call runs without asking.
 */
export const continueCli: AgentClient = {
    name: "continue",
    packageName: "@continuedev/cli",
    version: "1.5.47",
    binName: "cn",
    api: "chat completions",
    script: () => ({call: {name: "List", arguments: JSON.stringify({dirpath: "."})}, answer: SCRIPTED_ANSWER}),
    async prepare({home, baseUrl, model, apiKey, task}) {
        const configDir = path.join(home, ".continue");
        await mkdir(configDir, {recursive: true});
        const config = path.join(configDir, "config.yaml");
        await writeFile(config, [
            "name: chatserve check",
            "version: 1.0.0",
            "schema: v1",
            "models:",
            "  - name: chatserve",
            "    provider: openai",
            `    model: ${model}`,
            `    apiBase: ${baseUrl}`,
            `    apiKey: ${apiKey}`,
            "    roles: [chat, edit, apply]",
            "    capabilities: [tool_use]",
            ""
        ].join("\n"));
        return {
            args: ["-p", task, "--config", config, "--auto"],
            env: {CONTINUE_GLOBAL_DIR: configDir, CONTINUE_METRICS_ENABLED: "0", CONTINUE_CLI_ENABLE_TELEMETRY: "0", FORCE_NO_TTY: "1"}
        };
    }
};
