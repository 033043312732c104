import {ModelNotFoundError} from "../errors.js";
import {ModelAliases, type ModelAlias} from "./modelAliases.js";
import type {Catalogue} from "./modelCatalogue.js";
import type {ModelDescriptor} from "./modelDescriptor.js";
import type {LoadedSettings} from "./settingsFile.js";

/**
 * Which model a name stands for: a model of that id, else the model of an exact alias, else of the
 * most specific pattern. The aliases are --model-alias's, then chatserve.json's.
 */
export class ModelLookup {
    private aliases: ModelAliases;

    public constructor(
        private readonly catalogue: Catalogue,
        /** --model-alias's: they stay whatever chatserve.json says. */
        private readonly flagAliases: ModelAliases = new ModelAliases()
    ) {
        this.aliases = flagAliases;
    }

    /**
     * The model `name` stands for. A name that is none of these, or an alias whose model is not
     * there, rescans the folder first (a file copied in a moment ago should not have to wait for the
     * next periodic scan); a scan that fails (out of file handles) leaves what is known. 404 after that.
     */
    public async find(name: string): Promise<ModelDescriptor> {
        let descriptor = this.lookUp(name);
        if (descriptor == null) {
            await this.catalogue.refresh().catch(() => undefined);
            descriptor = this.lookUp(name);
        }
        if (descriptor == null)
            throw new ModelNotFoundError(name, this.aliases.resolve(name));
        return descriptor;
    }

    /**
     * The model `name` stands for, as far as is known now (no rescan). `id:latest` is `id` unless
     * something is named that exactly: Ollama's clients list models as `name:latest` and then ask
     * for them so on every API (VS Code Copilot's Ollama provider chats over /v1 with that name).
     */
    public lookUp(name: string): ModelDescriptor | undefined {
        const target = this.aliases.resolve(name);
        const found = this.catalogue.find(name) ?? (target == null ? undefined : this.catalogue.find(target));
        return found ?? (name.endsWith(":latest") ? this.lookUp(name.slice(0, -":latest".length)) : undefined);
    }

    /** The exact aliases, in the order given: a listing shows each as a model of its own. */
    public exactAliases(): ModelAlias[] {
        return this.aliases.exactAliases();
    }

    /** The aliases and patterns that lead to the model `id`. */
    public namesFor(id: string): string[] {
        return this.aliases.namesFor(id);
    }

    /**
     * chatserve.json's aliases join --model-alias's. Throws for a name given twice with different
     * models, before anything changes: the aliases in force stay.
     */
    public useSettings(settings: LoadedSettings): void {
        this.aliases = new ModelAliases([...this.flagAliases.all(), ...settings.table.aliases()]);
    }
}
