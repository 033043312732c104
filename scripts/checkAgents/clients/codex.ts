import {mkdir, writeFile} from "node:fs/promises";
import path from "node:path";
import {SCRIPTED_ANSWER, type AgentClient} from "../agentClient.js";

/**
 * Codex (`codex exec`), on a custom model provider whose base_url is chatserve (it speaks only the
 * Responses API). Its config (CODEX_HOME, in the client's home) turns off the update check,
 * analytics and the plugin sync, trusts the work folder and never asks for approval (its read-only
 * sandbox still applies to the command).
 */
export const codex: AgentClient = {
    name: "codex",
    packageName: "@openai/codex",
    version: "0.171.0",
    binName: "codex",
    api: "responses",
    // exec_command runs `ls`. The arguments also write each of exec_command's optional properties,
    // with their documented defaults (valid, not needed: the grammar lets optional ones be left out).
    script: (workDir) => ({
        call: {name: "exec_command", arguments: JSON.stringify({
            cmd: "ls", justification: "", login: false, max_output_tokens: 1000, prefix_rule: [], sandbox_permissions: "use_default",
            shell: "/bin/sh", tty: false, workdir: workDir, yield_time_ms: 1000
        })},
        answer: SCRIPTED_ANSWER
    }),
    async prepare({home, workDir, baseUrl, model, apiKey, task}) {
        const codexHome = path.join(home, ".codex");
        await mkdir(codexHome, {recursive: true});
        await writeFile(path.join(codexHome, "config.toml"), [
            `model = ${JSON.stringify(model)}`,
            `model_provider = "chatserve"`,
            "model_context_window = 32768",
            "check_for_update_on_startup = false",
            `approval_policy = "never"`,
            `sandbox_mode = "read-only"`,
            "",
            "[analytics]",
            "enabled = false",
            "",
            // Else it fetches OpenAI's curated plugin list from GitHub (then chatgpt.com) at start.
            "[features]",
            "plugins = false",
            "",
            "[model_providers.chatserve]",
            `name = "chatserve"`,
            `base_url = ${JSON.stringify(baseUrl)}`,
            `wire_api = "responses"`,
            `env_key = "CHATSERVE_API_KEY"`,
            "",
            `[projects.${JSON.stringify(workDir)}]`,
            `trust_level = "trusted"`,
            ""
        ].join("\n"));
        return {
            args: ["exec", "--skip-git-repo-check", task],
            env: {CODEX_HOME: codexHome, CHATSERVE_API_KEY: apiKey}
        };
    }
};

/**
 * Codex again, calling a function of a `namespace` tool group (its sub-agent tools): chatserve shows
 * it to the model as `multi_agent_v1__close_agent` and must hand it back as `{namespace, name}`, the
 * shape Codex looks up (a flattened name is "unsupported" to Codex). Closing an agent that does not
 * exist is harmless: Codex runs the call and sends back that it failed.
 */
export const codexNamespace: AgentClient = {
    ...codex,
    name: "codex-namespace",
    expectedCall: "multi_agent_v1.close_agent",
    script: () => ({call: {name: "multi_agent_v1__close_agent", arguments: JSON.stringify({target: "00000000-0000-0000-0000-000000000000"})}, answer: SCRIPTED_ANSWER})
};
