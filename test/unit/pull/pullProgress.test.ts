import {describe, expect, it} from "vitest";
import {formatDuration, progressBar, progressText, PullProgress} from "../../../src/pull/pullProgress.js";

const MiB = 1024 * 1024;

describe("a download's progress", () => {
    it("says how far, how fast and how long is left", () => {
        expect(progressText({downloadedBytes: 42 * MiB, totalBytes: 100 * MiB}, 2 * MiB)).toBe(" 42%  42 MiB of 100 MiB  2 MiB/s  29 s left");
        expect(progressText({downloadedBytes: 100 * MiB, totalBytes: 100 * MiB}, 2 * MiB)).toBe("100%  100 MiB of 100 MiB");
        expect(progressText({downloadedBytes: 0, totalBytes: 100 * MiB}, 0)).toBe("  0%  0 bytes of 100 MiB");
    });

    it("draws a bar that fits the terminal, and leaves the bar out of a narrow one", () => {
        const line = progressBar({downloadedBytes: 50 * MiB, totalBytes: 100 * MiB}, MiB, 100);
        expect(line).toMatch(/^\[=+> +\]  50%  50 MiB of 100 MiB  1 MiB\/s  50 s left$/);
        expect(line.length).toBeLessThan(100);
        expect(progressBar({downloadedBytes: 100 * MiB, totalBytes: 100 * MiB}, 0, 100)).toMatch(/^\[=+\] 100%/);
        const narrow = progressBar({downloadedBytes: 50 * MiB, totalBytes: 100 * MiB}, MiB, 40);
        expect(narrow).toMatch(/^ 50%  50 MiB of 100 MiB/);
        expect(narrow).toHaveLength(39);
    });

    it("writes durations as a person reads them", () => {
        expect([0.2, 45, 200, 7500].map(formatDuration)).toEqual(["1 s", "45 s", "3 min 20 s", "2 h 5 min"]);
    });

    it("prints a plain line at every tenth of the way when not on a terminal", () => {
        const lines: string[] = [];
        let now = 0;
        const progress = new PullProgress({write: (text: string) => lines.push(text), isTTY: false}, () => now);
        for (let bytes = 0; bytes <= 100; bytes += 5) {
            progress.update({downloadedBytes: bytes * MiB, totalBytes: 100 * MiB});
            now += 1000;
        }
        progress.end();
        expect(lines).toHaveLength(11);
        expect(lines.every((line) => line.endsWith("\n") && !line.includes("\r"))).toBe(true);
        expect(lines[5]).toBe(" 50%  50 MiB of 100 MiB  5 MiB/s  10 s left\n");
    });

    it("redraws one line on a terminal, at most five times a second, and ends it", () => {
        const writes: string[] = [];
        let now = 0;
        const progress = new PullProgress({write: (text: string) => writes.push(text), isTTY: true, columns: 80}, () => now);
        progress.update({downloadedBytes: 0, totalBytes: 10 * MiB});
        now += 50;
        progress.update({downloadedBytes: MiB, totalBytes: 10 * MiB}); // too soon: not drawn
        now += 300;
        progress.update({downloadedBytes: 10 * MiB, totalBytes: 10 * MiB});
        progress.end();
        expect(writes).toHaveLength(3);
        expect(writes.slice(0, 2).every((text) => text.startsWith("\r[") && text.endsWith("\x1b[K"))).toBe(true);
        expect(writes[2]).toBe("\n");
    });

    it("draws 80 columns on a terminal that gives no width (script, some CI runners)", () => {
        const writes: string[] = [];
        new PullProgress({write: (text: string) => writes.push(text), isTTY: true, columns: 0}, () => 0).update({downloadedBytes: MiB, totalBytes: 2 * MiB});
        expect(writes[0]).toMatch(/^\r\[=+> +\]  50%  1 MiB of 2 MiB\x1b\[K$/);
    });
});
