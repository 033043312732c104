/**
 * Other names for the models: `--model-alias NAME=ID`. Agents ask for a model by a name of their
 * own (Codex its configured model, Claude Code's side tasks a "small fast" model by Anthropic's
 * name); an alias serves such a name with a model of the folder. NAME may hold `*` wildcards
 * (`claude-*`, or `*` for every name), each matching any run of characters.
 *
 * Which name wins: a model's own id, then an exact alias, then the pattern with the most
 * characters besides its `*`s (so `claude-haiku-*` beats `claude-*`, which beats `*`, in whatever
 * order they were given); between equally long patterns, the one given first.
 */
export type ModelAlias = {name: string, model: string};

type Pattern = {alias: ModelAlias, regex: RegExp, specificity: number};

export class ModelAliases {
    private readonly exact = new Map<string, string>();
    private readonly patterns: Pattern[] = [];

    /** Throws, with a message for the terminal, for a name given twice with different models. */
    public constructor(aliases: readonly ModelAlias[] = []) {
        const seen = new Map<string, string>();
        for (const alias of aliases) {
            const earlier = seen.get(alias.name);
            if (earlier != null && earlier !== alias.model)
                throw new Error(`--model-alias '${alias.name}' is given twice, for '${earlier}' and for '${alias.model}': keep one.`);
            if (earlier != null)
                continue;
            seen.set(alias.name, alias.model);
            if (alias.name.includes("*"))
                this.patterns.push({alias, regex: wildcardRegex(alias.name), specificity: alias.name.replaceAll("*", "").length});
            else
                this.exact.set(alias.name, alias.model);
        }
        // Stable: equally specific patterns keep the order they were given in.
        this.patterns.sort((a, b) => b.specificity - a.specificity);
    }

    public get size(): number {
        return this.exact.size + this.patterns.length;
    }

    /** The model id `name` stands for, or undefined when no alias or pattern covers it (model ids are not consulted here). */
    public resolve(name: string): string | undefined {
        return this.exact.get(name) ?? this.patterns.find((pattern) => pattern.regex.test(name))?.alias.model;
    }

    /** The exact aliases, in the order given: each is listed by /v1/models as a model of its own. */
    public exactAliases(): ModelAlias[] {
        return [...this.exact].map(([name, model]) => ({name, model}));
    }

    /** Every alias, then every pattern in the order they are tried. */
    public all(): ModelAlias[] {
        return [...this.exactAliases(), ...this.patterns.map((pattern) => pattern.alias)];
    }

    /** The names and patterns that lead to `model`. */
    public namesFor(model: string): string[] {
        return this.all().filter((alias) => alias.model === model).map((alias) => alias.name);
    }
}

function wildcardRegex(pattern: string): RegExp {
    const escaped = pattern.split("*").map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
    return new RegExp(`^${escaped.join(".*")}$`, "s");
}
