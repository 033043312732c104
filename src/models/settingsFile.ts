import fs from "node:fs/promises";
import path from "node:path";
import type {Logger} from "pino";
import {parseSettingsFile, SettingsTable, type ModelSettings} from "./modelSettings.js";
import {readTemplateFile, resolveProjectorPath, resolveSettingsPath, type SettingsPathPolicy} from "./settingsPaths.js";

export const settingsFileName = "chatserve.json";

/** The settings in force: the table, and the text of each chat template it names (read when the file was). */
export type LoadedSettings = {
    table: SettingsTable,
    /** Jinja text by the path written in the file. */
    templates: ReadonlyMap<string, string>
};

/** One model's settings with its chat template's text. */
export type ResolvedModelSettings = ModelSettings & {chatTemplateText?: string};

export const noSettings: LoadedSettings = {table: new SettingsTable(), templates: new Map()};

export function settingsForModel(settings: LoadedSettings, id: string): ResolvedModelSettings {
    const resolved = settings.table.settingsFor(id);
    return resolved.chatTemplate == null ? resolved : {...resolved, chatTemplateText: settings.templates.get(resolved.chatTemplate)};
}

/**
 * `chatserve.json` in the models folder, read again at every rescan of the folder (modelCatalogue.ts):
 * a change (to the file or to a template it names) is validated whole and applied; a file that is
 * not valid (bad JSON, a wrong field, a template or projector that is not there or lies outside
 * the models folder, an alias the registry refuses) is logged once, with what is wrong, and the settings in force stay. No file: no settings.
 */
export class SettingsFile {
    private settings: LoadedSettings = noSettings;
    /** What was last read (file and templates), valid or not: an unchanged file is neither applied nor logged again. */
    private signature = "";
    public error: string | null = null;

    private readonly paths: SettingsPathPolicy;

    /** `allowPathsOutside`: --allow-paths-outside-models (settingsPaths.ts). */
    public constructor(private readonly modelsDir: string, private readonly logger: Logger, allowPathsOutside = false) {
        this.paths = {modelsDir, allowOutside: allowPathsOutside};
    }

    public get path(): string {
        return path.join(this.modelsDir, settingsFileName);
    }

    public get current(): LoadedSettings {
        return this.settings;
    }

    /**
     * Reads the file; if it changed, validates it and hands it to `apply` (which may refuse it by
     * throwing). Resolves to true when new settings were applied.
     */
    public async reload(apply: (settings: LoadedSettings) => void): Promise<boolean> {
        const text = await fs.readFile(this.path, "utf8").catch((error: NodeJS.ErrnoException) => {
            if (error.code === "ENOENT")
                return null;
            throw error;
        });
        let next: LoadedSettings;
        let signature: string;
        try {
            ({settings: next, signature} = text == null ? {settings: noSettings, signature: ""} : await this.read(text));
        } catch (error) {
            return this.refuse(`${text}`, (error as Error).message);
        }
        if (signature === this.signature)
            return false;
        try {
            apply(next);
        } catch (error) {
            return this.refuse(signature, (error as Error).message);
        }
        const first = this.signature === "" && this.error == null;
        this.settings = next;
        this.signature = signature;
        this.error = null;
        if (text != null || !first)
            this.logger.info({event: "settings_loaded", path: this.path, models: Object.keys(next.table.models)},
                text == null ? `${settingsFileName} is gone: no per-model settings` : `per-model settings read from ${this.path}`);
        return true;
    }

    private refuse(signature: string, why: string): false {
        if (signature !== this.signature) {
            this.signature = signature;
            this.error = `${this.path} is not valid, so the settings in force stay: ${why}`;
            this.logger.error({event: "settings_invalid", path: this.path, reason: why}, this.error);
        }
        return false;
    }

    /** The file's table and its templates' text; throws for anything the file names that is not there. */
    private async read(text: string): Promise<{settings: LoadedSettings, signature: string}> {
        const table = parseSettingsFile(text);
        const templates = new Map<string, string>();
        let signature = text;
        for (const [key, entry] of Object.entries(table.models)) {
            if (entry.chat_template != null && !templates.has(entry.chat_template)) {
                const file = entry.chat_template;
                const template = await resolveSettingsPath(file, this.paths).then((real) => readTemplateFile(real, file)).catch((error: Error) => {
                    throw new Error(`models.${key}.chat_template: ${error.message}`);
                });
                templates.set(file, template);
                signature += `\0${template}`;
            }
            for (const [index, adapter] of (entry.lora ?? []).entries())
                // Resolved once, here, as a projector is: the model loads with this path.
                adapter.path = await resolveProjectorPath(adapter.path, this.paths).catch((error: Error) => {
                    throw new Error(`models.${key}.lora[${index}].path: ${error.message}`);
                });
            if (entry.draft != null)
                // Resolved once, here, as a projector is: the draft loads with this path.
                entry.draft = await resolveProjectorPath(entry.draft, this.paths).catch((error: Error) => {
                    throw new Error(`models.${key}.draft: ${error.message}`);
                });
            if (entry.mmproj != null) {
                // Resolved once, here: the model is loaded with this path.
                entry.mmproj = await resolveProjectorPath(entry.mmproj, this.paths).catch((error: Error) => {
                    throw new Error(`models.${key}.mmproj: ${error.message}`);
                });
            }
        }
        return {settings: {table, templates}, signature};
    }
}
