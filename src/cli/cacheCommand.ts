import {Command, Option} from "commander";
import {cacheFolderFiles, clearCacheFolder} from "../engine/promptCache/cacheFolder.js";
import {defaultPromptCacheDir} from "../engine/promptCache/promptCacheSettings.js";
import {formatBytes} from "../models/byteSize.js";

/**
 * `chatserve cache`: the prompt cache's disk tier without a server. `chatserve cache` says what it
 * holds; `chatserve cache clear` deletes it (a running server still has what it keeps in RAM, and
 * forgets the deleted files at their next lookup).
 */
export function cacheCommand(program: Command): void {
    const folderOption = () => new Option("--prompt-cache-dir <dir>", "the prompt cache's folder (default: chatserve/prompt-cache in the user's cache folder)").env("CHATSERVE_PROMPT_CACHE_DIR");
    const cache = program.command("cache")
        .description("the prompt cache on disk: what it holds (chatserve cache), or clear it (chatserve cache clear)")
        .addOption(folderOption())
        .action(async (options: {promptCacheDir?: string}) => {
            const dir = options.promptCacheDir ?? defaultPromptCacheDir();
            const files = (await cacheFolderFiles(dir)).filter(({file}) => file.endsWith(".kvcache"));
            const bytes = files.reduce((sum, file) => sum + file.bytes, 0);
            process.stdout.write(`${dir}: ${files.length} cached prompt prefix${files.length === 1 ? "" : "es"}, ${formatBytes(bytes)}\n`);
        });
    cache.command("clear")
        .description("delete every cached prompt prefix on disk")
        .addOption(folderOption())
        .action(async (options: {promptCacheDir?: string}, command: Command) => {
            const dir = options.promptCacheDir ?? (command.parent?.opts() as {promptCacheDir?: string} | undefined)?.promptCacheDir ?? defaultPromptCacheDir();
            const {files, bytes} = await clearCacheFolder(dir);
            process.stdout.write(`${dir}: removed ${files} file${files === 1 ? "" : "s"}, ${formatBytes(bytes)}\n`);
        });
}
