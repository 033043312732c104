import fs from "node:fs";
import {Command, Option} from "commander";
import {describe, expect, it} from "vitest";
import {serveCommand} from "../../../src/cli/serveCommand.js";

/**
 * The README's "Flags" table is the manual's list of what `chatserve` takes. It is written by hand,
 * so this test holds it to the options src/cli/serveCommand.ts defines (read from the commander
 * program it builds): every flag in one is in the other, spelt as commander spells it
 * (`-m, --models <dir>`), with the default the code gives it, its environment variable and its choices.
 */
const readme = fs.readFileSync(new URL("../../../README.md", import.meta.url), "utf8");

/** What `chatserve` (the program, which serves by default) and `chatserve serve` take. */
function serveFlags(): {program: readonly Option[], serve: readonly Option[]} {
    const program = serveCommand(new Command("chatserve"));
    const serve = program.commands.find((command) => command.name() === "serve");
    if (serve == null)
        throw new Error("serveCommand() defines no serve command");
    return {program: program.options, serve: serve.options};
}

type FlagRow = {flags: string, defaultText: string, meaning: string};

/** The rows of the first table under `## Flags`, keyed by the first column's text without its backticks. */
function flagsTable(markdown: string): Map<string, FlagRow> {
    const section = /^## Flags\n([\s\S]*?)(?=^## )/m.exec(markdown)?.[1];
    if (section == null)
        throw new Error("the README has no '## Flags' section");
    const rows = new Map<string, FlagRow>();
    const lines = section.split("\n");
    const start = lines.findIndex((line) => line.startsWith("|"));
    const end = lines.findIndex((line, index) => index > start && !line.startsWith("|"));
    const tableLines = lines.slice(start, end < 0 ? undefined : end).slice(2); // after the header and its |---|
    for (const line of tableLines) {
        const cells = splitRow(line);
        const flags = cells[0]?.replace(/^`|`$/g, "") ?? "";
        if (rows.has(flags))
            throw new Error(`the README's flags table has two rows for ${flags}`);
        rows.set(flags, {flags, defaultText: cells[1] ?? "", meaning: cells[2] ?? ""});
    }
    return rows;
}

/** A table row's cells; a `|` inside a code span (none today) would need escaping as `\|`. */
function splitRow(line: string): string[] {
    return line.replace(/^\|/, "").replace(/\|\s*$/, "").split(/(?<!\\)\|/).map((cell) => cell.trim());
}

/**
 * A default the code states: commander's own (`.default(…)`), or, for options whose default is
 * decided later (config.ts), the one their help text names as `default: 8mb`. Empty lists (a
 * repeatable flag given no times) are no default.
 */
function codeDefault(option: Option): string | boolean | undefined {
    const value: unknown = option.defaultValue;
    if (typeof value === "string" || typeof value === "number")
        return String(value);
    if (typeof value === "boolean")
        return value;
    if (option.negate)
        return true; // commander's implicit default for `--no-x`: x is on
    return /\(?default: (\d[\w.]*)[;,)]/.exec(option.description)?.[1];
}

/** What is wrong between the table and the options; empty when they agree. */
function flagsTableProblems(markdown: string, options: readonly Option[]): string[] {
    const rows = flagsTable(markdown);
    const problems: string[] = [];
    for (const option of options) {
        const row = rows.get(option.flags);
        if (row == null) {
            problems.push(`${option.flags}: in src/cli/serveCommand.ts, missing from the README's table`);
            continue;
        }
        const expected = codeDefault(option);
        if (typeof expected === "string" && !row.defaultText.includes(`\`${expected}\``))
            problems.push(`${option.flags}: the code's default is ${expected}, the README says "${row.defaultText}"`);
        if (expected === false && !/\boff\b/.test(row.defaultText))
            problems.push(`${option.flags}: off by default in the code, the README says "${row.defaultText}"`);
        if (expected === true && !/\bon\b/.test(row.defaultText))
            problems.push(`${option.flags}: on by default in the code, the README says "${row.defaultText}"`);
        if (expected === undefined && row.defaultText === "")
            problems.push(`${option.flags}: the README says nothing of its default`);
        if (option.envVar != null && !row.defaultText.includes(`env \`${option.envVar}\``))
            problems.push(`${option.flags}: read from ${option.envVar} too, which the README does not say`);
        for (const choice of option.argChoices ?? [])
            if (!row.meaning.includes(`\`${choice}\``))
                problems.push(`${option.flags}: takes ${choice}, which the README does not list`);
        if (row.meaning === "")
            problems.push(`${option.flags}: the README says nothing of what it means`);
    }
    const defined = new Set(options.map((option) => option.flags));
    for (const flags of rows.keys())
        if (!defined.has(flags))
            problems.push(`${flags}: in the README's table, but src/cli/serveCommand.ts defines no such option`);
    return problems;
}

describe("the README's flags table", () => {
    it("lists every option of the serve command, with its default, environment variable and choices, and nothing else", () => {
        expect(flagsTableProblems(readme, serveFlags().program)).toEqual([]);
    });

    it("has a row for each option, and each in one row", () => {
        expect(flagsTable(readme).size).toBe(serveFlags().program.length);
    });

    it("is what `chatserve serve` takes too, as the README says", () => {
        const {program, serve} = serveFlags();
        expect(serve.map((option) => option.flags)).toEqual(program.map((option) => option.flags));
    });
});

describe("the check itself", () => {
    const options = () => [
        new Option("-p, --port <port>", "port to listen on").default(8080).env("CHATSERVE_PORT"),
        new Option("--gpu <backend>", "compute backend").choices(["auto", "cpu"]).default("auto"),
        new Option("--body-limit <size>", "largest request body (default: 8mb; an image sent inline takes 4/3 of its size)"),
        new Option("--log-prompts", "log prompts").default(false),
        new Option("--no-metrics", "do not serve metrics"),
        new Option("--api-key <key>", "require this key").default([])
    ];
    const table = (...rows: string[]) => `# x\n\n## Flags\n\n| flag | default | meaning |\n|---|---|---|\n${rows.join("\n")}\n\nText.\n\n## Next\n`;
    const rows = {
        port: "| `-p, --port <port>` | `8080` (env `CHATSERVE_PORT`) | port |",
        gpu: "| `--gpu <backend>` | `auto` | `auto` or `cpu` |",
        bodyLimit: "| `--body-limit <size>` | `8mb` | largest body |",
        logPrompts: "| `--log-prompts` | off | log prompts |",
        metrics: "| `--no-metrics` | metrics on | no metrics |",
        apiKey: "| `--api-key <key>` | none | require a key |"
    };

    it("passes a table that matches", () => {
        expect(flagsTableProblems(table(...Object.values(rows)), options())).toEqual([]);
    });

    it("fails when the code gains an option the table lacks", () => {
        const {apiKey: _, ...others} = rows;
        expect(flagsTableProblems(table(...Object.values(others)), options())).toEqual([
            "--api-key <key>: in src/cli/serveCommand.ts, missing from the README's table"
        ]);
    });

    it("fails when the table keeps a flag the code dropped, or renamed", () => {
        expect(flagsTableProblems(table(...Object.values(rows), "| `--old-flag <n>` | `1` | gone |"), options())).toEqual([
            "--old-flag <n>: in the README's table, but src/cli/serveCommand.ts defines no such option"
        ]);
        expect(flagsTableProblems(table(...Object.values({...rows, port: rows.port.replace("<port>", "<n>")})), options())).toEqual([
            "-p, --port <port>: in src/cli/serveCommand.ts, missing from the README's table",
            "-p, --port <n>: in the README's table, but src/cli/serveCommand.ts defines no such option"
        ]);
    });

    it("fails when a default changes on either side", () => {
        expect(flagsTableProblems(table(...Object.values({...rows, port: rows.port.replace("`8080`", "`8000`")})), options())).toEqual([
            "-p, --port <port>: the code's default is 8080, the README says \"`8000` (env `CHATSERVE_PORT`)\""
        ]);
        expect(flagsTableProblems(table(...Object.values({...rows, bodyLimit: rows.bodyLimit.replace("8mb", "16mb")})), options())).toEqual([
            "--body-limit <size>: the code's default is 8mb, the README says \"`16mb`\""
        ]);
        expect(flagsTableProblems(table(...Object.values({...rows, logPrompts: rows.logPrompts.replace("off", "on")})), options())).toEqual([
            "--log-prompts: off by default in the code, the README says \"on\""
        ]);
    });

    it("fails when an environment variable or a choice is not in the table", () => {
        expect(flagsTableProblems(table(...Object.values({...rows, port: rows.port.replace(" (env `CHATSERVE_PORT`)", ""), gpu: rows.gpu.replace(" or `cpu`", "")})), options())).toEqual([
            "-p, --port <port>: read from CHATSERVE_PORT too, which the README does not say",
            "--gpu <backend>: takes cpu, which the README does not list"
        ]);
    });
});
