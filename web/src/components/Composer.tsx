import {useRef, useState} from "preact/hooks";

type Props = {
    busy: boolean,
    /** Null: the model takes images; otherwise why it does not. */
    imagesRefused: string | null,
    onSend(text: string, images: string[]): void,
    onStop(): void
};

function readAsDataUrl(file: File): Promise<string> {
    return new Promise((resolve, reject) => {
        const reader = new FileReader();
        reader.onload = () => resolve(reader.result as string);
        reader.onerror = () => reject(reader.error);
        reader.readAsDataURL(file);
    });
}

const maxTextBytes = 200 * 1024;
const textExtensions = /\.(txt|md|markdown|csv|tsv|log|json|jsonl|yaml|yml|toml|ini|xml|html|css|js|mjs|cjs|ts|tsx|jsx|py|rb|rs|go|c|h|cc|cpp|hpp|java|kt|swift|sh|sql)$/i;

/** Text a model can read as it is: text/* types, and source or data files the browser gives no type. */
function isTextFile(file: File): boolean {
    return file.type.startsWith("text/") || /json|xml|yaml|javascript/.test(file.type) || textExtensions.test(file.name);
}

/** The message box: Enter sends, Shift+Enter breaks the line, Escape stops a reply; images by paste, drop or the picker. */
export function Composer({busy, imagesRefused, onSend, onStop}: Props) {
    const [text, setText] = useState("");
    const [images, setImages] = useState<string[]>([]);
    const [notice, setNotice] = useState<string | null>(null);
    const picker = useRef<HTMLInputElement>(null);

    async function attach(files: Iterable<File>) {
        const all = [...files];
        const texts = all.filter(isTextFile);
        const chosen = all.filter((file) => file.type.startsWith("image/"));
        const refused = all.filter((file) => !isTextFile(file) && !file.type.startsWith("image/"));
        setNotice(refused.length > 0 ? `Only images and text files can be attached (not ${refused.map((file) => file.name).join(", ")}).` : null);
        // A text file goes into the message itself, in a fenced block under its name, where it can still be edited.
        for (const file of texts) {
            if (file.size > maxTextBytes) {
                setNotice(`${file.name} is over ${maxTextBytes / 1024} KB: paste the part that matters.`);
                continue;
            }
            const content = await file.text();
            setText((current) => `${current}${current === "" ? "" : "\n\n"}${file.name}:\n\`\`\`\n${content.replace(/\n$/, "")}\n\`\`\`\n`);
        }
        if (chosen.length === 0)
            return;
        if (imagesRefused != null) {
            setNotice(imagesRefused);
            return;
        }
        const urls = await Promise.all(chosen.map(readAsDataUrl));
        setImages((current) => [...current, ...urls]);
    }

    function send() {
        if (busy || (text.trim() === "" && images.length === 0))
            return;
        onSend(text, images);
        setText("");
        setImages([]);
        setNotice(null);
    }

    return (
        <form class="composer" onSubmit={(event) => { event.preventDefault(); send(); }}
            onDragOver={(event) => event.preventDefault()}
            onDrop={(event) => { event.preventDefault(); void attach(event.dataTransfer?.files ?? []); }}>
            {images.length > 0 && (
                <div class="attachments">
                    {images.map((url, index) => (
                        <div class="attachment" key={index}>
                            <img src={url} alt={`Image ${index + 1} to send`} />
                            <button type="button" aria-label={`Remove image ${index + 1}`} onClick={() => setImages(images.filter((_, at) => at !== index))}>×</button>
                        </div>
                    ))}
                </div>
            )}
            {notice != null && <p class="error" role="alert">{notice}</p>}
            <div class="composer-row">
                <button type="button" class="icon" aria-label="Attach an image or a text file" title="Attach an image or a text file" onClick={() => picker.current?.click()}>+</button>
                <input ref={picker} type="file" aria-label="Attach files" accept="image/*,text/*,.md,.csv,.log,.json,.jsonl,.yaml,.yml,.toml,.xml,.js,.mjs,.ts,.tsx,.py,.rb,.rs,.go,.c,.h,.cc,.cpp,.hpp,.java,.kt,.swift,.sh,.sql" multiple hidden onChange={(event) => { void attach(event.currentTarget.files ?? []); event.currentTarget.value = ""; }} />
                <textarea aria-label="Message" placeholder="Message (Enter to send, Shift+Enter for a new line)" rows={1} value={text}
                    onInput={(event) => setText(event.currentTarget.value)}
                    onPaste={(event) => void attach(event.clipboardData?.files ?? [])}
                    onKeyDown={(event) => {
                        if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
                            event.preventDefault();
                            send();
                        } else if (event.key === "Escape" && busy)
                            onStop();
                    }} autoFocus />
                {busy
                    ? <button type="button" class="stop" aria-label="Stop the reply" onClick={onStop}>Stop</button>
                    : <button type="submit" class="primary" aria-label="Send" disabled={text.trim() === "" && images.length === 0}>Send</button>}
            </div>
        </form>
    );
}
