import os from "node:os";
import path from "node:path";
import type {PromptCacheSettings} from "./promptCache.js";

/** The settings the prompt cache reads (src/config.ts documents each). */
export type PromptCacheConfig = {promptCache: boolean, promptCacheRam?: number, promptCacheDir?: string, promptCacheSize: number};

/** The RAM tier's default: an eighth of the memory budget, at most 4 GiB (llama-server's --cache-ram is 8 GiB). */
const defaultRamShare = 1 / 8;
const defaultRamCap = 4 * 2 ** 30;

/**
 * The tiers' budgets and folder. The RAM tier is counted in the models' memory budget (the caller
 * takes it out of what they may use), so it is capped at half of it: a cache larger than the models
 * it serves would only make them unload more often.
 */
export function promptCacheSettings(config: PromptCacheConfig, memoryBudgetBytes: number): PromptCacheSettings {
    if (!config.promptCache)
        return {ramBytes: 0, disk: null};
    const ramBytes = Math.floor(Math.min(config.promptCacheRam ?? Math.min(defaultRamCap, memoryBudgetBytes * defaultRamShare), memoryBudgetBytes / 2));
    return {
        ramBytes,
        disk: config.promptCacheSize <= 0 ? null : {dir: config.promptCacheDir ?? defaultPromptCacheDir(), bytes: config.promptCacheSize}
    };
}

/** Under the user's cache folder, where each OS keeps what can be deleted at any time. */
export function defaultPromptCacheDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
    const home = os.homedir();
    const base = platform === "win32" ? env.LOCALAPPDATA ?? path.join(home, "AppData", "Local")
        : platform === "darwin" ? path.join(home, "Library", "Caches")
            : env.XDG_CACHE_HOME != null && path.isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : path.join(home, ".cache");
    return path.join(base, "chatserve", "prompt-cache");
}
