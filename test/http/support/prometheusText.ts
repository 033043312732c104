// Reads Prometheus's text exposition format back, as a scraper would, for tests to compare.

export type Sample = {name: string, labels: Record<string, string>, value: number};

export type Scrape = {
    samples: Sample[],
    /** `# TYPE` lines: metric family → counter, gauge, histogram … */
    types: Map<string, string>,
    /** The sample with exactly these labels (undefined when there is none). */
    value(name: string, labels?: Record<string, string>): number | undefined,
    /** The samples of `name` whose labels include these. */
    find(name: string, labels?: Record<string, string>): Sample[]
};

const sampleLine = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const label = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parsePrometheusText(text: string): Scrape {
    const samples: Sample[] = [];
    const types = new Map<string, string>();
    for (const line of text.split("\n")) {
        const type = /^# TYPE (\S+) (\S+)$/.exec(line);
        if (type != null)
            types.set(type[1]!, type[2]!);
        const match = sampleLine.exec(line);
        if (line.startsWith("#") || match == null)
            continue;
        const labels: Record<string, string> = {};
        for (const [, key, value] of (match[2] ?? "").matchAll(label))
            labels[key!] = value!.replace(/\\(.)/g, (_all, char: string) => char === "n" ? "\n" : char);
        samples.push({name: match[1]!, labels, value: Number(match[3])});
    }
    const includes = (sample: Sample, labels: Record<string, string>) => Object.entries(labels).every(([key, value]) => sample.labels[key] === value);
    const find = (name: string, labels: Record<string, string> = {}) => samples.filter((sample) => sample.name === name && includes(sample, labels));
    return {
        samples, types, find,
        value: (name, labels = {}) => find(name, labels).find((sample) => Object.keys(sample.labels).length === Object.keys(labels).length)?.value
    };
}
