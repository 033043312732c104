/**
 * Columns aligned with spaces, headers in capitals, as `ollama list` and `docker ps` print them:
 * easy to read, and easy to cut with awk. A cell never holds a tab or a newline.
 */
export function textTable(headers: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
    const clean = (cell: string) => cell.replace(/\s+/g, " ");
    const all = [headers.map(clean), ...rows.map((row) => row.map(clean))];
    const widths = headers.map((_, column) => Math.max(...all.map((row) => (row[column] ?? "").length)));
    return all
        .map((row) => row.map((cell, column) => column === row.length - 1 ? cell : cell.padEnd(widths[column]!)).join("   "))
        .join("\n") + "\n";
}
