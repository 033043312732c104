import {useState} from "preact/hooks";

/** Asked when the server answers 401: the key is kept in this browser (localStorage) once accepted. */
export function KeyPrompt({wrong, onKey}: {wrong: boolean, onKey(key: string): void}) {
    const [key, setKey] = useState("");
    return (
        <div class="overlay" role="dialog" aria-modal="true" aria-labelledby="key-title">
            <form class="dialog" onSubmit={(event) => { event.preventDefault(); if (key.trim() !== "") onKey(key.trim()); }}>
                <h2 id="key-title">This server needs an API key</h2>
                <p>Enter one of the keys it was started with (<code>--api-key</code>). It is kept in this browser only.</p>
                {wrong && <p class="error" role="alert">The server refused that key: check it and try again.</p>}
                <label for="api-key">API key</label>
                <input id="api-key" type="password" autoFocus autoComplete="off" value={key} onInput={(event) => setKey(event.currentTarget.value)} />
                <div class="row end"><button type="submit" class="primary" disabled={key.trim() === ""}>Connect</button></div>
            </form>
        </div>
    );
}
