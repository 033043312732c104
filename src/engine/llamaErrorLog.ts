/**
 * The error lines llama.cpp logged lately. node-llama-cpp reports a failed model load only as
 * "Failed to load model"; the reason ("unknown model architecture: 'x'", "tensor data is not
 * within the file bounds") is a log line, which a load reads back from here to say why.
 */
export class LlamaErrorLog {
    private static readonly kept = 20;
    private readonly lines: string[] = [];
    private logged = 0;

    public push(line: string): void {
        this.lines.push(line);
        this.logged++;
        if (this.lines.length > LlamaErrorLog.kept)
            this.lines.shift();
    }

    /** A position to read from later with `since`. */
    public get mark(): number {
        return this.logged;
    }

    /** The lines logged after `mark` that are still kept. */
    public since(mark: number): string[] {
        return this.lines.slice(Math.max(0, this.lines.length - (this.logged - mark)));
    }
}
