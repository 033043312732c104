import fs from "node:fs";

/**
 * `--api-key-file PATH`: the keys, one a line, for a key given on the command line shows in `ps`
 * to every user of the machine (and in shell history). Blank lines and lines starting with `#` are
 * left out; spaces around a key are trimmed, as keys from the environment are. A file that cannot
 * be read, or that holds no key, stops the start: a server meant to need a key must not start open.
 * The error has no `code`, so the startup message is this sentence (cli/startupFailure.ts).
 */
export function readApiKeyFile(file: string): string[] {
    let text: string;
    try {
        text = fs.readFileSync(file, "utf8");
    } catch (error) {
        throw new Error(`cannot read the API key file ${file} (--api-key-file): ${whyUnreadable(error as NodeJS.ErrnoException)}`);
    }
    const keys = text.split(/\r?\n/)
        .map((line) => line.trim())
        .filter((line) => line !== "" && !line.startsWith("#"));
    if (keys.length === 0)
        throw new Error(`the API key file ${file} (--api-key-file) holds no key: write one key on each line (lines starting with # are comments)`);
    return keys;
}

function whyUnreadable(error: NodeJS.ErrnoException): string {
    switch (error.code) {
        case "ENOENT":
            return "there is no such file";
        case "EACCES":
        case "EPERM":
            return "this user may not read it";
        case "EISDIR":
            return "it is a folder, not a file";
        default:
            return error.message;
    }
}
